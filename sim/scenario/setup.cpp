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
  MemoryConfig mc = s.engine.memory_config();
  // engine.lora: max_loras GPU slots of one adapter at max_lora_rank each (cost/lora_shape.h).
  if (s.engine.lora.enabled)
    mc.lora_slot_bytes = static_cast<double>(s.engine.lora.max_loras) *
                         lora_adapter_bytes_per_gpu(cost.lora_geometry(), static_cast<double>(s.engine.lora.max_lora_rank));
  const std::unique_ptr<CostModel> draft = make_draft_cost_model(s);
  if (!draft) return plan_memory(cost, mc);
  const DraftMemory dm = draft_memory(*draft, s.engine.speculative.head());
  return plan_memory(cost, mc, &dm);
}

}  // namespace servesim
