#include "run/fleet_pools_run.h"

#include "hardware/power_model.h"
#include "run/run_totals.h"

namespace servesim {

void merge_fleet_pools(RunSummary& s, const std::vector<std::unique_ptr<ServingPool>>& pools,
                       const std::vector<FleetPoolSpec>& specs) {
  s.pools.clear();
  double busy = 0, step_j = 0, mfu = 0, bw = 0, energy = 0;
  double bound[kBoundCount] = {0, 0, 0, 0};
  int gpus = 0;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const ServingPool& p = *pools[i];
    const RunSummary ps = p.collector->summarize();
    double busy_p = 0, step_jp = 0;
    FleetPoolReport r;
    r.name = specs[i].name;
    r.hardware = pool_report(p, ps, s.duration_s, &busy_p, &step_jp);
    r.completed = ps.completed;
    r.failed = ps.failed;
    r.output_tokens_per_s = s.duration_s > 0 ? static_cast<double>(ps.output_tokens) / s.duration_s : 0.0;
    r.ttft_ms = ps.ttft_ms;
    r.tpot_ms = ps.tpot_ms;
    r.e2e_ms = ps.e2e_ms;
    r.price_per_gpu_hour = p.setup.gpu.price_per_hour;
    const bool scaled = s.autoscale && i < s.autoscale->pool_gpu_seconds.size();
    r.gpu_hours = scaled ? s.autoscale->pool_gpu_seconds[i] / 3600.0 : r.hardware.gpus * s.duration_s / 3600.0;
    // An autoscaled pool draws idle power only while its GPUs are held.
    if (scaled)
      r.hardware.energy_j = held_energy_j(step_jp, busy_p, s.autoscale->pool_gpu_seconds[i],
                                          PowerModel::of(p.setup.gpu).idle_watts);
    busy += busy_p;
    step_j += step_jp;
    mfu += ps.mfu * busy_p;
    bw += ps.bandwidth_utilization * busy_p;
    for (int b = 0; b < kBoundCount; ++b) bound[b] += ps.bound_share[b] * busy_p;
    energy += r.hardware.energy_j;
    gpus += r.hardware.gpus;
    s.pools.push_back(std::move(r));
  }
  s.gpus = gpus;
  if (busy > 0) {
    s.mfu = mfu / busy;
    s.bandwidth_utilization = bw / busy;
    for (int b = 0; b < kBoundCount; ++b) s.bound_share[b] = bound[b] / busy;
    s.busy_power_w_per_gpu = step_j / busy;
  }
  s.busy_fraction = s.duration_s > 0 && gpus > 0 ? busy / (s.duration_s * gpus) : 0.0;
  set_energy(s, energy);
}

}  // namespace servesim
