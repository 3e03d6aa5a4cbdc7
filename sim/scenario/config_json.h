#pragma once
// The resolved configuration of a run, as `run --json` and summary.json carry it,
// so a result file says what produced it: GPU, model, precision W/A/KV,
// parallelism, every engine setting after defaults, KV blocks, the offered load,
// the scenario path and servesim's version.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "metrics/run_summary.h"
#include "scenario/scenario.h"

namespace servesim {

// `summary` supplies what is only known after the run (the offered rate, the
// queue guard's resolved limit).
nlohmann::json resolved_config_json(const Scenario& sc, std::int64_t kv_blocks_per_replica, const RunSummary& summary);

// "W8A8 fp8, KV fp8": the short precision label of tables and JSON rows.
std::string precision_label(const ResolvedPrecision& p);

}  // namespace servesim
