#pragma once
// One pool of serving instances that share a setup: its cost model, memory plan,
// step-cost tables and (when the run reports per pool) its own collector. The
// prefill and decode pools of a disaggregated run (run/disaggregated_simulation.h)
// and the pools of a heterogeneous fleet (scenario/fleet_pools.h) are each one.
#include <memory>
#include <string>
#include <vector>

#include "cost/memory_plan.h"
#include "cost/step_cost.h"
#include "engine/engine.h"
#include "engine/step_cost_cache.h"
#include "metrics/collector.h"
#include "metrics/disaggregation_report.h"
#include "scenario/setup.h"

namespace servesim {

struct ServingPool {
  // Throws when the setup does not fit its GPUs, the verdict prefixed by `label`
  // ("disaggregation.prefill: ..."; empty label: the verdict alone). With
  // `own_collector`, the pool's instances report to a collector of their own.
  // `key`: the pool's key path in the scenario ("pools[1]"), named when its own
  // LoRA slots do not fit (a fleet's pool may set max_loras of its own).
  ServingPool(const Setup& s, std::string label, bool own_collector, std::size_t timeline_rows = 0,
              const std::string& key = {});
  // The context of the pool's instance `replica` (its index in the run's numbering),
  // reporting to `observer`; the caller adds what the run shares across pools.
  EngineContext context(int replica, RunObserver* observer, bool fast_forward) const;

  const Setup& setup;
  std::string label;
  CostModel cost;
  std::unique_ptr<CostModel> draft_cost;  // the speculative drafter (engine.speculative), else null
  mutable StepCostCache step_costs{cost};  // tables shared by the pool's instances (context() hands them out)
  MemoryPlan memory;
  std::int64_t blocks = 0;            // KV blocks of one instance
  std::int64_t rank_blocks = 0;       // of one attention data-parallel rank (0: no DP attention)
  std::unique_ptr<Collector> collector;
  std::vector<std::unique_ptr<Engine>> engines;
};

// A pool's report over a run of `duration_s`, from what its own collector summarized
// (`s`): its collector saw only its own part of the run, so busy share and idle
// energy are stretched to the whole. Sets the pool's busy GPU-seconds and the
// energy of its steps (for the run's busy-weighted figures).
PoolReport pool_report(const ServingPool& p, const RunSummary& s, double duration_s, double* busy_gpu_s,
                       double* step_j);

}  // namespace servesim
