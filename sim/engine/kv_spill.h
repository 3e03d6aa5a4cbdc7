#pragma once
// Where the GPU prefix cache puts a block it evicts (prefix_cache.h): the CPU
// offload tier (cpu_tier.h) or a chain of KV tiers (kv_tiers.h).
#include <cstdint>

namespace servesim {

class KvSpill {
 public:
  virtual ~KvSpill() = default;
  // A block evicted from the GPU cache, by its hash.
  virtual void put(std::uint64_t hash) = 0;
};

}  // namespace servesim
