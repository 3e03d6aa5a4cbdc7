#pragma once
// Automatic prefix caching (vLLM APC): full KV blocks are identified by a hash of
// their tokens chained with their predecessor's hash, so equal hashes mean an
// equal prefix. A block in use by running requests is reference-counted; when its
// last user releases it, it stays cached but evictable, oldest first (LRU), until a
// new allocation needs its space.
//
// The engine counts blocks, not addresses: "used" blocks are the private blocks of
// running requests plus the cached blocks with users (pinned()). Evictable cached
// blocks count as free for allocation; shrink_to() evicts them when the truly free
// blocks run out.
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace servesim {

class CpuKvTier;

class PrefixCache {
 public:
  // Number of leading `hashes` cached now (at most `limit`).
  std::int64_t match(const std::vector<std::uint64_t>& hashes, std::int64_t limit) const;
  // Takes a reference on each of the first n hashes (all must be cached). Returns how
  // many became pinned (were evictable), i.e. how much "used" grows.
  std::int64_t acquire(const std::vector<std::uint64_t>& hashes, std::int64_t n);
  // Registers hashes[first..n) computed by a request (which holds a reference).
  // Returns how many were already cached by someone else (duplicates: the request's
  // private copy is dropped, so "used" shrinks by that many minus those revived).
  struct Registered {
    std::int64_t fresh = 0;      // new entries: a private block became a pinned one
    std::int64_t duplicate = 0;  // already pinned by others: the private copy is freed
    std::int64_t revived = 0;    // already cached but evictable: now pinned, private freed
  };
  Registered add(const std::vector<std::uint64_t>& hashes, std::int64_t first, std::int64_t n);
  // Drops one reference on each of the first n hashes, last block first (so a
  // prefix's tail is evicted before its head). Returns how many became evictable.
  std::int64_t release(const std::vector<std::uint64_t>& hashes, std::int64_t n);
  // Evicts least-recently-released blocks until at most `max_evictable` remain;
  // with a spill tier set, evicted blocks move there (CPU offload).
  void shrink_to(std::int64_t max_evictable) {
    if (static_cast<std::int64_t>(lru_.size()) > max_evictable) evict(max_evictable);
  }
  void set_spill(CpuKvTier* tier) { spill_ = tier; }

  std::int64_t pinned() const { return pinned_; }
  std::int64_t evictable() const { return static_cast<std::int64_t>(lru_.size()); }
  std::int64_t evictions() const { return evictions_; }

 private:
  struct Entry {
    std::int64_t refs = 0;
    std::list<std::uint64_t>::iterator lru;  // valid when refs == 0
  };
  std::unordered_map<std::uint64_t, Entry> entries_;
  std::list<std::uint64_t> lru_;  // evictable, oldest first
  std::int64_t pinned_ = 0;
  std::int64_t evictions_ = 0;
  CpuKvTier* spill_ = nullptr;

  void evict(std::int64_t max_evictable);
};

// Hashes of a request's full prompt blocks at the engine's block size, chained so
// that each depends on everything before it. `ids` name blocks of `id_block_tokens`
// tokens (the workload's prefix structure); only blocks fully inside both the ids
// and the prompt are hashed.
std::vector<std::uint64_t> engine_block_hashes(const std::vector<std::uint64_t>& ids, std::int64_t id_block_tokens,
                                               std::int64_t prompt_tokens, std::int64_t block_size);

}  // namespace servesim
