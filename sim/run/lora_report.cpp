#include "run/lora_report.h"

#include "engine/lora_slots.h"

namespace servesim {
namespace {

// LoraCounts (one replica's) and LoraTally (a pool's) carry the same counts.
template <class Counts>
void add(LoraTally& t, const Counts& c) {
  t.admissions += c.admissions;
  t.gpu_loads += c.gpu_loads;
  t.disk_loads += c.disk_loads;
  t.gpu_load_s += c.gpu_load_s;
  t.disk_load_s += c.disk_load_s;
  t.delayed_requests += c.delayed_requests;
  t.skips += c.skips;
}

// One pool's slots and load times (its own GPU, tp and engine.lora) and its replicas' counts.
LoraPoolReport pool_lora(const ServingPool& p, const LoraWorkloadSpec& w, const Engine* const* replicas) {
  const LoraEngineSpec& e = p.setup.engine.lora;
  const LoraGeometry& g = p.cost.lora_geometry();
  LoraPoolReport r;
  r.gpu = p.setup.gpu.name;
  r.replicas = p.setup.parallelism.replicas;
  r.tp = p.setup.parallelism.tp;
  r.max_loras = e.max_loras;
  r.max_cpu_loras = e.cpu_loras();
  r.max_lora_rank = e.max_lora_rank;
  r.adapter_bytes_per_gpu = lora_adapter_bytes_per_gpu(g, static_cast<double>(w.rank));
  r.slot_bytes_per_gpu = p.memory.lora_slots;
  const LoraLoadTimes t = lora_load_times(e, p.cost, static_cast<double>(w.rank));
  r.load_s = t.gpu_s;
  r.disk_read_s = t.disk_s;
  for (int k = 0; k < r.replicas; ++k)
    if (const LoraCounts* c = replicas[k]->lora_counts()) add(r, *c);
  return r;
}

}  // namespace

std::optional<LoraReport> lora_report(const Scenario& sc, const std::vector<std::unique_ptr<ServingPool>>& pools,
                                      const std::vector<std::unique_ptr<Engine>>& replicas) {
  if (!sc.workload.lora) return std::nullopt;
  const LoraWorkloadSpec& w = *sc.workload.lora;
  LoraReport r;
  r.adapters = w.adapters;
  r.rank = w.rank;
  r.popularity = std::string(lora_popularity_name(w.popularity));
  r.zipf_s = w.zipf_s;
  r.share = w.share;
  r.max_lora_rank = sc.engine.lora.max_lora_rank;  // engine.lora's: a pool may set its own (LoraPoolReport)
  r.adapter_bytes = lora_adapter_bytes(pools.front()->cost.lora_geometry(), static_cast<double>(w.rank));
  std::vector<const Engine*> engines;
  for (const auto& e : replicas) engines.push_back(e.get());
  std::size_t first = 0;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    LoraPoolReport p = pool_lora(*pools[i], w, engines.data() + first);
    first += static_cast<std::size_t>(p.replicas);
    p.name = i < sc.pools.size() ? sc.pools[i].name : std::string();
    add(r, static_cast<const LoraTally&>(p));
    r.gpu_slots += p.max_loras * p.replicas;
    r.pools.push_back(std::move(p));
  }
  if (sc.pools.empty()) {  // one setup: its figures are the run's
    const LoraPoolReport& p = r.pools.front();
    r.max_loras = p.max_loras;
    r.max_cpu_loras = p.max_cpu_loras;
    r.slot_bytes_per_gpu = p.slot_bytes_per_gpu;
    r.load_s = p.load_s;
    r.disk_read_s = p.disk_read_s;
    r.pools.clear();
  }
  return r;
}

}  // namespace servesim
