#include "run/lora_report.h"

#include "engine/lora_slots.h"

namespace servesim {

std::optional<LoraReport> lora_report(const Scenario& sc, const CostModel& cost,
                                      const std::vector<std::unique_ptr<Engine>>& replicas) {
  if (!sc.workload.lora) return std::nullopt;
  const LoraWorkloadSpec& w = *sc.workload.lora;
  const LoraEngineSpec& e = sc.engine.lora;
  LoraReport r;
  r.adapters = w.adapters;
  r.rank = w.rank;
  r.popularity = std::string(lora_popularity_name(w.popularity));
  r.zipf_s = w.zipf_s;
  r.share = w.share;
  r.max_loras = e.max_loras;
  r.max_cpu_loras = e.cpu_loras();
  r.max_lora_rank = e.max_lora_rank;
  r.adapter_bytes = lora_adapter_bytes(cost.lora_geometry(), static_cast<double>(w.rank));
  r.slot_bytes_per_gpu = static_cast<double>(e.max_loras) *
                         lora_adapter_bytes_per_gpu(cost.lora_geometry(), static_cast<double>(e.max_lora_rank));
  for (const auto& engine : replicas) {
    const LoraCounts* c = engine->lora_counts();
    if (!c) continue;
    r.gpu_loads += c->gpu_loads;
    r.disk_loads += c->disk_loads;
    r.gpu_load_s += c->gpu_load_s;
    r.disk_load_s += c->disk_load_s;
    r.delayed_requests += c->delayed_requests;
    r.skips += c->skips;
  }
  return r;
}

}  // namespace servesim
