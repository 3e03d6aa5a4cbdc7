// Request classes: `workload.classes` (workload/request_classes.h), a list of
// {name, share, priority?, slo?, rate_limit?, burst?, max_queue?}. Their keys are
// declared here, once, with the checks of the classes against the scenario.
//
//   workload:
//     classes:
//       - {name: interactive, share: 0.3, priority: 10, slo: {ttft_ms: {p99: 500}}}
//       - {name: batch, share: 0.7, max_queue: 2000}
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "config/classes_reader.h"
#include "config/printable_name.h"
#include "config/scenario_sections.h"
#include "config/workload_keys.h"
#include "scenario/scenario.h"
#include "util/error.h"

namespace servesim {
namespace {

constexpr std::size_t kMaxClasses = 64;

const Key kName{.name = "name",
                .type = KeyType::text,
                .doc = "the class's name in the summary, JSON and requests (letters, digits, '_', '-', '.')",
                .spec = "RequestClassSpec::name",
                .required = true};
const Key kShare{.name = "share",
                 .type = KeyType::quantity,
                 .doc = "fraction of the requests in this class (\"30%\" or 0.3); the classes' shares add to 1. A "
                        "session's turns share one class",
                 .spec = "RequestClassSpec::share",
                 .dimension = Dimension::fraction,
                 .required = true,
                 .min = 0,
                 .max = 1,
                 .why = "a fraction of the requests"};
const Key kPriority{.name = "priority",
                    .type = KeyType::integer,
                    .doc = "importance, higher first (the Gateway API Inference Extension's InferenceObjective "
                           "priority; vLLM's request priority runs the other way): the gateway releases held "
                           "requests by it and an engine preempts the lowest first; negative: sheddable, dropped by "
                           "a saturated gateway",
                    .spec = "RequestClassSpec::priority",
                    .default_number = 0,
                    .min = -1000,
                    .max = 1000,
                    .why = "a few levels are what deployments use"};
const Key kSlo{.name = "slo",
               .type = KeyType::section,
               .doc = "this class's SLO, with the keys of the top-level slo section (attainment, ttft_ms, tpot_ms, "
                      "e2e_ms; not itl_ms, which is measured per step, not per class)",
               .spec = "Scenario::class_slos",
               .default_note = "the scenario's slo"};
const Key kRateLimit{.name = "rate_limit",
                     .type = KeyType::number,
                     .doc = "token-bucket rate limit at the gateway, requests per second (an API gateway's 429): a "
                            "request finding the bucket empty fails (rate_limited)",
                     .spec = "RequestClassSpec::rate_limit",
                     .unit = "requests/s",
                     .default_note = "none: no limit",
                     .min = 1e-6,
                     .max = 1e9,
                     .why = "one request a week to a billion a second"};
const Key kBurst{.name = "burst",
                 .type = KeyType::number,
                 .doc = "the token bucket's size: requests that may arrive at once after a quiet spell (needs "
                        "rate_limit; the bucket starts full)",
                 .spec = "RequestClassSpec::burst",
                 .unit = "requests",
                 .default_note = "max(1, rate_limit): one second's worth",
                 .min = 1,
                 .max = 1e12,
                 .why = "at least one request must fit the bucket"};
const Key kMaxQueue{.name = "max_queue",
                    .type = KeyType::integer,
                    .doc = "requests of this class the gateway holds at once while the replicas are saturated; one "
                           "more fails (gateway_queue_full). Needs the gateway section",
                    .spec = "RequestClassSpec::max_queue",
                    .unit = "requests",
                    .default_note = "none: no limit",
                    .min = 0,
                    .max = 1e12,
                    .why = "a count of requests"};

const Key kClasses{.name = "classes",
                   .type = KeyType::list,
                   .doc = "request classes: each request (each session) belongs to one, drawn by share; each class has "
                          "its priority, its own SLO and goodput in the summary, and its gateway limits "
                          "(workload/request_classes.h, run/gateway.h)",
                   .spec = "WorkloadSpec::classes",
                   .default_note = "none: one class, the scenario's slo",
                   .item = "class mapping {name, share, priority?, slo?, rate_limit?, burst?, max_queue?}"};

}  // namespace

const Key& classes_workload_key() { return kClasses; }

const KeySection& classes_key_section() {
  static const KeySection s{.path = "workload.classes",
                            .doc = "one request class (a list item): its share, priority, SLO and gateway limits",
                            .keys = {&kName, &kShare, &kPriority, &kSlo, &kRateLimit, &kBurst, &kMaxQueue}};
  return s;
}

std::vector<RequestClassSpec> read_classes(ConfigMap& w, std::vector<std::optional<SloSpec>>* slos) {
  const std::string key(kClasses.name);
  std::vector<RequestClassSpec> classes;
  if (slos) slos->clear();
  if (!w.has(key)) return classes;
  const ConfigNode* node = w.get(key);
  if (!node || !node->is_sequence() || node->items().empty())
    throw Error(fmt::format("{}: a non-empty list of classes, e.g. [{{name: interactive, share: 0.3, priority: 10}}, "
                            "{{name: batch, share: 0.7}}]",
                            w.where(key)));
  if (node->items().size() > kMaxClasses)
    throw Error(fmt::format("{}: {} classes; at most {}", w.where(key), node->items().size(), kMaxClasses));
  std::set<std::string> names;
  double total = 0;
  for (std::size_t i = 0; i < node->items().size(); ++i) {
    ConfigMap m(node->items()[i], w.file(), fmt::format("{}[{}]", w.key_path(key), i));
    RequestClassSpec c;
    c.name = read_text(m, kName);
    if (!printable_name(c.name))
      throw Error(fmt::format("{}: '{}' is not a class name: 1 to 64 letters, digits, '_', '-' or '.' (it is printed "
                              "in tables and CSV files)",
                              where(m, kName), c.name));
    if (!names.insert(c.name).second)
      throw Error(fmt::format("{}: a second class named '{}'", where(m, kName), c.name));
    c.share = read_quantity(m, kShare);
    if (c.share <= 0)
      throw Error(fmt::format("{}: a class's share must be above 0 (remove the class instead)", where(m, kShare)));
    total += c.share;
    c.priority = static_cast<int>(read_integer(m, kPriority));
    std::optional<SloSpec> own_slo;
    if (has_key(m, kSlo)) {
      ConfigMap slo = m.map(std::string(kSlo.name));
      if (slo.has("itl_ms"))
        throw Error(fmt::format("{}: itl_ms is measured per decode step for the whole run, not per class; limit "
                                "tpot_ms instead (each request's mean inter-token time)",
                                slo.where("itl_ms")));
      own_slo = read_slo(slo);
    }
    if (has_key(m, kRateLimit)) c.rate_limit = read_number(m, kRateLimit);
    if (has_key(m, kBurst)) {
      if (c.rate_limit <= 0)
        throw Error(fmt::format("{}: burst is the size of rate_limit's token bucket; give rate_limit too",
                                where(m, kBurst)));
      c.burst = read_number(m, kBurst);
    } else {
      c.burst = std::max(1.0, c.rate_limit);
    }
    if (has_key(m, kMaxQueue)) c.max_queue = read_integer(m, kMaxQueue);
    m.finish();
    classes.push_back(std::move(c));
    if (slos) slos->push_back(std::move(own_slo));
  }
  if (std::abs(total - 1.0) > 1e-6)
    throw Error(fmt::format("{}: the classes' shares add to {:g}, not 1 (each request belongs to exactly one class)",
                            w.where(key), total));
  return classes;
}

void check_classes_and_gateway(ConfigMap& root, const Scenario& sc) {
  const std::vector<RequestClassSpec>& classes = sc.workload.classes;
  const std::string gateway(gateway_key_section().path);
  if (!sc.gateway) {
    for (const RequestClassSpec& c : classes)
      if (c.max_queue >= 0)
        throw Error(fmt::format("{}: class '{}' has max_queue, the requests the gateway holds for it; add a "
                                "`gateway:` section (flow control) or remove max_queue",
                                root.where("workload"), c.name));
  }
  // With disaggregation (run/disaggregated_simulation.cpp) the gateway admits to the
  // deployment, the prefill pool's vLLM engines queue and preempt by priority, and the
  // decode instances grant blocks in priority order (engine/decode_only_engine.h).
  if (sc.engine.priority_queue) {
    const std::string where = root.where("engine");
    const bool ranked = std::any_of(classes.begin(), classes.end(),
                                    [&](const RequestClassSpec& c) { return c.priority != classes.front().priority; });
    if (!ranked)
      throw Error(fmt::format("{}: scheduling_policy: priority orders the waiting queue by the request classes' "
                              "priorities; give workload.classes of different priorities (or use fcfs)",
                              where));
    if (sc.engine.kind != "vllm")
      throw Error(fmt::format("{}: scheduling_policy: priority is the vllm engine's (engine.kind: {})", where,
                              sc.engine.kind));
    // Users who give up leave the queue wherever they are in it, and LoRA admission passes
    // over requests in queue order (batch_state.cpp): both follow the priority order.
  }
  // (Users who give up while the gateway holds them: run/gateway.h, co-located and
  // disaggregated alike.)
}

}  // namespace servesim
