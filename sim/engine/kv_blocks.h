#pragma once
// The KV block manager of the vLLM-style engine: how many of a replica's GPU KV
// blocks are in use, which prompt blocks are shared through the prefix cache
// (prefix_cache.h), and the CPU offload tier behind it (cpu_tier.h: evicted
// prefix blocks, swap space for preempted requests).
//
// Blocks are counted, not addressed: a sequence holds a number of private blocks
// plus a leading run of shared (cached) blocks, and no block table is kept, so
// every operation is O(1) apart from the prefix cache's hash lookups. "Used" is
// the private blocks of running requests plus the cached blocks they pin;
// evictable cached blocks count as free, and allocate() evicts as many of them as
// it must (oldest first, into the CPU tier when there is one).
//
// Which sequence holds what is the batch state's business (batch_state.h); when
// to allocate, and whom to preempt when blocks run out, is the scheduling
// policy's (scheduling_policy.h). Copy-on-write forks (parallel sampling, beam
// search) are counted the same way: a sequence group's blocks are a number the
// batch state takes and gives back here, by the arithmetic of sequence_group.h
// (shared prompt blocks once, each sequence's suffix privately).
#include <cstdint>
#include <vector>

#include <memory>

#include "engine/cpu_tier.h"
#include "engine/kv_tiers.h"
#include "engine/prefix_cache.h"

namespace servesim {

struct EngineContext;

// Token <-> block arithmetic at one block size. Block sizes are powers of two in
// practice (vLLM requires it for CUDA), so a shift and a mask replace division on
// the hot path; other sizes take the general route.
//
// Hybrid KV (a local-attention model with engine.free_window_kv, local_decoders.h):
// a block is then one layer's `size` tokens, and a request of t tokens holds
// global_layers x ceil(t / size) + local_layers x min(ceil(t / size), local_cap).
struct BlockSize {
  explicit BlockSize(int size);
  std::int64_t blocks_for(std::int64_t tokens) const {  // tokens >= 0
    const std::int64_t b = mask >= 0 ? (tokens + mask) >> shift : (tokens + size - 1) / size;
    if (local_layers == 0) return b;
    return global_layers * b + local_layers * (b < local_cap ? b : local_cap);
  }
  // Blocks a prefill chunk of n tokens after c computed ones holds while it runs:
  // blocks_for(c + n), except that with hybrid KV a local layer also holds the
  // chunk's own blocks beyond its cap until the step ends (its queries read the
  // span before each of them), at most ceil(n / size) + local_cap.
  std::int64_t chunk_blocks(std::int64_t c, std::int64_t n) const {
    if (local_layers == 0) return blocks_for(c + n);
    const std::int64_t b = mask >= 0 ? (c + n + mask) >> shift : (c + n + size - 1) / size;
    const std::int64_t during = (n + size - 1) / size + local_cap;
    return global_layers * b + local_layers * (b < during ? b : during);
  }
  bool hybrid() const { return local_layers > 0; }
  // Layer-blocks of one token-block of every layer (1 unless hybrid).
  std::int64_t layers() const { return local_layers == 0 ? 1 : global_layers + local_layers; }
  // x mod size, in [0, size) (a mask is exact for negative x in two's complement).
  int mod(std::int64_t x) const {
    if (mask >= 0) return static_cast<int>(x & mask);
    const std::int64_t bs = size;
    return static_cast<int>(((x % bs) + bs) % bs);
  }

  int size;
  std::int64_t mask = -1;  // size - 1 when size is a power of two
  int shift = 0;           // log2(size) then
  // Hybrid KV only (0 otherwise): layers of each kind and the local layers' cap in blocks.
  std::int64_t global_layers = 0, local_layers = 0, local_cap = 0;
};

// The block arithmetic of the engine `ctx` describes: hybrid (per-layer blocks) for a
// local-attention model whose framework frees window blocks (engine.free_window_kv).
BlockSize hybrid_block_size(const EngineContext& ctx);

class KvBlocks {
 public:
  // The replica's blocks (ctx.kv_blocks) at ctx.config.block_size, with a CPU tier
  // of ctx.config.cpu_offload_bytes (none when 0). Throws when offload is asked
  // for and the KV bytes per token or the GPU's host link are unknown.
  explicit KvBlocks(const EngineContext& ctx);
  // The prefix cache holds a pointer to the CPU tier: neither may move.
  KvBlocks(const KvBlocks&) = delete;
  KvBlocks& operator=(const KvBlocks&) = delete;

  const BlockSize& block() const { return block_; }
  int block_size() const { return block_.size; }
  std::int64_t blocks_for(std::int64_t tokens) const { return block_.blocks_for(tokens); }
  std::int64_t chunk_blocks(std::int64_t c, std::int64_t n) const { return block_.chunk_blocks(c, n); }
  std::int64_t total() const { return total_; }
  std::int64_t used() const { return used_; }
  std::int64_t free() const { return total_ - used_; }

  // Takes n private blocks (n >= 0) and evicts the cached blocks that no longer fit.
  void allocate(std::int64_t n) {
    used_ += n;
    cache_.shrink_to(total_ - used_);
  }
  // Gives back n private blocks (no eviction needed: free blocks only grow).
  void release(std::int64_t n) { used_ -= n; }

  // Prefix sharing. A prompt's leading blocks found in the GPU cache (at most
  // `limit`) are pinned for the caller; the run right after them found in the
  // CPU tier is only reported (the caller reloads it if it admits the request).
  struct PrefixHit {
    std::int64_t gpu = 0;  // cached blocks now shared by the caller
    std::int64_t cpu = 0;  // following blocks the CPU tier (or the KV tiers) can reload
    double reload_s = -1;  // KV tiers: seconds of that reload; -1: priced over the host link
  };
  // The pinned blocks' handles are appended to `nodes` (for release_prefix).
  PrefixHit acquire_prefix(const std::vector<std::uint64_t>& hashes, std::int64_t limit,
                           std::vector<PrefixCache::Handle>& nodes) {
    PrefixHit h;
    // Pinning as it matches is the same as matching first: the CPU tier's lookup
    // after the GPU run reads neither references nor the LRU order.
    const PrefixCache::Pinned p = cache_.match_acquire(hashes, limit, &nodes);
    h.gpu = p.matched;
    if (cpu_.enabled()) h.cpu = cpu_.match(hashes, h.gpu, limit);
    else if (tiers_) tier_hit(hashes, limit, h);
    used_ += p.revived;
    return h;
  }
  // The leading blocks of `hashes` (at most `limit`) the GPU cache holds, read only.
  std::int64_t cached_prefix(const std::vector<std::uint64_t>& hashes, std::int64_t limit) const {
    return cache_.match(hashes, limit);
  }
  // Drops the caller's share of its cached blocks (their handles, as
  // acquire_prefix and share_prefix appended them).
  // (Nothing to do, and no call, for a request that shared no cached block: every one without prefix caching.)
  void release_prefix(const std::vector<PrefixCache::Handle>& nodes) {
    if (!nodes.empty()) used_ -= cache_.release_nodes(nodes);
  }
  // A computed prompt's blocks [first, n) become shared (cached) blocks; those from
  // `unique_from` on no other request can hit (PrefixCache::add). Returns how many
  // private blocks the caller no longer holds (each now counts as shared).
  std::int64_t share_prefix(const std::vector<std::uint64_t>& hashes, std::int64_t first, std::int64_t n,
                            std::vector<PrefixCache::Handle>& nodes, std::int64_t unique_from = PrefixCache::kNoUnique) {
    const PrefixCache::Registered r = cache_.add(hashes, first, n, &nodes, unique_from);
    used_ -= r.duplicate;  // someone else's copy is kept, the caller's is freed
    return r.fresh + r.duplicate + r.revived;
  }

  // CPU offload tier, or KV tiers.
  bool offload() const { return cpu_.enabled() || tiers_; }
  // Blocks hashes[from, from + n) were reloaded (the last acquire_prefix's hit): most recently used there.
  void touch_offloaded(const std::vector<std::uint64_t>& hashes, std::int64_t from, std::int64_t n) {
    if (tiers_) tiers_->reloaded(hashes, from, n, tier_of_);
    else cpu_.touch(hashes, from, n);
  }
  // Swap space for a preempted request's KV: false when there is no tier or no room.
  bool swap_out(std::int64_t blocks) { return tiers_ ? tiers_->swap_out(blocks) : cpu_.enabled() && cpu_.reserve(blocks); }
  void swap_in(std::int64_t blocks) {
    if (tiers_) tiers_->swap_in(blocks);
    else cpu_.unreserve(blocks);
  }
  // KV tiers: seconds to move `tokens` of swapped KV to or from the first tier; -1 without tiers.
  double tier_swap_seconds(std::int64_t tokens) const;
  const CpuKvTier& cpu_tier() const { return cpu_; }
  // The KV tiers (null: none). Their time is the engine's: set before each step's admissions (ttl).
  const KvTierChain* tiers() const { return tiers_.get(); }
  void set_time(Nanos now) {
    if (tiers_) tiers_->set_time(now);
  }

 private:
  BlockSize block_;
  std::int64_t total_;
  std::int64_t used_ = 0;  // private blocks of running requests + pinned cached blocks
  // The KV tiers' part of acquire_prefix: the run after the GPU hit found in the
  // tiers, cut where reloading stops paying (KvTierChain::best_reload).
  void tier_hit(const std::vector<std::uint64_t>& hashes, std::int64_t limit, PrefixHit& h);

  PrefixCache cache_;
  CpuKvTier cpu_;
  std::unique_ptr<KvTierChain> tiers_;
  std::vector<std::int8_t> tier_of_;  // the last tier_hit's tiers, block by block
  double recompute_block_s_ = 0;      // marginal prefill seconds of one block (the reload-or-recompute choice)
  double replica_block_bytes_ = 0;    // bytes of one block on the whole replica
};

}  // namespace servesim
