#pragma once
#include <nlohmann/json.hpp>

#include "metrics/collector.h"
#include "metrics/run_summary.h"

namespace servesim {

// The summary as `servesim run --json` prints it (stable keys: scripts rely on them).
nlohmann::json summary_json(const RunSummary& s);
nlohmann::json distribution_json(const Distribution& d);  // nulls over zero samples
// Failed requests by reason: {"too_long_for_max_model_len": n, ...}, every reason listed.
nlohmann::json failures_json(const FailureCounts& f);
// "3 too_long_for_max_model_len, 1 exceeds_kv_capacity" (nonzero reasons only).
std::string failures_text(const FailureCounts& f);
// Offered vs served load, the waiting queue's peak, the overload verdict and the
// queue memory guard: the "load" JSON object and the table's lines.
nlohmann::json load_json(const RunSummary& s);
std::string load_text(const RunSummary& s);
// An autoscaled fleet or pool: the "autoscale" JSON object, and its line's text
// ("1..4 of 4 <what> serving (2.50 on average), ...").
nlohmann::json autoscale_json(const AutoscaleReport& a);
std::string autoscale_text(const AutoscaleReport& a, const char* what);
// Human-readable table for the terminal.
std::string summary_table(const RunSummary& s);
// timeline.csv
std::string timeline_csv(const std::vector<TimelineRow>& rows);

}  // namespace servesim
