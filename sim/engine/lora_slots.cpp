#include "engine/lora_slots.h"

#include <algorithm>
#include <stdexcept>

namespace servesim {

LoraLoadTimes lora_load_times(const LoraEngineSpec& spec, const CostModel& cost, double rank) {
  const LoraGeometry& g = cost.lora_geometry();
  const Link& host = cost.gpu().host;
  const double bandwidth = spec.load_bandwidth > 0 ? spec.load_bandwidth : host.bandwidth;
  return LoraLoadTimes{.gpu_s = lora_adapter_bytes_per_gpu(g, rank) / bandwidth + host.latency,
                       .disk_s = lora_adapter_bytes(g, rank) / spec.disk_bandwidth};
}

LoraSlots::LoraSlots(const LoraEngineSpec& spec, const LoraAssignment* assignment, double gpu_load_s,
                     double disk_load_s)
    : spec_(spec), assignment_(assignment), gpu_load_s_(gpu_load_s), disk_load_s_(disk_load_s) {
  const auto n = static_cast<std::size_t>(assignment ? assignment->spec().adapters : 0);
  users_.assign(n, 0);
  slot_of_.assign(n, -1);
  in_host_.assign(n, 0);
  used_tick_.assign(n, 0);
  last_use_.assign(n, -1);
  slots_.assign(static_cast<std::size_t>(spec_.max_loras), -1);
  host_.reserve(static_cast<std::size_t>(spec_.cpu_loras()));
}

double LoraSlots::acquire(std::int32_t a) {
  if (a < 0) return 0.0;
  const auto i = static_cast<std::size_t>(a);
  if (users_[i]++ == 0) {
    if (active_ >= spec_.max_loras) throw std::logic_error("LoraSlots::acquire: more adapters than max_loras");
    ++active_;
    ++version_;
  }
  ++counts.admissions;
  used_tick_[i] = ++tick_;
  last_use_[i] = now_;
  if (slot_of_[i] >= 0) return 0.0;
  double seconds = 0.0;
  if (!in_host_[i]) {
    load_into_host(a);
    ++counts.disk_loads;
    counts.disk_load_s += disk_load_s_;
    seconds += disk_load_s_;
  }
  take_slot(a);
  ++counts.gpu_loads;
  counts.gpu_load_s += gpu_load_s_;
  return seconds + gpu_load_s_;
}

void LoraSlots::release(std::int32_t a) {
  if (a < 0) return;
  const auto i = static_cast<std::size_t>(a);
  if (users_[i] <= 0) throw std::logic_error("LoraSlots::release: adapter not in use");
  if (--users_[i] == 0) {
    --active_;
    ++version_;
  }
  used_tick_[i] = ++tick_;
  last_use_[i] = now_;
}

void LoraSlots::load_into_host(std::int32_t a) {
  if (static_cast<std::int64_t>(host_.size()) >= spec_.cpu_loras()) {
    // Evict the adapter idle the longest. One is idle: the running adapters other than
    // `a` (at most max_loras - 1, each in a slot and so in this cache) are fewer than
    // the cache holds (max_cpu_loras >= max_loras).
    std::size_t victim = host_.size();
    for (std::size_t k = 0; k < host_.size(); ++k) {
      const auto j = static_cast<std::size_t>(host_[k]);
      if (users_[j] > 0) continue;
      if (victim == host_.size() || used_tick_[j] < used_tick_[static_cast<std::size_t>(host_[victim])]) victim = k;
    }
    if (victim == host_.size()) throw std::logic_error("LoraSlots: no idle adapter to evict from host memory");
    const auto j = static_cast<std::size_t>(host_[victim]);
    in_host_[j] = 0;
    if (slot_of_[j] >= 0) {  // vLLM's remove_adapter deactivates it too
      slots_[static_cast<std::size_t>(slot_of_[j])] = -1;
      slot_of_[j] = -1;
    }
    host_[victim] = host_.back();
    host_.pop_back();
  }
  host_.push_back(a);
  in_host_[static_cast<std::size_t>(a)] = 1;
}

void LoraSlots::take_slot(std::int32_t a) {
  // A free slot, else the one whose adapter has been idle the longest (no running
  // request uses it: fits() kept the running adapters within max_loras).
  std::size_t chosen = slots_.size();
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    const std::int32_t b = slots_[k];
    if (b < 0) {
      chosen = k;
      break;
    }
    if (users_[static_cast<std::size_t>(b)] > 0) continue;
    if (chosen == slots_.size() ||
        used_tick_[static_cast<std::size_t>(b)] < used_tick_[static_cast<std::size_t>(slots_[chosen])])
      chosen = k;
  }
  if (chosen == slots_.size()) throw std::logic_error("LoraSlots: no GPU slot for an adapter");
  if (slots_[chosen] >= 0) slot_of_[static_cast<std::size_t>(slots_[chosen])] = -1;
  slots_[chosen] = a;
  slot_of_[static_cast<std::size_t>(a)] = static_cast<std::int32_t>(chosen);
}

}  // namespace servesim
