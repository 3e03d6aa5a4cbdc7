#pragma once
// KV tiers behind the GPU prefix cache (engine.kv_tiers): host memory, local
// NVMe, a remote store, as LMCache's storage backends (local CPU, local disk,
// remote) and NVIDIA Dynamo's KV block manager (G2 host, G3 local SSD, G4
// remote) keep evicted prefix blocks.
//
// The model, per tier (KvTierSpec): a capacity in bytes, counted in blocks of
// the replica's whole KV (kv_bytes_per_token x GPUs per replica x block_size),
// a bandwidth into the replica's GPUs (all of them together) and a latency per
// transfer, an optional retention time (TTL) and whether the tier is one store
// shared by every replica of the run (a remote store) or one per replica.
//  - A block the GPU prefix cache evicts goes to the first tier (written back
//    asynchronously, so free, as vLLM's offloading connector and LMCache do).
//    A tier over its capacity demotes its least recently used block to the next
//    tier; the last tier drops it.
//  - A block unused (neither stored nor reloaded) for longer than its tier's ttl
//    is dropped from that tier, whenever the tier is next looked at.
//  - At admission, after the GPU prefix hit, the blocks that follow are looked up
//    tier by tier: the leading run found in any tier can be reloaded instead of
//    recomputed. Reloading n_i blocks from tier i costs n_i x block bytes /
//    bandwidth_i + latency_i, the tiers one after another. The engine reloads the
//    prefix of that run for which reload + recompute of the rest is cheapest
//    (best_reload), so a slow tier is skipped when recomputing is faster.
//  - Tiers are inclusive: a reloaded block stays in its tier (most recently used).
//  - The first tier, when it is per replica, is also the swap space of preempted
//    requests (as engine.cpu_offload's tier is).
//
// Determinism: every operation is in the simulation's event order; a shared tier
// is touched by the replicas in that order too.
//
// Memory: one list node and one map entry per stored block (std::list and
// std::unordered_map: this path is not the simulator's hot loop).
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/sim_time.h"
#include "engine/kv_spill.h"
#include "engine/kv_tier_spec.h"

namespace servesim {

// What one tier did over the run.
struct KvTierCounts {
  std::int64_t stored = 0;     // blocks put into it (evicted from the GPU, or demoted from the tier above)
  std::int64_t reloaded = 0;   // blocks reloaded from it into a GPU
  std::int64_t demoted = 0;    // blocks it pushed to the next tier (or dropped, the last tier)
  std::int64_t expired = 0;    // blocks dropped past the ttl
  std::int64_t transfers = 0;  // reloads that read from it
  double transfer_s = 0;       // seconds those reloads spent on it
};

// One tier's store: blocks by hash, least recently used first.
class KvTierLevel {
 public:
  KvTierLevel(KvTierSpec spec, std::int64_t capacity_blocks);
  const KvTierSpec& spec() const { return spec_; }
  std::int64_t capacity() const { return capacity_; }
  std::int64_t size() const { return static_cast<std::int64_t>(lru_.size()); }

  // Stores (or refreshes) `hash` as most recently used at `now`; a block pushed
  // out to make room is appended to `out` (for the next tier).
  void put(std::uint64_t hash, Nanos now, std::vector<std::uint64_t>& out);
  // Whether `hash` is here (and not past the ttl at `now`: then it is dropped).
  bool contains(std::uint64_t hash, Nanos now);
  // `hash` was reloaded at `now`: most recently used.
  void touch(std::uint64_t hash, Nanos now);
  // Swap space (the first per-replica tier): reserves `blocks`, pushing stored
  // blocks out; false, and nothing changed, when even an empty tier lacks room.
  bool reserve(std::int64_t blocks, std::vector<std::uint64_t>& out);
  void unreserve(std::int64_t blocks) { reserved_ -= blocks; }
  std::int64_t reserved() const { return reserved_; }

  KvTierCounts counts;

 private:
  struct Entry {
    std::uint64_t hash;
    Nanos last;  // last stored or reloaded
  };
  // Drops the blocks unused for longer than the ttl (the oldest are at the front).
  void expire(Nanos now);
  void shrink_to(std::int64_t n, std::vector<std::uint64_t>& out);

  KvTierSpec spec_;
  std::int64_t capacity_;
  Nanos ttl_;  // 0: none
  std::int64_t reserved_ = 0;
  std::list<Entry> lru_;  // oldest first
  std::unordered_map<std::uint64_t, std::list<Entry>::iterator> index_;
};

// The tiers of one replica, in order (shared ones are the run's, owned with it).
class KvTierChain final : public KvSpill {
 public:
  // `levels`: each tier's store, in order; `block_bytes`: bytes of one block on the replica.
  KvTierChain(std::vector<std::shared_ptr<KvTierLevel>> levels, double block_bytes);

  // The simulated time of what follows (the engine sets it before admitting).
  void set_time(Nanos now) { now_ = now; }
  // A block evicted from the GPU prefix cache: into the first tier (demotions cascade).
  void put(std::uint64_t hash) override;
  // The leading run of hashes[from, limit) found in some tier; the tier of each is
  // written to `tier_of` (index 0 for hashes[from]).
  std::int64_t match(const std::vector<std::uint64_t>& hashes, std::int64_t from, std::int64_t limit,
                     std::vector<std::int8_t>& tier_of);
  // Seconds to reload the first `n` blocks of a run whose tiers are `tier_of`:
  // per tier read, n_i x block bytes / bandwidth_i + latency_i, one tier after another.
  double reload_seconds(const std::vector<std::int8_t>& tier_of, std::int64_t n) const;
  // The n in [0, run] minimising reload_seconds(n) + (run - n) x recompute_block_s:
  // what to reload rather than recompute (the cost is linear within a tier, so the
  // best n is at 0 or at the end of a stretch of one tier).
  std::int64_t best_reload(const std::vector<std::int8_t>& tier_of, std::int64_t run,
                           double recompute_block_s) const;
  // The first `n` blocks of the run at hashes[from] were reloaded: counted, most recently used.
  void reloaded(const std::vector<std::uint64_t>& hashes, std::int64_t from, std::int64_t n,
                const std::vector<std::int8_t>& tier_of);
  // Swap space in the first tier (false when it is shared or has no room).
  bool swap_out(std::int64_t blocks);
  void swap_in(std::int64_t blocks) { levels_.front()->unreserve(blocks); }

  std::size_t tiers() const { return levels_.size(); }
  const KvTierLevel& level(std::size_t i) const { return *levels_[i]; }
  double block_bytes() const { return block_bytes_; }

 private:
  // Stores `hashes` into tier i, cascading what it pushes out to the tiers below.
  void store(std::size_t i, std::vector<std::uint64_t>& hashes);

  std::vector<std::shared_ptr<KvTierLevel>> levels_;
  double block_bytes_;
  Nanos now_ = 0;
  std::vector<std::uint64_t> moving_, next_;  // scratch for cascades
};

// Each tier's capacity in blocks of `block_bytes` (floor of capacity / block bytes).
std::int64_t tier_capacity_blocks(const KvTierSpec& spec, double block_bytes);

}  // namespace servesim
