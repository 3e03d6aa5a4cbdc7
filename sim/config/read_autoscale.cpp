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

const Key kPlanner{.name = "planner",
                   .type = KeyType::choice,
                   .doc = "the rule that turns the load into a replica count: hpa, the HPA rule on the target_* "
                          "signals; sla, NVIDIA Dynamo's throughput-based SLA planner (disaggregated pools only): "
                          "each interval, prefill instances = ceil(requests x mean ISL / interval x min(1, TTFT "
                          "correction) / one instance's prefill tokens/s at that ISL), decode instances = "
                          "ceil(requests x mean OSL / interval / one instance's best tokens/s whose decode step "
                          "stays within target_itl / ITL correction at context ISL + OSL / 2), from servesim's own "
                          "step times (run/sla_planner.h)",
                   .spec = "AutoscaleSpec::planner",
                   .default_text = "hpa",
                   .choices = {"hpa", "sla"}};
const Key kTargetItl{.name = "target_itl",
                     .type = KeyType::quantity,
                     .doc = "the inter-token latency the SLA planner sizes the decode pool for (Dynamo's --itl)",
                     .spec = "AutoscaleSpec::target_itl_s",
                     .dimension = Dimension::time,
                     .default_note = "none; required by planner: sla on a decode pool",
                     .min = 1e-4,
                     .max = 60,
                     .why = "0.1 ms to a minute"};
const Key kCorrection{.name = "correction",
                      .type = KeyType::boolean,
                      .doc = "the SLA planner scales its profile by the interval's measured TTFT / expected and ITL "
                             "/ expected (Dynamo's correction factors); false: the profile alone (--no-correction)",
                      .spec = "AutoscaleSpec::correction",
                      .default_bool = true};

}  // namespace

const KeySection& autoscale_key_section() {
  static const KeySection s{.path = "autoscale",
                            .doc = "a fleet whose replica count follows the load; parallelism.replicas is its most "
                                   "(run/autoscaler.h)",
                            .keys = {&kMin, &kInitial, &kInterval, &kTargetQueue, &kTargetKv, &kTargetConcurrency, &kTargetTtft,
                                     &kTtftQuantile, &kTolerance,
                                     &kProvision, &kLoadBandwidth, &kWindow, &kMaxStep, &kHold, &kPlanner,
                                     &kTargetItl, &kCorrection}};
  return s;
}

const std::vector<const Key*>& autoscale_keys() { return autoscale_key_section().keys; }

std::optional<AutoscaleSpec> read_autoscale(ConfigMap& root, int max_replicas) {
  const std::string key(autoscale_key_section().path);
  if (!root.has(key)) return std::nullopt;
  ConfigMap m = root.map(key);
  return read_autoscale_map(m, max_replicas, "parallelism.replicas", "the fleet's", AutoscaleRole::fleet);
}

AutoscaleSpec read_autoscale_map(ConfigMap& m, int max_replicas, std::string_view max_key, std::string_view whose,
                                 AutoscaleRole role) {
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
  a.planner = read_choice(m, kPlanner) == "sla" ? AutoscaleSpec::Planner::sla : AutoscaleSpec::Planner::hpa;
  if (has_key(m, kTargetItl)) a.target_itl_s = read_quantity(m, kTargetItl);
  a.correction = read_boolean(m, kCorrection);
  if (a.planner == AutoscaleSpec::Planner::sla) {
    if (role == AutoscaleRole::fleet)
      throw Error(fmt::format("{}: planner: sla is NVIDIA Dynamo's throughput-based planner, which sizes the "
                              "prefill and decode pools of a disaggregated deployment apart; put it in "
                              "disaggregation.prefill.autoscale and disaggregation.decode.autoscale, or scale a "
                              "co-located fleet on target_ttft / target_concurrency (the hpa planner)",
                              where(m, kPlanner)));
    for (const Key* k : {&kTargetQueue, &kTargetKv, &kTargetConcurrency, &kTargetTtft})
      if (has_key(m, *k))
        throw Error(fmt::format("{}: {} is a signal of the hpa planner; planner: sla sizes the pool from the "
                                "interval's requests and the engine's profile, not from it",
                                where(m, *k), k->name));
    if (role == AutoscaleRole::decode && a.target_itl_s <= 0)
      throw Error(fmt::format("{}: planner: sla sizes the decode pool for an inter-token latency: give "
                              "target_itl (e.g. \"25 ms\")",
                              where(m, kPlanner)));
    if (role == AutoscaleRole::prefill && a.target_itl_s > 0)
      throw Error(fmt::format("{}: target_itl sizes the decode pool; the SLA planner sizes the prefill pool from "
                              "its prefill throughput at the interval's ISL (put target_itl in "
                              "disaggregation.decode.autoscale)",
                              where(m, kTargetItl)));
  } else if (has_key(m, kTargetItl) || has_key(m, kCorrection)) {
    const Key& k = has_key(m, kTargetItl) ? kTargetItl : kCorrection;
    throw Error(fmt::format("{}: {} is read by planner: sla only", where(m, k), k.name));
  }
  if (a.planner == AutoscaleSpec::Planner::hpa && a.target_queue <= 0 && a.target_kv <= 0 && a.target_concurrency <= 0 && a.target_ttft_s <= 0)
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
