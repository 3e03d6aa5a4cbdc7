#include "engine/kv_blocks.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "cost/batch.h"
#include "engine/engine.h"
#include "util/error.h"

namespace servesim {

BlockSize::BlockSize(int s) : size(s) {
  if (size > 0 && (size & (size - 1)) == 0) {
    mask = size - 1;
    shift = std::countr_zero(static_cast<unsigned>(size));
  }
}

BlockSize hybrid_block_size(const EngineContext& ctx) {
  BlockSize b(ctx.config.block_size);
  // Only a window or a chunk frees blocks (a top-k selection may pick any earlier key).
  if (!ctx.cost || !ctx.config.free_window_kv || !ctx.cost->model().local.enabled() ||
      !ctx.cost->model().local.frees_keys())
    return b;
  const LocalAttention& local = ctx.cost->model().local;
  // The layers that cache KV (Gemma 3n's KV-sharing layers hold none).
  b.local_layers = ctx.cost->model().cached_local_layers();
  b.global_layers = ctx.cost->model().cached_global_layers();
  // A local layer reads at most `span` keys; vLLM frees the blocks wholly before them,
  // so it holds the span's blocks plus the one it is filling.
  b.local_cap = (local.span + b.size - 1) / b.size + 1;
  return b;
}

KvBlocks::KvBlocks(const EngineContext& ctx)
    : block_(hybrid_block_size(ctx)), total_(ctx.kv_blocks * block_.layers()) {
  if (ctx.config.cpu_offload_bytes > 0) {
    const CostModel& cost = *ctx.cost;
    // Host bytes per block on the whole replica: each GPU holds its shard of every block.
    const double block_bytes =
        ctx.memory.kv_bytes_per_token * cost.parallelism().gpus_per_replica() * block_.size;
    // A model without attention (a pure SSM) caches nothing per token: nothing to offload.
    if (block_bytes <= 0 && cost.model().attention_layers() == 0)
      throw Error(fmt::format("engine.cpu_offload: {} has no attention layers and caches no KV, so there is nothing "
                              "to offload; leave engine.cpu_offload out",
                              cost.model().name));
    if (block_bytes <= 0) throw Error("engine.cpu_offload: the model's KV bytes per token are unknown");
    if (cost.gpu().host.bandwidth <= 0)
      throw Error(fmt::format("engine.cpu_offload: GPU '{}' has no host link bandwidth (hardware host.bandwidth)",
                              cost.gpu().name));
    cpu_ = CpuKvTier(static_cast<std::int64_t>(std::floor(ctx.config.cpu_offload_bytes / block_bytes)));
    if (cpu_.enabled()) cache_.set_spill(&cpu_);
  }
  if (!ctx.config.kv_tiers.empty()) {
    const CostModel& cost = *ctx.cost;
    replica_block_bytes_ = ctx.memory.kv_bytes_per_token * cost.parallelism().gpus_per_replica() * block_.size;
    if (replica_block_bytes_ <= 0 && cost.model().attention_layers() == 0)
      throw Error(fmt::format("engine.kv_tiers: {} has no attention layers and caches no KV, so no tier has "
                              "anything to hold; leave engine.kv_tiers out",
                              cost.model().name));
    if (replica_block_bytes_ <= 0) throw Error("engine.kv_tiers: the model's KV bytes per token are unknown");
    // Shared tiers are the run's (ctx.shared_kv_tiers): the first replica makes them, the others reuse them.
    std::vector<std::shared_ptr<KvTierLevel>> levels;
    std::size_t shared_index = 0;
    for (const KvTierSpec& t : ctx.config.kv_tiers) {
      if (t.shared && ctx.shared_kv_tiers) {
        auto& pool = *ctx.shared_kv_tiers;
        if (shared_index >= pool.size())
          pool.push_back(std::make_shared<KvTierLevel>(t, tier_capacity_blocks(t, replica_block_bytes_)));
        levels.push_back(pool[shared_index++]);
      } else {
        levels.push_back(std::make_shared<KvTierLevel>(t, tier_capacity_blocks(t, replica_block_bytes_)));
      }
    }
    tiers_ = std::make_unique<KvTierChain>(std::move(levels), replica_block_bytes_);
    cache_.set_spill(tiers_.get());
    // The marginal prefill time of a token (2048 prompt tokens against 1, from an
    // empty context): what recomputing a block the tiers hold would cost.
    BatchSummary big, one;
    big.add(SeqWork{2048, 0, true});
    one.add(SeqWork{1, 0, true});
    recompute_block_s_ = (cost.totals(big).time - cost.totals(one).time) / 2047.0 * block_.size;
  }
}

void KvBlocks::tier_hit(const std::vector<std::uint64_t>& hashes, std::int64_t limit, PrefixHit& h) {
  const std::int64_t run = tiers_->match(hashes, h.gpu, limit, tier_of_);
  h.cpu = run > 0 ? tiers_->best_reload(tier_of_, run, recompute_block_s_) : 0;
  h.reload_s = h.cpu > 0 ? tiers_->reload_seconds(tier_of_, h.cpu) : 0.0;
}

double KvBlocks::tier_swap_seconds(std::int64_t tokens) const {
  if (!tiers_) return -1;
  const KvTierSpec& first = tiers_->level(0).spec();
  return static_cast<double>(tokens) * replica_block_bytes_ / block_.size / first.bandwidth + first.latency_s;
}

}  // namespace servesim
