// Which engine a replica runs. engine.kind "static" is the static-batching engine
// (static_engine.cpp); every other kind is the vLLM-style engine (vllm_engine.h)
// with the scheduling policy of that kind (make_scheduling_policy,
// scheduling_policy.cpp), as one engine per replica or, with pipeline
// parallelism, as pp virtual engines (pipeline_engine.cpp).
#include "engine/vllm_engine.h"

#include "util/error.h"

namespace servesim {

std::unique_ptr<Engine> make_static_engine(const EngineContext& ctx);
std::unique_ptr<Engine> make_pipeline_engine(const EngineContext& ctx);

std::unique_ptr<Engine> make_engine(const EngineContext& ctx) {
  if (ctx.config.kind == "static") {
    if (!ctx.config.kv_tiers.empty())
      throw Error("engine.kv_tiers: the static engine keeps no prefix cache to spill; use kind: vllm");
    return make_static_engine(ctx);
  }
  if (ctx.cost->parallelism().pp > 1 && !ctx.virtual_engine) return make_pipeline_engine(ctx);
  return std::make_unique<VllmEngine>(ctx);
}

}  // namespace servesim
