#pragma once
// Sizing a disaggregated deployment (xPyD: x prefill and y decode instances, the
// scenario's `disaggregation:` pools) for the SLOs at a target rate, next to the
// co-located plan (plan.h).
//
// The search: splits (x, y) in order of their GPUs (x GPUs per prefill instance
// + y per decode instance), each judged by one trial at the target rate (the
// trial of capacity.h: SLOs met and the queue not growing). The first GPU count
// at which some split is sustainable is the answer; of its sustainable splits
// the cheapest per million output tokens (then the highest SLO attainment) is the
// best. Splits go up to the GPU budget (--gpu-budget or plan.gpu_budget), else up
// to twice the GPUs of the best co-located configuration (at least 4, at most
// kMaxSearchGpus), so the comparison always covers the co-located size.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/config_node.h"
#include "planning/plan.h"

namespace servesim::planning {

inline constexpr int kMaxSearchGpus = 64;

struct Split {
  int prefill = 0, decode = 0;  // instances
  int gpus = 0;
  std::optional<Trial> trial;   // at the target rate
  bool sustainable = false;
  std::string failure;          // why not ("" when sustainable)
  Economics economics;          // both pools' GPUs at the target rate
};

struct DisaggregatedPlan {
  double target_rate = 0;
  std::string prefill_pool, decode_pool;  // "h100-sxm tp=1", per instance
  int prefill_gpus_per_instance = 1, decode_gpus_per_instance = 1;
  int max_gpus = 0;                 // the search's ceiling
  std::vector<Split> splits;        // every split tried, in search order
  std::optional<std::size_t> best;  // index into splits
  std::string note;                 // why there is no best, when there is none
  bool pools_autoscaled = false;    // the scenario's pools have autoscale sections (splits are sized fixed)
};

// `doc` is the scenario with its disaggregation section; `colocated` the plan of
// the same scenario without it (its best configuration sets the search ceiling
// when no budget is given). The target rate is the co-located plan's, else the
// workload's; throws servesim::Error when there is neither.
DisaggregatedPlan plan_disaggregated(const ConfigNode& doc, const std::string& source, const PlanOptions& options,
                                     const PlanResult& colocated);

std::string disaggregated_plan_table(const DisaggregatedPlan& d, const PlanResult& colocated);
nlohmann::ordered_json disaggregated_plan_json(const DisaggregatedPlan& d, const PlanResult& colocated);

}  // namespace servesim::planning
