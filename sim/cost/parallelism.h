#pragma once
// How one replica is split over GPUs, and the per-GPU shard shapes that follow.
#include <cstdint>

#include "model/model_spec.h"

namespace servesim {

struct Parallelism {
  int tp = 1;        // tensor parallel (heads and FFN split; all-reduce twice a layer)
  int pp = 1;        // pipeline stages (layers split)
  int ep = 1;        // expert parallel (MoE experts split across ep of the tp ranks)
  int replicas = 1;  // data-parallel copies behind a router
  int gpus_per_replica() const { return tp * pp; }
  int total_gpus() const { return tp * pp * replicas; }
};

// Shapes of one GPU's shard. KV heads are replicated when tp exceeds them (as vLLM does).
struct ShardShape {
  int layers = 0;             // layers on the busiest pipeline stage
  int moe_layers = 0;         // of which MoE
  int heads = 0;              // query heads per GPU
  int kv_heads = 0;           // KV heads per GPU
  std::int64_t ffn = 0;       // dense MLP intermediate per GPU
  std::int64_t expert_ffn = 0;  // intermediate of one expert per GPU
  int experts = 0;            // routed experts held per GPU
  std::int64_t vocab = 0;     // LM head rows per GPU
};

// Throws servesim::Error quoting the values when the split is impossible
// ("tp=3 does not divide 32 attention heads").
void validate_parallelism(const Parallelism& p, const ModelSpec& m);
ShardShape shard_shape(const Parallelism& p, const ModelSpec& m);

}  // namespace servesim
