#include "engine/kv_blocks.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>

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
  b.local_layers = local.layers;
  b.global_layers = ctx.cost->model().attention_layers() - local.layers;
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
    if (block_bytes <= 0) throw Error("engine.cpu_offload: the model's KV bytes per token are unknown");
    if (cost.gpu().host.bandwidth <= 0)
      throw Error(fmt::format("engine.cpu_offload: GPU '{}' has no host link bandwidth (hardware host.bandwidth)",
                              cost.gpu().name));
    cpu_ = CpuKvTier(static_cast<std::int64_t>(std::floor(ctx.config.cpu_offload_bytes / block_bytes)));
    if (cpu_.enabled()) cache_.set_spill(&cpu_);
  }
}

}  // namespace servesim
