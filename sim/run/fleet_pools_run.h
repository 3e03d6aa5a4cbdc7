#pragma once
// The parts of a co-located run that a heterogeneous fleet (scenario/fleet_pools.h)
// adds: each pool's replicas report to the pool's own collector as well as the
// run's, and at the end the run's hardware figures are made from the pools'.
#include <memory>
#include <vector>

#include "metrics/collector.h"
#include "metrics/run_observer.h"
#include "run/serving_pool.h"
#include "scenario/fleet_pools.h"

namespace servesim {

// A pool's instances' reports: to the pool's collector (its hardware figures and
// latencies) and the run's. The run's takes the steps too for a heterogeneous fleet
// (its batch, KV and queue figures are over every pool), not for a disaggregated run's
// decode pool (the run's step figures are made from the pools' there).
class PoolTap final : public RunObserver {
 public:
  PoolTap(Collector& pool, Collector& run, bool steps_to_run) : pool_(pool), run_(run), steps_to_run_(steps_to_run) {}
  void on_step(const StepRecord& s) override {
    pool_.on_step(s);
    if (steps_to_run_) run_.on_step(s);
  }
  void on_itl(double seconds, std::int64_t count) override {
    pool_.on_itl(seconds, count);
    run_.on_itl(seconds, count);
  }
  void on_request_done(const RequestRecord& r) override {
    pool_.on_request_done(r);
    run_.on_request_done(r);
  }

 private:
  Collector& pool_;
  Collector& run_;
  bool steps_to_run_;
};

// Fills s.pools from each pool's collector and replaces the run's hardware figures
// by the pools': GPUs and energy added, MFU, bandwidth use, time shares and power
// while stepping weighted by each pool's busy GPU-seconds (the run's collector
// priced every step with one GPU's peaks). An autoscaled fleet's per-pool GPU-hours
// come from s.autoscale. Call after the run's summarize().
void merge_fleet_pools(RunSummary& s, const std::vector<std::unique_ptr<ServingPool>>& pools,
                       const std::vector<FleetPoolSpec>& specs);

}  // namespace servesim
