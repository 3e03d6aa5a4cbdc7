#pragma once
// The hardware/model/precision/parallelism/engine part of a scenario: what
// `inspect` needs, and what every simulation builds its cost model from.
// config/scenario_reader.h reads it from a scenario document.
#include <memory>
#include <string>

#include "cost/memory_plan.h"
#include "cost/step_cost.h"
#include "engine/router.h"
#include "engine/engine_config.h"

namespace servesim {

struct Setup {
  GpuSpec gpu;
  ModelSpec model;
  PrecisionSpec precision;
  ResolvedPrecision resolved;
  Parallelism parallelism;
  MoeDeployment moe;  // the `moe:` section: read only with a wide layout (Parallelism::wide())
  EngineConfig engine;
  RouterKind router = RouterKind::least_outstanding;  // parallelism.router, with replicas > 1
  RouterWeights router_weights;                       // parallelism.router_weights (router: scored)
};

CostModel make_cost_model(const Setup& s);
// The speculative drafter's cost model (engine.speculative: the draft model or the
// eagle/mtp head on the target's GPUs, precision and TP); null when not speculating.
std::unique_ptr<CostModel> make_draft_cost_model(const Setup& s);
// The memory plan of `cost` (make_cost_model(s)) under s.engine, with the
// speculative drafter's weights and KV when there is one.
MemoryPlan plan_setup_memory(const Setup& s, const CostModel& cost);

}  // namespace servesim
