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
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/engine.h"

namespace servesim {

enum class RouterKind { round_robin, least_outstanding, least_kv, prefix_affinity };

RouterKind parse_router(const std::string& name, const std::string& where);
std::vector<std::pair<std::string, std::string>> router_registry();

class Router {
 public:
  static constexpr std::size_t kAffinityEntries = 1 << 16;

  explicit Router(RouterKind kind) : kind_(kind) {}
  // Deterministic: ties go to the lowest replica index.
  int pick(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r);

 private:
  static int least_outstanding(const std::vector<std::unique_ptr<Engine>>& replicas);
  int pick_affinity(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r);

  RouterKind kind_;
  std::size_t next_ = 0;
  // prefix_affinity: first block id -> replica that served it last; insertion order for eviction.
  std::unordered_map<std::uint64_t, int> affinity_;
  std::deque<std::uint64_t> affinity_order_;
};

}  // namespace servesim
