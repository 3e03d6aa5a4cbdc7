#include "metrics/lora_json.h"

#include <fmt/format.h>

#include "util/units.h"

namespace servesim {
namespace {

void put_tally(nlohmann::json& j, const LoraTally& t) {
  j["admissions"] = t.admissions;
  j["gpu_loads"] = t.gpu_loads;
  j["disk_loads"] = t.disk_loads;
  j["gpu_load_s"] = t.gpu_load_s;
  j["disk_load_s"] = t.disk_load_s;
  j["load_s"] = t.gpu_load_s + t.disk_load_s;
  j["slot_hit_rate"] = t.slot_hit_rate();
  j["host_hit_rate"] = t.host_hit_rate();
  j["delayed_requests"] = t.delayed_requests;
  j["skips"] = t.skips;
}

std::string tally_text(const LoraTally& t) {
  return fmt::format("{} loads into GPU slots for {} admissions ({:.1f}% found their adapter in a slot), {} of them "
                     "read from disk first; {:.3f} s of steps waiting for them ({:.3f} s host -> GPU, {:.3f} s disk); "
                     "{} requests delayed by a missing slot ({} skips)\n",
                     t.gpu_loads, t.admissions, 100.0 * t.slot_hit_rate(), t.disk_loads, t.gpu_load_s + t.disk_load_s,
                     t.gpu_load_s, t.disk_load_s, t.delayed_requests, t.skips);
}

std::string adapters_text(const LoraReport& l) {
  return fmt::format("{} adapters of rank {} ({}{}, {:.0f}% of requests)", l.adapters, l.rank, l.popularity,
                     l.popularity == "zipf" ? fmt::format(" s={:g}", l.zipf_s) : std::string(), 100.0 * l.share);
}

}  // namespace

nlohmann::json lora_json(const LoraReport& l) {
  nlohmann::json j = {{"adapters", l.adapters},  {"rank", l.rank},   {"popularity", l.popularity},
                      {"zipf_s", l.zipf_s},      {"share", l.share}, {"max_lora_rank", l.max_lora_rank},
                      {"adapter_bytes", l.adapter_bytes}, {"gpu_slots", l.gpu_slots}};
  if (l.pools.empty()) {  // one setup: its slots here; a fleet's are per pool
    j["max_loras"] = l.max_loras;
    j["max_cpu_loras"] = l.max_cpu_loras;
    j["slot_bytes_per_gpu"] = l.slot_bytes_per_gpu;
    j["one_load_s"] = l.load_s;
    j["one_disk_read_s"] = l.disk_read_s;
  }
  put_tally(j, l);
  if (l.pools.empty()) return j;
  nlohmann::json pools = nlohmann::json::array();
  for (const LoraPoolReport& p : l.pools) {
    nlohmann::json q = {{"name", p.name},
                        {"gpu", p.gpu},
                        {"tp", p.tp},
                        {"replicas", p.replicas},
                        {"max_loras", p.max_loras},
                        {"max_cpu_loras", p.max_cpu_loras},
                        {"max_lora_rank", p.max_lora_rank},
                        {"adapter_bytes_per_gpu", p.adapter_bytes_per_gpu},
                        {"slot_bytes_per_gpu", p.slot_bytes_per_gpu},
                        {"one_load_s", p.load_s},
                        {"one_disk_read_s", p.disk_read_s}};
    put_tally(q, p);
    pools.push_back(std::move(q));
  }
  j["pools"] = std::move(pools);
  return j;
}

std::string lora_text(const LoraReport& l) {
  if (l.pools.empty())
    return fmt::format("LoRA       {}, max_loras {} ({} of GPU slots), max_cpu_loras {}; one load {} from host "
                       "memory, {} more from disk\n           {}",
                       adapters_text(l), l.max_loras, format_bytes(l.slot_bytes_per_gpu), l.max_cpu_loras,
                       format_seconds(l.load_s), format_seconds(l.disk_read_s), tally_text(l));
  std::string out = fmt::format("LoRA       {}, max_lora_rank {}, {} GPU slots over {} pools\n", adapters_text(l),
                                l.max_lora_rank, l.gpu_slots, l.pools.size());
  for (const LoraPoolReport& p : l.pools) {
    // A pool's own slot rank is named; the others' is the line above's.
    const std::string rank = p.max_lora_rank != l.max_lora_rank ? fmt::format(" of rank {}", p.max_lora_rank) : "";
    out += fmt::format("  {:<8} {} x {} slots{} ({} per GPU, tp={}), host cache {}; one load {} from host memory, {} "
                       "more from disk\n           {}",
                       p.name, p.replicas, p.max_loras, rank, format_bytes(p.slot_bytes_per_gpu), p.tp,
                       p.max_cpu_loras, format_seconds(p.load_s), format_seconds(p.disk_read_s), tally_text(p));
  }
  return out + "  all      " + tally_text(l);
}

}  // namespace servesim
