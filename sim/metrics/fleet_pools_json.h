#pragma once
// A heterogeneous fleet's per-pool reports (metrics/fleet_pool_report.h) as JSON
// and as the lines `servesim run` prints.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "metrics/fleet_pool_report.h"

namespace servesim {

nlohmann::json fleet_pools_json(const std::vector<FleetPoolReport>& pools);
std::string fleet_pools_text(const std::vector<FleetPoolReport>& pools);

}  // namespace servesim
