#include "report/run_report.h"

#include "metrics/summary_json.h"
#include "planning/economics.h"
#include "scenario/config_json.h"
#include "uncertainty/scenario_key.h"

namespace servesim {

nlohmann::json run_report_json(const Scenario& sc, const SimulationResult& r) {
  nlohmann::json j = summary_json(r.summary);
  j["config"] = resolved_config_json(sc, r.kv_blocks_per_replica, r.summary);  // self-describing output
  // What the run's GPUs cost (hardware.price_per_hour or the GPU file's cost.on_demand).
  const planning::Economics e = planning::run_economics(sc, r.summary);
  j["cost"] = {{"usd_per_hour", e.usd_per_hour},
               {"usd_per_gpu_hour", sc.disaggregation ? nlohmann::json(nullptr) : nlohmann::json(sc.gpu.price_per_hour)},
               {"usd_per_million_output_tokens",
                e.usd_per_hour > 0 && e.output_tokens_per_s > 0 ? nlohmann::json(e.usd_per_million_output_tokens)
                                                                 : nlohmann::json(nullptr)},
               {"usd_for_run", e.usd_per_hour * r.summary.duration_s / 3600.0}};
  // How far to trust the latencies: 80% intervals from the closest measured runs.
  j["bands"] = bands::run_bands_json(sc, r.summary, j);
  return j;
}

}  // namespace servesim
