#include "report/run_report.h"

#include "metrics/summary_json.h"
#include "planning/economics.h"
#include "scenario/config_json.h"
#include "uncertainty/bands.h"
#include "uncertainty/scenario_key.h"

namespace servesim {

nlohmann::json run_report_json(const Scenario& sc, const SimulationResult& r) {
  nlohmann::json j = summary_json(r.summary);
  j["config"] = resolved_config_json(sc, r.kv_blocks_per_replica, r.summary);  // self-describing output
  // What the run's GPUs cost (hardware.price_per_hour or the GPU file's cost.on_demand).
  const planning::Economics e = planning::run_economics(sc, r.summary);
  j["cost"] = {{"usd_per_hour", e.usd_per_hour},
               {"usd_per_gpu_hour", sc.disaggregation || !sc.pools.empty() ? nlohmann::json(nullptr)
                                                                          : nlohmann::json(sc.gpu.price_per_hour)},
               {"usd_per_million_output_tokens",
                e.usd_per_hour > 0 && e.output_tokens_per_s > 0 ? nlohmann::json(e.usd_per_million_output_tokens)
                                                                 : nlohmann::json(nullptr)},
               {"usd_for_run", e.usd_per_hour * r.summary.duration_s / 3600.0}};
  // How far to trust the latencies: 80% intervals from the closest measured runs.
  j["bands"] = bands::run_bands_json(sc, r.summary, j);
  return j;
}

void add_seed_spread(nlohmann::json& j, const Scenario& sc, const SimulationResult& r, int replicates,
                     bool fast_forward) {
  const bool banded = j.contains("bands") && j["bands"].value("available", false);
  if (replicates < 0) replicates = banded && r.summary.load.offered <= kAutoReplicateRequests ? kAutoReplicates : 0;
  if (replicates <= 0 || !banded) return;
  std::vector<nlohmann::json> reps;
  std::vector<std::uint64_t> seeds;
  for (int i = 1; i <= replicates; ++i) {
    Scenario other = sc;
    other.workload.seed = sc.workload.seed + static_cast<std::uint64_t>(i);
    SimulationOptions quiet;
    quiet.fast_forward = fast_forward;
    reps.push_back(summary_json(simulate(other, quiet).summary));
    seeds.push_back(other.workload.seed);
  }
  bands::widen_by_seed_spread(j["bands"], j, reps, seeds);
}

}  // namespace servesim
