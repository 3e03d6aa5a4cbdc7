#pragma once
// What a scenario's `plan:` section says (planning/plan.h describes the planner):
// a plain struct here, below planning/ in the folder graph, so the reader in
// config/ needs nothing from planning/; planning::PlanOptions extends it with what
// only flags set.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace servesim {

// The rate search's defaults (planning::SearchOptions uses them), shown by `describe`.
inline constexpr std::int64_t kDefaultTrialRequests = 1000;
inline constexpr double kDefaultSearchTolerance = 0.025;

struct PlanSection {
  std::optional<double> target_rate;  // requests per second, all replicas together
  std::optional<int> gpu_budget;      // GPUs in total
  std::vector<std::string> gpus;      // candidate GPU names (empty: the scenario's)
  std::vector<std::string> weights;   // candidate weight precisions (empty: the scenario's)
  std::vector<int> tps, pps;          // (empty: the scenario's)
  // Candidate layouts ("tp8", "dp16 ep16", "tp1 dp72 ep72 r32": cost/layout_text.h),
  // each replacing tp, attention_dp, ep and redundant experts (empty: tps, or the scenario's).
  std::vector<std::string> layouts;
  int max_replicas = 0;               // 0: no limit
  std::int64_t trial_requests = 0;    // 0: kDefaultTrialRequests
  double tolerance = 0;               // 0: kDefaultSearchTolerance
};

}  // namespace servesim
