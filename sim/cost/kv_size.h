#pragma once
// How much KV cache a token takes on one GPU: the one formula the cost model (attention
// traffic), the memory plan (KV blocks) and the engines' CPU tier use.
#include <algorithm>
#include <cmath>

#include "cost/parallelism.h"
#include "model/dtype.h"
#include "model/model_spec.h"

namespace servesim {

// Layers of one kind (attention, local attention, state layers) on the busiest pipeline
// stage, the kind spread evenly over the stages; all of them without pipelining.
inline double stage_layers_of(int kind_layers, const ModelSpec& m, const ShardShape& s) {
  if (kind_layers <= 0) return 0.0;
  if (kind_layers == m.layers || s.layers == m.layers) return kind_layers == m.layers ? s.layers : kind_layers;
  return std::ceil(static_cast<double>(kind_layers) * s.layers / m.layers);
}

// Query heads one GPU computes of a layer kind: the shard's heads, or with a global head
// count of its own (Step-3.5-Flash, Laguna: ModelSpec::global_heads) that count over tp.
inline double gpu_heads_of(const ModelSpec& m, const ShardShape& s, bool global) {
  if (!global || m.global_heads <= 0) return s.heads;
  const int tp = std::max(1, m.heads / std::max(1, s.heads));
  return static_cast<double>(m.global_heads / tp);
}

// KV heads one GPU holds of a layer kind (replicated when tp exceeds them). With KV heads per
// layer group (Nemotron-51B: ModelSpec::kv_head_groups) the mean over the attention layers of
// each group's share, every group replicated on its own: the sums over layers that the cost
// model and the memory plan take (layers x this) are then each group's exactly.
inline double gpu_kv_heads_of(const ModelSpec& m, const ShardShape& s, bool global) {
  const int tp = std::max(1, m.heads / std::max(1, s.heads));
  if (global && !m.kv_head_groups.empty()) {
    double sum = 0.0, layers = 0.0;
    for (const KvHeadGroup& g : m.kv_head_groups) {
      sum += static_cast<double>(std::max(1, g.kv_heads / tp)) * g.layers;
      layers += g.layers;
    }
    return layers > 0 ? sum / layers : s.kv_heads;
  }
  if (!global || m.global_kv_heads <= 0) return s.kv_heads;
  return std::max(1, m.global_kv_heads / tp);
}

// K and V elements one GPU caches per token and layer: a key and a value for each of
// its KV heads (kv_heads x (head_dim + value width), 2 x kv_heads x head_dim but for
// MiMo-V2's narrower values; KV heads are replicated when tp exceeds them; Gemma 4's global
// layers have their own heads and width), or with MLA the compressed latent plus the shared
// rotary key, which every GPU holds whole.
inline double gpu_kv_elements_per_token_layer(const ModelSpec& m, const ShardShape& s, bool global = true) {
  return m.mla.enabled() ? static_cast<double>(m.kv_elements_per_token_layer())
                         : gpu_kv_heads_of(m, s, global) * (m.head_dim_of(global) + m.value_dim_of(global));
}

// KV bytes one GPU caches per token: its attention layers (the busiest pipeline stage's; a
// state layer caches none) x the elements above x the KV cache element size, plus DSA's
// indexer keys on its top-k layers (fp8 with DSA, 16-bit with MiniMax-M3, whatever the KV
// precision; replicated on every GPU).
inline double gpu_kv_bytes_per_token(const ModelSpec& m, const ShardShape& s, DType kv_cache) {
  double bytes = 0.0;
  // Layers that read another layer's KV (Gemma 3n's KV-sharing layers) cache none.
  if (!m.mixed_attention_shapes()) {
    bytes = stage_layers_of(m.cached_attention_layers(), m, s) * gpu_kv_elements_per_token_layer(m, s) *
            dtype_bytes(kv_cache);
  } else {  // Gemma 4: global and local layers cache different widths
    bytes = (stage_layers_of(m.cached_global_layers(), m, s) * gpu_kv_elements_per_token_layer(m, s, true) +
             stage_layers_of(m.cached_local_layers(), m, s) * gpu_kv_elements_per_token_layer(m, s, false)) *
            dtype_bytes(kv_cache);
  }
  if (m.indexer.enabled()) bytes += stage_layers_of(m.indexer_layers(), m, s) * m.indexer.key_bytes();
  // DeepSeek-V4: the compressed entries and indexer keys of the stage's layers (one KV head,
  // held whole by every GPU of the stage, as MLA's latent); the windows are per sequence.
  if (m.compressed.enabled())
    bytes += m.compressed.compressed_bytes_per_token(dtype_bytes(kv_cache)) * stage_layers_of(m.layers, m, s) / m.layers;
  return bytes;
}

// What one GPU holds per sequence whatever its length: DeepSeek-V4's windows and compressor
// state over its stage's layers (0 for other models).
inline double gpu_fixed_kv_bytes_per_sequence(const ModelSpec& m, const ShardShape& s, DType kv_cache) {
  if (!m.compressed.enabled()) return 0.0;
  return m.fixed_kv_bytes_per_sequence(kv_cache) * stage_layers_of(m.layers, m, s) / m.layers;
}

// Recurrent state one GPU holds per sequence (state layers of its stage; heads split over
// TP): what a state slot takes (memory_plan.h).
// The PLE's convolution state (Qwen3.8-Flash-Next) is hyper-connection wide, replicated on every
// GPU of the stage that holds its layer (vLLM runs the n-gram embedding without pipeline
// parallelism): counted whole.
inline double gpu_state_bytes_per_sequence(const ModelSpec& m, const ShardShape& s, DType activations) {
  const double ple = static_cast<double>(m.ple.conv_state_elements(m.hidden)) * dtype_bytes(activations);
  if (!m.state.enabled()) return ple;
  const double tp = std::max(1, m.heads / std::max(1, s.heads));
  return m.state_bytes_per_sequence(activations) / m.state.layers * stage_layers_of(m.state.layers, m, s) / tp + ple;
}

}  // namespace servesim
