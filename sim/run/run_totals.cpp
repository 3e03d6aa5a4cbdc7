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

double held_energy_j(double step_j, double busy_gpu_s, double held_gpu_s, double idle_watts) {
  return step_j + std::max(0.0, held_gpu_s - busy_gpu_s) * idle_watts;
}

void set_energy(RunSummary& s, double energy_j) {
  s.energy_j = energy_j;
  s.power_w_per_gpu = s.duration_s > 0 && s.gpus > 0 ? energy_j / (s.duration_s * s.gpus) : 0.0;
  s.joules_per_output_token = s.output_tokens > 0 ? energy_j / static_cast<double>(s.output_tokens) : 0.0;
  s.joules_per_request = s.completed > 0 ? energy_j / static_cast<double>(s.completed) : 0.0;
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
