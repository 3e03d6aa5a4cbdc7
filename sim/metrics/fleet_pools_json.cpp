#include "metrics/fleet_pools_json.h"

#include <fmt/format.h>

#include "metrics/disaggregation_json.h"
#include "metrics/summary_json.h"

namespace servesim {

nlohmann::json fleet_pools_json(const std::vector<FleetPoolReport>& pools) {
  nlohmann::json out = nlohmann::json::array();
  for (const FleetPoolReport& p : pools) {
    nlohmann::json j = pool_json(p.hardware);
    j["name"] = p.name;
    j["completed"] = p.completed;
    j["failed"] = p.failed;
    j["output_tokens_per_s"] = p.output_tokens_per_s;
    j["ttft_ms"] = distribution_json(p.ttft_ms);
    j["tpot_ms"] = distribution_json(p.tpot_ms);
    j["e2e_ms"] = distribution_json(p.e2e_ms);
    j["price_per_gpu_hour"] = p.price_per_gpu_hour;
    j["gpu_hours"] = p.gpu_hours;
    j["cost_usd"] = p.gpu_hours * p.price_per_gpu_hour;
    out.push_back(std::move(j));
  }
  return out;
}

std::string fleet_pools_text(const std::vector<FleetPoolReport>& pools) {
  std::string out = "pools\n";
  for (const FleetPoolReport& p : pools) {
    out += pool_text(p.name.c_str(), p.hardware);
    out += fmt::format("          {} completed{}, {:.0f} output tok/s; TTFT p50 {:.1f} / p99 {:.1f} ms, TPOT p50 {:.2f} / "
                       "p99 {:.2f} ms; {:.2f} GPU-hours at ${:.2f} = ${:.2f}\n",
                       p.completed, p.failed > 0 ? fmt::format(" ({} failed)", p.failed) : std::string(),
                       p.output_tokens_per_s, p.ttft_ms.p50, p.ttft_ms.p99, p.tpot_ms.p50, p.tpot_ms.p99, p.gpu_hours,
                       p.price_per_gpu_hour, p.gpu_hours * p.price_per_gpu_hour);
  }
  return out;
}

}  // namespace servesim
