#pragma once
// How much KV cache a token takes on one GPU: the one formula the cost model (attention
// traffic), the memory plan (KV blocks) and the engines' CPU tier use.
#include "cost/parallelism.h"
#include "model/dtype.h"
#include "model/model_spec.h"

namespace servesim {

// K and V elements one GPU caches per token and layer: a key and a value for each of
// its KV heads (2 x kv_heads x head_dim; KV heads are replicated when tp exceeds
// them), or with MLA the compressed latent plus the shared rotary key, which every
// GPU holds whole.
inline double gpu_kv_elements_per_token_layer(const ModelSpec& m, const ShardShape& s) {
  return m.mla.enabled() ? static_cast<double>(m.kv_elements_per_token_layer()) : 2.0 * s.kv_heads * m.head_dim;
}

// KV bytes one GPU caches per token: its layers (the busiest pipeline stage's) x the
// elements above x the KV cache element size.
inline double gpu_kv_bytes_per_token(const ModelSpec& m, const ShardShape& s, DType kv_cache) {
  return s.layers * gpu_kv_elements_per_token_layer(m, s) * dtype_bytes(kv_cache);
}

}  // namespace servesim
