#include "scenario/setup.h"

namespace servesim {

CostModel make_cost_model(const Setup& s) {
  return CostModel(s.gpu, s.model, s.resolved, s.parallelism, s.engine.attention);
}

std::unique_ptr<CostModel> make_draft_cost_model(const Setup& s) {
  const SpeculativeConfig& sp = s.engine.speculative;
  if (!sp.enabled() || !sp.drafter) return nullptr;
  return std::make_unique<CostModel>(s.gpu, *sp.drafter, s.resolved, s.parallelism, s.engine.attention);
}

}  // namespace servesim
