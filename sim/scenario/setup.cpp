#include "scenario/setup.h"

namespace servesim {

CostModel make_cost_model(const Setup& s) {
  return CostModel(s.gpu, s.model, s.resolved, s.parallelism, s.engine.attention, s.engine.ggml, s.moe);
}

std::unique_ptr<CostModel> make_draft_cost_model(const Setup& s) {
  const SpeculativeConfig& sp = s.engine.speculative;
  if (!sp.enabled() || !sp.drafter) return nullptr;
  return std::make_unique<CostModel>(s.gpu, *sp.drafter, s.resolved, s.parallelism, s.engine.attention,
                                     s.engine.ggml, s.moe);
}

MemoryPlan plan_setup_memory(const Setup& s, const CostModel& cost) {
  const std::unique_ptr<CostModel> draft = make_draft_cost_model(s);
  if (!draft) return plan_memory(cost, s.engine.memory_config());
  const DraftMemory dm = draft_memory(*draft, s.engine.speculative.head());
  return plan_memory(cost, s.engine.memory_config(), &dm);
}

}  // namespace servesim
