// The scenario's `autoscale:` section (scenario/autoscale_spec.h; the policy is
// run/autoscaler.h). Its keys are declared here, once.
#include <fmt/format.h>

#include "config/scenario_sections.h"
#include "config/workload_keys.h"
#include "util/error.h"

namespace servesim {
namespace {

const Key kMin{.name = "min_replicas",
               .type = KeyType::integer,
               .doc = "the fewest replicas the fleet keeps serving",
               .spec = "AutoscaleSpec::min_replicas",
               .default_number = 1,
               .min = 1,
               .max = 100000,
               .why = "replicas of one fleet"};
const Key kInitial{.name = "initial_replicas",
                   .type = KeyType::integer,
                   .doc = "replicas serving at the start of the run",
                   .spec = "AutoscaleSpec::initial_replicas",
                   .default_note = "min_replicas",
                   .min = 1,
                   .max = 100000,
                   .why = "replicas of one fleet"};
const Key kInterval{.name = "interval",
                    .type = KeyType::quantity,
                    .doc = "time between two decisions (Kubernetes HPA syncs every 15 s, KEDA polls every 30 s)",
                    .spec = "AutoscaleSpec::interval_s",
                    .dimension = Dimension::time,
                    .default_number = 15,
                    .min = 0.001,
                    .max = 86400,
                    .why = "a decision at least once a day"};
const Key kTargetQueue{.name = "target_queue",
                       .type = KeyType::number,
                       .doc = "waiting requests per serving replica the fleet aims at (vLLM's num_requests_waiting "
                              "metric, plus the requests a gateway holds, which wait for the fleet as well); the "
                              "desired count is ceil(serving x mean waiting / target_queue)",
                       .spec = "AutoscaleSpec::target_queue",
                       .default_note = "none: not a signal",
                       .min = 0.001,
                       .max = 1e6,
                       .why = "requests waiting per replica"};
const Key kTargetKv{.name = "target_kv",
                    .type = KeyType::quantity,
                    .doc = "KV cache use per serving replica the fleet aims at (vLLM's kv_cache_usage_perc); the "
                           "desired count is ceil(serving x mean use / target_kv)",
                    .spec = "AutoscaleSpec::target_kv",
                    .dimension = Dimension::fraction,
                    .default_note = "none: not a signal",
                    .min = 0.01,
                    .max = 1,
                    .why = "a share of the KV cache"};
const Key kTargetConcurrency{.name = "target_concurrency",
                             .type = KeyType::number,
                             .doc = "requests in a serving replica (waiting + running) the fleet aims at, as Knative's "
                                    "concurrency target; grows with the load below saturation, where the waiting "
                                    "queue is still empty",
                             .spec = "AutoscaleSpec::target_concurrency",
                             .default_note = "none: not a signal",
                             .min = 0.001,
                             .max = 1e6,
                             .why = "requests per replica"};
const Key kTargetTtft{.name = "target_ttft",
                      .type = KeyType::quantity,
                      .doc = "time to first token the fleet aims at (e.g. \"500 ms\"), read as ttft_quantile of the "
                             "requests finished in the last interval, as a KEDA Prometheus trigger on "
                             "histogram_quantile over vLLM's vllm:time_to_first_token_seconds; the desired count is "
                             "ceil(serving x TTFT / target_ttft). An interval with no finished request gives no "
                             "reading",
                      .spec = "AutoscaleSpec::target_ttft_s",
                      .dimension = Dimension::time,
                      .default_note = "none: not a signal",
                      .min = 1e-3,
                      .max = 3600,
                      .why = "1 ms to an hour"};
const Key kTtftQuantile{.name = "ttft_quantile",
                        .type = KeyType::quantity,
                        .doc = "the quantile of the interval's TTFTs that target_ttft limits (\"90%\" or 0.9)",
                        .spec = "AutoscaleSpec::ttft_quantile",
                        .dimension = Dimension::fraction,
                        .default_number = 0.9,
                        .min = 0.01,
                        .max = 1,
                        .why = "a quantile"};
const Key kTolerance{.name = "tolerance",
                     .type = KeyType::quantity,
                     .doc = "no change while every signal is within this fraction of its target (HPA's default 10%)",
                     .spec = "AutoscaleSpec::tolerance",
                     .dimension = Dimension::fraction,
                     .default_number = 0.1,
                     .min = 0,
                     .max = 1,
                     .why = "a fraction of the target"};
const Key kProvision{.name = "provision",
                     .type = KeyType::quantity,
                     .doc = "from a scale-up decision to a node ready to load the model (VM or pod start, image pull)",
                     .spec = "AutoscaleSpec::provision_s",
                     .dimension = Dimension::time,
                     .default_number = 0,
                     .min = 0,
                     .max = 86400,
                     .why = "a node starts within a day"};
const Key kLoadBandwidth{.name = "load_bandwidth",
                         .type = KeyType::quantity,
                         .doc = "bytes/s each GPU reads its share of the weights at when a replica starts (storage or "
                                "network to GPU); the loading time is weight bytes per GPU / load_bandwidth",
                         .spec = "AutoscaleSpec::load_bandwidth",
                         .dimension = Dimension::bandwidth,
                         .default_note = "none: the model loads instantly",
                         .min = 1e6,
                         .max = 1e13,
                         .why = "1 MB/s to 10 TB/s"};
const Key kWindow{.name = "scale_down_window",
                  .type = KeyType::quantity,
                  .doc = "a scale-down follows the largest recommendation of this trailing window, so a dip does not "
                         "shed replicas the next peak needs (HPA's stabilization window, 300 s by default)",
                  .spec = "AutoscaleSpec::scale_down_window_s",
                  .dimension = Dimension::time,
                  .default_number = 300,
                  .min = 0,
                  .max = 86400,
                  .why = "a window within a day"};

const Key kMaxStep{.name = "max_step",
                   .type = KeyType::integer,
                   .doc = "replicas one decision starts, or drains, at most; the rest waits for the next decisions "
                          "(an HPA scaleUp / scaleDown policy of type Pods; NVIDIA Dynamo's planner changes its "
                          "workers by 1 an interval)",
                   .spec = "AutoscaleSpec::max_step",
                   .default_note = "no limit: the HPA rule's count at once",
                   .min = 1,
                   .max = 100000,
                   .why = "replicas of one fleet"};
const Key kHold{.name = "hold_while_changing",
                .type = KeyType::boolean,
                .doc = "no decision while a replica is starting or draining (NVIDIA Dynamo's planner blocks its "
                       "metric pulling and adjustment while the number of workers is being adjusted); false: "
                       "decide at every interval, counting starting replicas as the fleet (HPA)",
                .spec = "AutoscaleSpec::hold_while_changing",
                .default_bool = false};

}  // namespace

const KeySection& autoscale_key_section() {
  static const KeySection s{.path = "autoscale",
                            .doc = "a fleet whose replica count follows the load; parallelism.replicas is its most "
                                   "(run/autoscaler.h)",
                            .keys = {&kMin, &kInitial, &kInterval, &kTargetQueue, &kTargetKv, &kTargetConcurrency, &kTargetTtft,
                                     &kTtftQuantile, &kTolerance,
                                     &kProvision, &kLoadBandwidth, &kWindow, &kMaxStep, &kHold}};
  return s;
}

const std::vector<const Key*>& autoscale_keys() { return autoscale_key_section().keys; }

std::optional<AutoscaleSpec> read_autoscale(ConfigMap& root, int max_replicas) {
  const std::string key(autoscale_key_section().path);
  if (!root.has(key)) return std::nullopt;
  ConfigMap m = root.map(key);
  return read_autoscale_map(m, max_replicas, "parallelism.replicas", "the fleet's");
}

AutoscaleSpec read_autoscale_map(ConfigMap& m, int max_replicas, std::string_view max_key, std::string_view whose) {
  AutoscaleSpec a;
  a.min_replicas = static_cast<int>(read_integer(m, kMin));
  a.initial_replicas = has_key(m, kInitial) ? static_cast<int>(read_integer(m, kInitial)) : a.min_replicas;
  a.interval_s = read_quantity(m, kInterval);
  if (has_key(m, kTargetQueue)) a.target_queue = read_number(m, kTargetQueue);
  if (has_key(m, kTargetKv)) a.target_kv = read_quantity(m, kTargetKv);
  if (has_key(m, kTargetConcurrency)) a.target_concurrency = read_number(m, kTargetConcurrency);
  if (has_key(m, kTargetTtft)) a.target_ttft_s = read_quantity(m, kTargetTtft);
  a.ttft_quantile = read_quantity(m, kTtftQuantile);
  if (has_key(m, kTtftQuantile) && a.target_ttft_s <= 0)
    throw Error(fmt::format("{}: ttft_quantile says which TTFT quantile target_ttft limits; give target_ttft too",
                            where(m, kTtftQuantile)));
  a.tolerance = read_quantity(m, kTolerance);
  a.provision_s = read_quantity(m, kProvision);
  if (has_key(m, kLoadBandwidth)) a.load_bandwidth = read_quantity(m, kLoadBandwidth);
  a.scale_down_window_s = read_quantity(m, kWindow);
  if (has_key(m, kMaxStep)) a.max_step = static_cast<int>(read_integer(m, kMaxStep));
  a.hold_while_changing = read_boolean(m, kHold);
  if (a.target_queue <= 0 && a.target_kv <= 0 && a.target_concurrency <= 0 && a.target_ttft_s <= 0)
    throw Error(fmt::format("{}: give the signal the fleet scales on: target_concurrency (requests in a replica, "
                            "e.g. 16), target_queue (waiting requests per replica, e.g. 4), target_kv (KV "
                            "cache use, e.g. \"70%\") and/or target_ttft (e.g. \"500 ms\")",
                            m.where()));
  if (max_replicas < 2)
    throw Error(fmt::format("{}: {} ({}) is the most replicas {} autoscaler may run; autoscaling needs at least 2",
                            m.where(), max_key, max_replicas, whose));
  if (a.min_replicas > max_replicas)
    throw Error(fmt::format("{}: min_replicas ({}) is above {} ({}), {} most", where(m, kMin), a.min_replicas,
                            max_key, max_replicas, whose));
  if (a.initial_replicas < a.min_replicas || a.initial_replicas > max_replicas)
    throw Error(fmt::format("{}: initial_replicas ({}) must be within [min_replicas, {}] = [{}, {}]",
                            where(m, kInitial), a.initial_replicas, max_key, a.min_replicas, max_replicas));
  m.finish();
  return a;
}

}  // namespace servesim
