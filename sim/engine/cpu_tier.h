#pragma once
// CPU KV offload tier (engine.cpu_offload): host memory behind the GPU prefix
// cache, as vLLM's KV offloading connector (--kv-offloading-size) and LMCache
// provide it.
//
// Capacity is counted in KV blocks: cpu_offload bytes per replica divided by the
// bytes of one block on the whole replica (kv_bytes_per_token per GPU x GPUs per
// replica x block_size; with tp = pp = 1 that is kv_bytes_per_token x block_size).
// It holds two kinds of blocks:
//  - cached prefix blocks, keyed by their hash: a block evicted from the GPU
//    prefix cache is kept here (least recently used leaves first). Storing is
//    free (the connector writes blocks back asynchronously, overlapped with
//    compute); a later prompt whose prefix misses on the GPU but hits here
//    reloads those blocks over the host link instead of recomputing them;
//  - swap space: a preempted request's whole KV, reserved until it resumes
//    (cached blocks are evicted to make room; a reservation that does not fit is
//    refused and the request is recomputed instead).
//
// Transfers cost bytes / host bandwidth + host latency per request, per GPU over
// its own host link (each GPU moves its shard of the blocks in parallel).
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "engine/kv_spill.h"

namespace servesim {

class CpuKvTier final : public KvSpill {
 public:
  CpuKvTier() = default;
  explicit CpuKvTier(std::int64_t capacity_blocks) : capacity_(capacity_blocks > 0 ? capacity_blocks : 0) {}
  bool enabled() const { return capacity_ > 0; }
  std::int64_t capacity() const { return capacity_; }

  // A block evicted from the GPU cache: kept (or refreshed) as most recently used.
  void put(std::uint64_t hash) override;
  // Number of hashes[from..limit) present here as a leading run (from `from`).
  std::int64_t match(const std::vector<std::uint64_t>& hashes, std::int64_t from, std::int64_t limit) const;
  // Marks hashes[from..from+n) as just used (they were reloaded), the head most recent.
  void touch(const std::vector<std::uint64_t>& hashes, std::int64_t from, std::int64_t n);
  // Swap space: reserves `blocks`, evicting cached blocks as needed; false (and no
  // change) when even an empty cache would not make room.
  bool reserve(std::int64_t blocks);
  void unreserve(std::int64_t blocks) { reserved_ -= blocks; }

  std::int64_t cached() const { return static_cast<std::int64_t>(lru_.size()); }
  std::int64_t reserved() const { return reserved_; }

 private:
  void evict_to(std::int64_t max_cached);

  std::int64_t capacity_ = 0;
  std::int64_t reserved_ = 0;
  std::list<std::uint64_t> lru_;  // oldest first
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> index_;
};

}  // namespace servesim
