#include "model/model_spec.h"

#include <fmt/format.h>

namespace servesim {

double ModelSpec::weight_element_bytes(DType weights) const {
  const double element = dtype_bytes(weights);
  if (!weight_groups.enabled() || weights != native_dtype) return element;
  return element + weight_groups.scale_bytes / weight_groups.size;
}

std::int64_t ModelSpec::q_dim() const { return static_cast<std::int64_t>(heads) * head_dim; }
std::int64_t ModelSpec::kv_dim() const { return static_cast<std::int64_t>(kv_heads) * head_dim; }

std::int64_t ModelSpec::attention_params_per_layer() const {
  if (mla.enabled()) {
    const std::int64_t qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
    const std::int64_t q = mla.q_lora_rank > 0
                               ? hidden * mla.q_lora_rank + mla.q_lora_rank + mla.q_lora_rank * heads * qk_head
                               : hidden * heads * qk_head;
    const std::int64_t kv_a = hidden * (mla.kv_lora_rank + mla.qk_rope_head_dim) + mla.kv_lora_rank;
    const std::int64_t kv_b = static_cast<std::int64_t>(mla.kv_lora_rank) * heads *
                              (mla.qk_nope_head_dim + mla.v_head_dim);
    const std::int64_t o = static_cast<std::int64_t>(heads) * mla.v_head_dim * hidden;
    return q + kv_a + kv_b + o;
  }
  const std::int64_t qkv = hidden * (q_dim() + 2 * kv_dim());
  const std::int64_t bias = qkv_bias ? q_dim() + 2 * kv_dim() : 0;
  return qkv + bias + q_dim() * hidden;
}

std::int64_t ModelSpec::dense_mlp_params_per_layer() const {
  return (gated_mlp ? 3 : 2) * hidden * ffn;
}

namespace {
std::int64_t expert_params(std::int64_t hidden, std::int64_t ffn, bool gated) {
  return (gated ? 3 : 2) * hidden * ffn;
}
}  // namespace

std::int64_t ModelSpec::moe_params_per_layer() const {
  const std::int64_t shared_ffn = moe.shared_expert_ffn > 0 ? moe.shared_expert_ffn : moe.expert_ffn;
  return hidden * moe.num_experts  // router
         + moe.num_experts * expert_params(hidden, moe.expert_ffn, gated_mlp) +
         moe.shared_experts * expert_params(hidden, shared_ffn, gated_mlp);
}

std::int64_t ModelSpec::moe_active_params_per_layer() const {
  const std::int64_t shared_ffn = moe.shared_expert_ffn > 0 ? moe.shared_expert_ffn : moe.expert_ffn;
  return hidden * moe.num_experts + moe.experts_per_token * expert_params(hidden, moe.expert_ffn, gated_mlp) +
         moe.shared_experts * expert_params(hidden, shared_ffn, gated_mlp);
}

int ModelSpec::moe_layers() const {
  if (!moe.enabled()) return 0;
  const int rest = layers - moe.dense_layers;
  // Interleaved: of the layers after the dense ones, every layer_step-th (1-based) is MoE.
  return moe.layer_step > 1 ? rest / moe.layer_step : rest;
}

double LocalAttention::pairs_through(std::int64_t p) const {
  const double s = static_cast<double>(span);
  if (kind == Kind::chunked) {
    // p / span whole chunks of span (span + 1) / 2 pairs, then the partial one.
    const double whole = static_cast<double>(p / span), r = static_cast<double>(p % span);
    return whole * s * (s + 1.0) / 2.0 + r * (r + 1.0) / 2.0;
  }
  const double q = static_cast<double>(p);
  if (p <= span) return q * (q + 1.0) / 2.0;
  return s * (s + 1.0) / 2.0 + (q - s) * s;  // past the window every query sees span keys
}

std::string LocalAttention::describe() const {
  if (!enabled()) return "none";
  return fmt::format("{} of {} tokens on {} layers", kind == Kind::chunked ? "chunked attention" : "sliding window",
                     span, layers);
}

std::int64_t ModelSpec::embedding_params() const { return vocab * hidden * (tied_embeddings ? 1 : 2); }

std::int64_t ModelSpec::norm_params() const {
  // Two RMSNorms per layer plus the final one (MLA adds its latent norms, counted above).
  return (2 * static_cast<std::int64_t>(layers) + 1) * hidden;
}

std::int64_t ModelSpec::total_params() const {
  const int dense = layers - moe_layers();
  return static_cast<std::int64_t>(layers) * attention_params_per_layer() +
         dense * dense_mlp_params_per_layer() + moe_layers() * moe_params_per_layer() +
         embedding_params() + norm_params();
}

std::int64_t ModelSpec::mtp_params() const {
  // One DeepSeek-V3 MTP module (its paper, section 2.2; the checkpoint's layer 61): a
  // decoder layer like the last (MoE), the projection of [h; embedding] (2h x h), the
  // enorm, hnorm and head norm beside the layer's two, and the embedding and output head
  // the checkpoint stores again in the module (shared with the main model when served).
  if (mtp_layers <= 0) return 0;
  const std::int64_t block = attention_params_per_layer() +
                             (moe.enabled() ? moe_params_per_layer() : dense_mlp_params_per_layer());
  const std::int64_t module = block + 2 * hidden * hidden + 5 * hidden + 2 * vocab * hidden;
  return static_cast<std::int64_t>(mtp_layers) * module;
}

std::int64_t ModelSpec::active_params() const {
  const int dense = layers - moe_layers();
  return static_cast<std::int64_t>(layers) * attention_params_per_layer() +
         dense * dense_mlp_params_per_layer() + moe_layers() * moe_active_params_per_layer() +
         embedding_params() + norm_params();
}

std::int64_t ModelSpec::kv_elements_per_token_layer() const {
  // MLA caches the compressed latent and one shared rotary key per token.
  if (mla.enabled()) return mla.kv_lora_rank + mla.qk_rope_head_dim;
  return 2 * kv_dim();
}

double ModelSpec::kv_bytes_per_token(DType kv) const {
  return static_cast<double>(layers) * static_cast<double>(kv_elements_per_token_layer()) * dtype_bytes(kv);
}

}  // namespace servesim
