// The `scored` router (router.h states the scorers and their sources).
#include <algorithm>

#include "engine/router.h"

namespace servesim {

int Router::pick_scored(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r) {
  const std::size_t n = replicas.size();
  if (routed_.size() != n) routed_.resize(n);
  score_.assign(n, 0.0);
  // The queue scorer's normalisation, over the replicas that may be picked.
  std::int64_t most = -1, fewest = -1;
  for (std::size_t i = 0; i < n; ++i) {
    if (!available(i)) continue;
    const std::int64_t q = replicas[i]->queued();
    if (most < 0 || q > most) most = q;
    if (fewest < 0 || q < fewest) fewest = q;
  }
  const auto& ids = r.block_hashes;
  // The session's last replica (-1: none, or no session scorer).
  int session_to = -1;
  if (weights_.session > 0 && r.session >= 0)
    if (const auto it = session_replica_.find(r.session); it != session_replica_.end()) session_to = it->second;
  std::size_t best = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (!available(i)) continue;
    double s = 0;
    if (weights_.prefix > 0 && !ids.empty()) {
      if (weights_.precise_prefix) {
        const Engine::PrefixMatch m = replicas[i]->prefix_match(r);
        if (m.blocks > 0) s += weights_.prefix * static_cast<double>(m.cached) / static_cast<double>(m.blocks);
      } else {
        std::size_t matched = 0;
        while (matched < ids.size() && routed_[i].index.find_handle(ids[matched])) ++matched;
        s += weights_.prefix * static_cast<double>(matched) / static_cast<double>(ids.size());
      }
    }
    if (session_to >= 0 && static_cast<std::size_t>(session_to) == i) s += weights_.session;
    if (weights_.queue > 0) {
      const std::int64_t q = replicas[i]->queued();
      s += weights_.queue * (most == fewest ? 1.0 : static_cast<double>(most - q) / static_cast<double>(most - fewest));
    }
    if (weights_.kv > 0) s += weights_.kv * (1.0 - replicas[i]->kv_load());
    score_[i] = s;
    if (best == n || s > score_[best]) best = i;
  }
  if (best == n) best = 0;
  if (weights_.session > 0 && r.session >= 0) {
    if (r.last_turn) session_replica_.erase(r.session);  // no later turn will ask
    else session_replica_[r.session] = static_cast<int>(best);
  }
  if (weights_.precise_prefix) return static_cast<int>(best);  // the caches themselves are read, not remembered
  // Remember what went there (the oldest id forgotten first once the ring is full).
  RoutedBlocks& rb = routed_[best];
  const auto cap = static_cast<std::size_t>(std::max<std::int64_t>(1, weights_.prefix_blocks));
  if (weights_.prefix > 0)
    for (std::uint64_t id : ids) {
      if (rb.index.find_handle(id)) continue;
      if (rb.ring.size() < cap) {
        rb.ring.push_back(id);
      } else {
        rb.index.erase(rb.ring[rb.next]);
        rb.ring[rb.next] = id;
        rb.next = (rb.next + 1) % cap;
      }
      rb.index.insert(id, 1);
    }
  return static_cast<int>(best);
}

}  // namespace servesim
