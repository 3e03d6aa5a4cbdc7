#pragma once
// The disaggregation part of a run's summary (metrics/disaggregation_report.h) as
// JSON and as the text `servesim run` prints.
#include <nlohmann/json.hpp>
#include <string>

#include "metrics/disaggregation_report.h"

namespace servesim {

nlohmann::json disaggregation_json(const DisaggregationReport& d);
std::string disaggregation_text(const DisaggregationReport& d);

}  // namespace servesim
