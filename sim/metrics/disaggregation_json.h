#pragma once
// The disaggregation part of a run's summary (metrics/disaggregation_report.h) as
// JSON and as the text `servesim run` prints.
#include <nlohmann/json.hpp>
#include <string>

#include "metrics/disaggregation_report.h"

namespace servesim {

// One pool's hardware figures (a disaggregated run's pools, a heterogeneous fleet's).
nlohmann::json pool_json(const PoolReport& p);
// "  name    4 x 1 GPU (tp=1), h100-sxm: busy 63%, ..." (one line; `name` padded to 7).
std::string pool_text(const char* name, const PoolReport& p);

nlohmann::json disaggregation_json(const DisaggregationReport& d);
std::string disaggregation_text(const DisaggregationReport& d);

}  // namespace servesim
