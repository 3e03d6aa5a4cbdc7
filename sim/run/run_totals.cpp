#include "run/run_totals.h"

#include <algorithm>

#include "util/machine.h"

namespace servesim {

double queue_guard_bytes(const EngineConfig& e, int concurrent_runs, bool* from_machine) {
  *from_machine = e.max_queue_memory_bytes <= 0;
  if (!*from_machine) return e.max_queue_memory_bytes;
  const double phys = physical_memory_bytes();
  const double quarter = phys > 0 ? phys / 4 : 4.0 * 1024 * 1024 * 1024;  // 4 GiB if the system does not say
  return quarter / std::max(1, concurrent_runs);
}

void add_carbon(RunSummary& s, double grid_g_per_kwh) {
  if (grid_g_per_kwh <= 0) return;
  // grams = kWh drawn x gCO2/kWh (3.6e6 J per kWh).
  s.grid_g_per_kwh = grid_g_per_kwh;
  s.carbon_g = s.energy_j / 3.6e6 * grid_g_per_kwh;
  if (s.output_tokens > 0) s.carbon_g_per_output_token = s.carbon_g / static_cast<double>(s.output_tokens);
  if (s.completed > 0) s.carbon_g_per_request = s.carbon_g / static_cast<double>(s.completed);
}

}  // namespace servesim
