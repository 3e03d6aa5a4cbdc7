#pragma once
// `plan` on a scenario with an `autoscale:` section: the best candidate's fleet
// (the replicas the plan sized for the target rate) run over the scenario's whole
// workload twice, fixed at that size and autoscaled up to it, so a planner sees
// what autoscaling saves in GPU-hours and what it costs in SLO attainment (the
// start delay and the scale-down window are in the autoscaled run).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "scenario/scenario.h"

namespace servesim::planning {

struct FleetRun {
  int max_replicas = 0;
  double mean_serving = 0;       // replicas serving, time-weighted (fixed: max_replicas)
  double gpu_hours = 0;          // fixed: GPUs x the run's duration; autoscaled: held
  double usd = 0;                // gpu_hours x the GPU's price (0: no price)
  std::int64_t completed = 0, failed = 0;
  double slo_attainment = 0;     // share of offered requests meeting every per-request limit
  bool slo_met = false;          // the scenario's SLOs, as `run` judges them
  double ttft_p99_ms = 0, tpot_p99_ms = 0;
  double duration_s = 0;
};

struct FleetComparison {
  std::string candidate;  // the plan's best candidate's label
  FleetRun fixed, autoscaled;
};

// Runs `candidate` (one replica of the plan's best setup, the scenario's workload)
// as a fleet of `replicas` without and with `autoscale` (min and initial replicas
// clamped to the fleet). Throws servesim::Error when a run fails.
FleetComparison compare_fleets(const Scenario& candidate, const std::string& label, int replicas,
                               const AutoscaleSpec& autoscale);

std::string fleet_comparison_text(const FleetComparison& f);
nlohmann::ordered_json fleet_comparison_json(const FleetComparison& f);

}  // namespace servesim::planning
