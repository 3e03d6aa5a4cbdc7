#pragma once
// How one replica is split over GPUs, and the per-GPU shard shapes that follow.
//
// The layout as SGLang, vLLM and TensorRT-LLM write it for mixture-of-experts models:
// attention runs tp-way tensor parallel inside each of attention_dp data-parallel
// ranks (each rank its own batch and KV cache: MLA's latent is not replicated across
// ranks), so a pipeline stage has tp x attention_dp GPUs; the routed experts are split
// over ep of those GPUs (ep may exceed tp and span nodes), each expert's FFN over the
// moe_tp() = tp x attention_dp / ep GPUs that share it. Dense MLP layers, shared
// experts and the LM head follow the attention layout (tp-way inside a rank, one copy
// per rank): SGLang --moe-dense-tp-size with DP attention, vLLM data parallel +
// --enable-expert-parallel, TensorRT-LLM enable_attention_dp.
// attention_dp = 1 and ep dividing tp is the classic layout: experts split inside the
// TP group (ep = 1: every GPU holds a slice of every expert).
#include <cstdint>

#include "model/model_spec.h"

namespace servesim {

struct Parallelism {
  int tp = 1;        // attention tensor parallel GPUs inside one data-parallel rank
  int pp = 1;        // pipeline stages (layers split)
  int ep = 1;        // expert parallel: routed experts split over ep of a stage's GPUs
  int attention_dp = 1;  // attention data-parallel ranks per replica (DP attention)
  int redundant_experts = 0;  // extra expert slots across the EP group (EPLB replicas of hot experts)
  int nodes = 0;          // nodes one replica spans as declared (0: derived from gpus_per_node)
  int gpus_per_node = 0;  // GPUs per node (one NVLink domain) as declared (0: the GPU file's)
  int replicas = 1;  // data-parallel copies behind a router
  int gpus_per_stage() const { return tp * attention_dp; }
  int gpus_per_replica() const { return tp * attention_dp * pp; }
  int total_gpus() const { return gpus_per_replica() * replicas; }
  // GPUs that share each routed expert (its FFN split between them).
  int moe_tp() const { return tp * attention_dp / ep; }
  // Expert slots per GPU of the EP group (routed experts plus redundant ones).
  int expert_slots(const ModelSpec& m) const { return (m.moe.num_experts + redundant_experts) / ep; }
  // DP attention or expert parallelism: priced by the wide-EP step (cost/wide_ep_step.cpp);
  // otherwise the classic tensor-parallel step, unchanged.
  bool wide() const { return attention_dp > 1 || ep > 1; }
};

// Shapes of one GPU's shard. KV heads are replicated when tp exceeds them (as vLLM does).
struct ShardShape {
  int layers = 0;             // layers on the busiest pipeline stage
  int moe_layers = 0;         // of which MoE
  int heads = 0;              // query heads per GPU
  int kv_heads = 0;           // KV heads per GPU
  std::int64_t ffn = 0;       // dense MLP intermediate per GPU
  std::int64_t expert_ffn = 0;  // intermediate of one expert per GPU
  int experts = 0;            // routed experts held per GPU (redundant slots included)
  std::int64_t vocab = 0;     // LM head rows per GPU
};

// Throws servesim::Error quoting the values when the split is impossible
// ("tp=3 does not divide 32 attention heads").
void validate_parallelism(const Parallelism& p, const ModelSpec& m);
ShardShape shard_shape(const Parallelism& p, const ModelSpec& m);

}  // namespace servesim
