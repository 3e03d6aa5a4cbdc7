#pragma once
// Chooses the replica for each arriving request (data parallelism).
//
// prefix_affinity sends a request to the replica that most recently served a
// request with the same first prompt block (its first prefix-hash id: the system
// prompt or conversation it starts with), so shared prefixes stay in one
// replica's prefix cache. Unseen prefixes, requests without prefix information,
// and requests whose preferred replica is overloaded (more than twice the
// outstanding requests of the least-loaded replica, that one counted as at least
// 1 so an idle cluster keeps its affinity) go to the least-outstanding replica.
// The map from first block to replica is bounded (kAffinityEntries, oldest
// entries forgotten first).
//
// lora_affinity (multi-LoRA serving, workload.lora) sends a request to the replica
// that holds its adapter in a GPU slot and used it most recently (Engine::
// lora_last_use), else to the replica its adapter's previous request was sent to
// (the adapter is on its way there, or in its host cache), so an adapter's
// requests share one replica's slot instead of loading the adapter on several.
// Requests of the base model, adapters not seen yet, and requests whose preferred
// replica is overloaded (the same test as prefix_affinity's) go to the
// least-outstanding replica; among equally loaded ones, to the one fewest adapters
// were sent to (on an idle cluster every replica ties, and the lowest index would
// collect every adapter and cycle them through its few slots). Finding the
// replica that holds the adapter asks every available replica (one virtual call
// each): a cost only this router pays.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/block_hash_index.h"
#include "engine/engine.h"
#include "engine/min_tree.h"

namespace servesim {

enum class RouterKind { round_robin, least_outstanding, least_kv, prefix_affinity, scored, lora_affinity };

// The `scored` router (engine/router_scored.cpp): llm-d's inference scheduler as its
// default profile configures it (EndpointPickerConfig: queue-scorer weight 2,
// kv-cache-utilization-scorer weight 2, prefix-cache-scorer weight 3; llm-d-inference-
// scheduler's deploy/config and docs): every replica gets a score in [0, 1] from each
// scorer, the weighted sum picks the best (ties: the lowest index).
//  - prefix: the share of the request's prompt block ids, from its first, that the
//    router sent to that replica before (llm-d's approximate prefix-cache scorer: it
//    remembers what it routed, prefix_blocks ids per replica, the oldest forgotten
//    first; its lruCapacityPerServer is 31250);
//  - queue: (most waiting - its waiting) / (most - fewest), over the serving replicas
//    (1 for all when they are equal), as the queue scorer normalises;
//  - kv: 1 - its KV cache use;
//  - session (weight 0 unless set): 1 for the replica the request's session
//    (Request::session: a multi-turn conversation or closed-loop user) was last
//    routed to, 0 for the others (llm-d's session-affinity-scorer, which reads the
//    replica from a header its previous response set); a session's last turn ends
//    its entry.
// With precise_prefix the prefix score is instead the share of the prompt's full
// blocks that the replica's GPU prefix cache holds at that moment (Engine::
// prefix_match; llm-d's precise-prefix-cache-scorer, which tracks the engines' KV
// events): evictions are seen, and nothing is remembered by the router.
// A request whose ids are implied (Request::own_ids_implied: only its first id is
// stored) is matched on that first id alone.
struct RouterWeights {
  double prefix = 3, queue = 2, kv = 2;
  double session = 0;
  bool precise_prefix = false;
  std::int64_t prefix_blocks = 31250;
};

RouterKind parse_router(const std::string& name, const std::string& where);
std::vector<std::pair<std::string, std::string>> router_registry();

class Router {
 public:
  static constexpr std::size_t kAffinityEntries = 1 << 16;

  explicit Router(RouterKind kind, RouterWeights weights = {}) : kind_(kind), weights_(weights) {}
  // lora_affinity: the requests' adapters (workload.lora); without them it routes as least_outstanding.
  void set_lora(const LoraAssignment* lora) {
    lora_ = lora;
    lora_routed_.assign(lora ? static_cast<std::size_t>(lora->spec().adapters) : 0, -1);
    lora_adapters_on_.clear();
  }
  // Deterministic: ties go to the lowest replica index.
  int pick(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r);

  // Load tracking (optional): after track(replicas), the caller promises that
  // before every pick() it has called observe(i, replicas[i]->load()) for each
  // replica i whose outstanding requests or KV use may have changed since its last
  // observe (the simulation gathers the replicas it called into and refreshes
  // them at the next arrival); pick() then reads the loads from a MinTree in O(1)
  // instead of asking every replica (same choice, ties included: the tree's best
  // is a function of the values alone, whatever the order they were set in).
  // Without track() pick() scans the replicas.
  void track(const std::vector<std::unique_ptr<Engine>>& replicas);
  bool tracked() const { return tracked_; }
  // An autoscaled fleet (run/autoscaler.h): replica i is (not) offered requests;
  // `load` is its current load, for when it becomes available again. Every
  // replica is available until this is called.
  void set_available(int i, bool available, const ReplicaLoad& load);
  void observe(int i, const ReplicaLoad& load) {
    if (!tracked_) return;
    if (!unavailable_.empty() && unavailable_[static_cast<std::size_t>(i)]) return;  // stays out of reach
    if (kind_ == RouterKind::least_kv) kv_.set(static_cast<std::size_t>(i), load.kv_load);
    else outstanding_.set(static_cast<std::size_t>(i), load.outstanding);
  }

 private:
  int least_outstanding(const std::vector<std::unique_ptr<Engine>>& replicas) const;
  std::int64_t outstanding(const std::vector<std::unique_ptr<Engine>>& replicas, int i) const {
    return tracked_ ? outstanding_.value(static_cast<std::size_t>(i))
                    : replicas[static_cast<std::size_t>(i)]->outstanding();
  }
  int pick_affinity(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r);
  int pick_scored(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r);  // router_scored.cpp
  int pick_lora(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r);

  RouterKind kind_;
  RouterWeights weights_;
  bool tracked_ = false;
  MinTree<std::int64_t> outstanding_;  // least_outstanding, prefix_affinity
  MinTree<double> kv_;                 // least_kv
  std::size_t next_ = 0;
  // prefix_affinity: first block id -> replica that served it last (a flat map:
  // it is asked once per arrival), and the ids in insertion order for eviction
  // (a ring of kAffinityEntries once full: the oldest is at affinity_next_).
  BlockHashIndex affinity_;
  std::vector<std::uint64_t> affinity_order_;
  std::size_t affinity_next_ = 0;
  // Replicas the router must not pick (empty: all available, the fixed fleet's case).
  std::vector<char> unavailable_;
  // scored: per replica, the block ids routed to it, the oldest first in a ring.
  struct RoutedBlocks {
    BlockHashIndex index;
    std::vector<std::uint64_t> ring;
    std::size_t next = 0;
  };
  std::vector<RoutedBlocks> routed_;
  std::vector<double> score_;  // scratch
  std::unordered_map<std::int32_t, int> session_replica_;  // scored, session weight: session -> last replica
  bool available(std::size_t i) const { return unavailable_.empty() || !unavailable_[i]; }
  // lora_affinity: the adapters, and the replica each adapter's last request went to (-1: none yet).
  const LoraAssignment* lora_ = nullptr;
  std::vector<int> lora_routed_;
  std::vector<std::int64_t> lora_adapters_on_;  // [replica]: adapters whose last request went there
};

}  // namespace servesim
