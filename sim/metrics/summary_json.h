#pragma once
#include <nlohmann/json.hpp>

#include "metrics/collector.h"
#include "metrics/run_summary.h"

namespace servesim {

// The summary as `servesim run --json` prints it (stable keys: scripts rely on them).
nlohmann::json summary_json(const RunSummary& s);
nlohmann::json distribution_json(const Distribution& d);
// Human-readable table for the terminal.
std::string summary_table(const RunSummary& s);
// timeline.csv
std::string timeline_csv(const std::vector<TimelineRow>& rows);

}  // namespace servesim
