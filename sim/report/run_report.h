#pragma once
// The summary a finished run reports (`run --json`, `--out DIR/summary.json`, the
// Python module's Result.summary): the metrics, the resolved configuration that
// produced them, and the uncertainty bands of the closest measured runs.
#include <nlohmann/json.hpp>

#include "run/simulation.h"
#include "scenario/scenario.h"

namespace servesim {

nlohmann::json run_report_json(const Scenario& scenario, const SimulationResult& result);

}  // namespace servesim
