#include "report/run_report.h"

#include "metrics/summary_json.h"
#include "scenario/config_json.h"
#include "uncertainty/scenario_key.h"

namespace servesim {

nlohmann::json run_report_json(const Scenario& sc, const SimulationResult& r) {
  nlohmann::json j = summary_json(r.summary);
  j["config"] = resolved_config_json(sc, r.kv_blocks_per_replica, r.summary);  // self-describing output
  // How far to trust the latencies: 80% intervals from the closest measured runs.
  j["bands"] = bands::run_bands_json(sc, r.summary, j);
  return j;
}

}  // namespace servesim
