#include "scenario/setup.h"

#include <fmt/format.h>

#include <cmath>

#include "util/units.h"

namespace servesim {
namespace {

// When engine.lora's slots are what keeps `plan` from fitting (`without` them it
// fits), the verdict says so and how many slots would fit: a heterogeneous fleet's
// smaller GPU may hold the weights but not the slots a larger one was given.
void explain_lora_slots(MemoryPlan& plan, const MemoryPlan& without, const LoraEngineSpec& l, double slot_bytes,
                        int block_size) {
  if (plan.fits || !without.fits || slot_bytes <= 0) return;
  // Slots and KV blocks share what is left after the weights, activations and runtime
  // (and state slots): n slots fit while n x slot + one block <= without.kv_bytes.
  const double block_bytes = without.kv_bytes_per_token * block_size;
  plan.lora_slots_fit = static_cast<std::int64_t>(std::floor((without.kv_bytes - block_bytes) / slot_bytes));
  plan.verdict = fmt::format(
      "does not fit: engine.lora's {} adapter slots at max_lora_rank {} take {} per GPU ({} each), and {} per GPU is "
      "left for them and the KV cache after the weights, activations and runtime: {}; lower engine.lora.max_loras "
      "or max_lora_rank, or give the replica more GPU memory (a larger GPU, a higher tp)",
      l.max_loras, l.max_lora_rank, format_bytes(plan.lora_slots), format_bytes(slot_bytes),
      format_bytes(without.kv_bytes),
      plan.lora_slots_fit > 0 ? fmt::format("at most {} slot{} fit{} beside one KV block", plan.lora_slots_fit,
                                            plan.lora_slots_fit == 1 ? "" : "s", plan.lora_slots_fit == 1 ? "s" : "")
                              : std::string("not one slot fits beside one KV block"));
}

}  // namespace

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
  const DraftMemory dm = draft ? draft_memory(*draft, s.engine.speculative.head()) : DraftMemory{};
  MemoryPlan plan = plan_memory(cost, mc, draft ? &dm : nullptr);
  if (!plan.fits && mc.lora_slot_bytes > 0) {
    MemoryConfig bare = mc;
    bare.lora_slot_bytes = 0;
    explain_lora_slots(plan, plan_memory(cost, bare, draft ? &dm : nullptr), s.engine.lora,
                       mc.lora_slot_bytes / static_cast<double>(s.engine.lora.max_loras), mc.block_size);
  }
  return plan;
}

}  // namespace servesim
