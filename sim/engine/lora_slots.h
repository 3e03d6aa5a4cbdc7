#pragma once
// Where one replica's LoRA adapters are, and what it costs to bring one in
// (engine.lora: engine/lora_spec.h; the requests' adapters: workload/lora_adapters.h).
//
// As vLLM's worker keeps them (vllm/lora/worker_manager.py LRUCacheWorkerLoRAManager,
// vllm/lora/model_manager.py LRUCacheLoRAModelManager):
//  - max_loras GPU slots, each holding one adapter at max_lora_rank;
//  - an LRU cache of max_cpu_loras adapters in host memory (_registered_adapters);
//    evicting one there also empties its GPU slot (remove_adapter deactivates it);
//  - an adapter a step needs that is not in a GPU slot is copied there from host
//    memory (activate_adapter -> set_lora: its rank-r A and B, this GPU's shard, over
//    the GPU's host link: bytes / load bandwidth + the link's latency), after being
//    read from disk into host memory when the cache does not hold it (_load_adapter:
//    the whole adapter at the disk bandwidth). The step waits for both.
// The GPU slots hold adapters as LRU among those no running request uses (the
// slot a new adapter takes is a free one, else the one idle the longest); the
// host cache likewise evicts the adapter idle the longest. vLLM's own LRU orders
// by last use in a step, which for the adapters a batch uses comes to the same.
//
// The scheduler side (vllm/v1/core/sched/scheduler.py): the adapters of the
// running requests are at most max_loras; a waiting request whose adapter is not
// among them when they already number max_loras is skipped (fits() is false), and
// scheduling goes on with the requests behind it (batch_state.h, lora_eligible).
//
// Speed: everything is indexed by adapter (a few vectors of `adapters` entries,
// built once); acquire and release are O(1) unless an adapter must be loaded
// (then O(max_loras + max_cpu_loras) to find the slot and the cache entry).
#include <cstdint>
#include <vector>

#include "cost/step_cost.h"
#include "engine/lora_spec.h"
#include "workload/lora_adapters.h"

namespace servesim {

// What bringing one adapter of rank `rank` into a replica of `cost`'s setup takes
// (a pure function of the setup: a heterogeneous fleet's pools each get their own).
struct LoraLoadTimes {
  double gpu_s = 0;   // its shard host -> one GPU's slot: bytes per GPU / load bandwidth + the host link's latency
  double disk_s = 0;  // the whole adapter read from disk into host memory
};
// load bandwidth: spec.load_bandwidth, else the GPU's host link (each GPU copies its
// own shard, in parallel with the others).
LoraLoadTimes lora_load_times(const LoraEngineSpec& spec, const CostModel& cost, double rank);

// What a replica's adapters cost over the run (summed over replicas in the report).
struct LoraCounts {
  std::int64_t admissions = 0;        // requests of an adapter joining the running set (a preempted one again)
  std::int64_t gpu_loads = 0;         // adapters copied from host memory into a GPU slot
  std::int64_t disk_loads = 0;        // ... of which first read from disk into host memory
  double gpu_load_s = 0;              // seconds of those host -> GPU copies
  double disk_load_s = 0;             // seconds of those disk reads
  std::int64_t delayed_requests = 0;  // requests passed over at least once for want of a slot
  std::int64_t skips = 0;             // times a waiting request was passed over (per step)
};

class LoraSlots {
 public:
  // gpu_load_s: seconds to copy one adapter host -> GPU; disk_load_s: to read one from disk.
  // assignment: the requests' adapters; null (engine.lora without workload.lora): every
  // request uses the base model.
  LoraSlots(const LoraEngineSpec& spec, const LoraAssignment* assignment, double gpu_load_s, double disk_load_s);

  // The adapter of request `id` of session `session` (LoraAssignment::kBase: the base model).
  std::int32_t adapter(std::int64_t id, std::int32_t session) const {
    return assignment_ ? assignment_->adapter(id, session) : LoraAssignment::kBase;
  }
  // vLLM v1's admission test: a request may join the running set when it uses the
  // base model, or its adapter is already running, or fewer than max_loras are.
  bool fits(std::int32_t a) const {
    return a < 0 || users_[static_cast<std::size_t>(a)] > 0 || active_ < spec_.max_loras;
  }
  // A request of adapter `a` joins the running set (fits(a) must hold): the seconds
  // the step admitting it waits for the adapter's loading (0 when it is in a slot).
  double acquire(std::int32_t a);
  // A request of adapter `a` leaves the running set (finished, preempted, aborted).
  void release(std::int32_t a);
  // The start of the step being planned: when the adapters acquired and released
  // until the next step were last used (what lora_affinity compares across replicas).
  void set_time(std::int64_t now_ns) { now_ = now_ns; }

  // Distinct adapters of the running requests, and a count of the changes to which
  // adapters those are (what fits() answers changes only with it, or with active()).
  std::int32_t active() const { return active_; }
  std::uint64_t version() const { return version_; }
  std::int32_t rank() const { return static_cast<std::int32_t>(spec_.max_lora_rank); }
  // Whether adapter `a` is in a GPU slot, and when it was last used (-1: not in a slot).
  bool on_gpu(std::int32_t a) const { return a >= 0 && slot_of_[static_cast<std::size_t>(a)] >= 0; }
  std::int64_t last_use(std::int32_t a) const { return on_gpu(a) ? last_use_[static_cast<std::size_t>(a)] : -1; }
  bool in_host(std::int32_t a) const { return a >= 0 && in_host_[static_cast<std::size_t>(a)] != 0; }

  LoraCounts counts;

 private:
  void load_into_host(std::int32_t a);
  void take_slot(std::int32_t a);

  LoraEngineSpec spec_;
  const LoraAssignment* assignment_;
  double gpu_load_s_, disk_load_s_;
  std::int32_t active_ = 0;
  std::uint64_t version_ = 0;
  std::int64_t now_ = 0;
  std::uint64_t tick_ = 0;                 // LRU order of uses
  std::vector<std::int32_t> users_;        // [adapter]: running requests using it
  std::vector<std::int32_t> slot_of_;      // [adapter]: its GPU slot, -1 if none
  std::vector<char> in_host_;              // [adapter]: in the host cache
  std::vector<std::uint64_t> used_tick_;   // [adapter]: tick of its last acquire or release
  std::vector<std::int64_t> last_use_;     // [adapter]: time of its last acquire or release
  std::vector<std::int32_t> slots_;        // [slot]: its adapter, -1 if free
  std::vector<std::int32_t> host_;         // adapters in the host cache
};

}  // namespace servesim
