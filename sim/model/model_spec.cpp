#include "model/model_spec.h"

#include <fmt/format.h>

namespace servesim {

double ModelSpec::weight_element_bytes(DType weights) const {
  const double element = dtype_bytes(weights);
  if (!weight_groups.enabled() || weights != native_dtype) return element;
  return element + weight_groups.scale_bytes / weight_groups.size;
}

std::string tensor_group_name(TensorGroup g) {
  switch (g) {
    case TensorGroup::attention: return "attention";
    case TensorGroup::dense_mlp: return "dense MLP";
    case TensorGroup::experts: return "routed experts";
    case TensorGroup::shared_experts: return "shared experts";
    case TensorGroup::state_layers: return "state layers";
  }
  return "?";
}

double ModelSpec::weight_element_bytes(DType weights, TensorGroup g) const {
  const double own = weight_element_bytes(weights);
  if (!checkpoint.present || weights != native_dtype || checkpoint.bytes(g) <= 0) return own;
  return checkpoint.bytes(g);
}

int ModelSpec::attention_layers() const {
  return attention_layer_count >= 0 ? attention_layer_count
                                    : layers - (state.enabled() ? state.layers : 0) - compressed.layers();
}

std::int64_t ModelSpec::q_dim() const { return static_cast<std::int64_t>(heads) * head_dim; }
std::int64_t ModelSpec::kv_dim() const { return static_cast<std::int64_t>(kv_heads) * head_dim; }

std::int64_t ModelSpec::attention_params_per_layer() const { return attention_params_of(true); }

double ModelSpec::mean_kv_heads() const {
  if (kv_head_groups.empty()) return kv_heads;
  double sum = 0.0, n = 0.0;
  for (const KvHeadGroup& g : kv_head_groups) {
    sum += static_cast<double>(g.kv_heads) * g.layers;
    n += g.layers;
  }
  return n > 0 ? sum / n : kv_heads;
}

std::int64_t ModelSpec::attention_params() const {
  const int local_layers = local.enabled() ? local.layers : 0;
  std::int64_t p = static_cast<std::int64_t>(global_attention_layers()) * attention_params_of(true) +
                   static_cast<std::int64_t>(local_layers) * attention_params_of(false);
  // Nemotron-51B: each group's layers at their own KV-head count (no local layers beside them).
  if (!kv_head_groups.empty()) {
    p = 0;
    for (const KvHeadGroup& g : kv_head_groups)
      p += static_cast<std::int64_t>(g.layers) * attention_params_with(true, g.kv_heads);
  }
  if (indexer.enabled()) p += static_cast<std::int64_t>(indexer_layers()) * indexer.params_per_layer(hidden, mla.q_lora_rank);
  if (compressed.enabled()) p += compressed.params(hidden, heads);
  return p;
}

std::int64_t ModelSpec::attention_params_of(bool global) const { return attention_params_with(global, kv_heads_of(global)); }

std::int64_t ModelSpec::attention_params_with(bool global, int kv) const {
  if (mla.enabled()) {
    const std::int64_t qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
    const std::int64_t q = mla.q_lora_rank > 0
                               ? hidden * mla.q_lora_rank + mla.q_lora_rank + mla.q_lora_rank * heads * qk_head
                               : hidden * heads * qk_head;
    const std::int64_t kv_a = hidden * (mla.kv_lora_rank + mla.qk_rope_head_dim) + mla.kv_lora_rank;
    const std::int64_t kv_b = static_cast<std::int64_t>(mla.kv_lora_rank) * heads *
                              (mla.qk_nope_head_dim + mla.v_head_dim);
    const std::int64_t o = static_cast<std::int64_t>(heads) * mla.v_head_dim * hidden;
    // Kimi K3's gated MLA: g_proj hidden -> heads x v_head_dim (vLLM's KimiMLAAttention).
    const std::int64_t gate = attention_output_gate ? hidden * heads * mla.v_head_dim : 0;
    // Tencent Hy4's learnable sink: a logit per head (learnable_sink_param).
    return q + kv_a + kv_b + o + gate + (attention_sinks ? heads : 0);
  }
  // Query width (doubled by an output gate), key and value widths of this kind of layer; o_proj
  // reads the heads' values (heads x the value width).
  const std::int64_t hd = head_dim_of(global), vd = value_dim_of(global);
  const std::int64_t h = heads_of(global);  // Step-3.5-Flash, Laguna: query heads per layer kind
  const std::int64_t q = h * hd;
  const std::int64_t k = static_cast<std::int64_t>(kv) * hd;
  const std::int64_t v = global && global_k_eq_v ? 0 : static_cast<std::int64_t>(kv) * vd;
  const std::int64_t o_in = h * vd;
  const std::int64_t q_out = attention_output_gate ? 2 * q : q;
  const std::int64_t bias = qkv_bias ? q_out + k + v : 0;
  // Step3's low-rank query (query_rank): hidden -> query_rank, its norm, query_rank -> q_out, in
  // place of hidden -> q_out.
  const std::int64_t q_weights = query_rank > 0 ? hidden * query_rank + query_rank + query_rank * q_out : hidden * q_out;
  return q_weights + hidden * (k + v) + bias + o_in * hidden + (attention_o_bias ? hidden : 0) + (attention_sinks ? h : 0) +
         rel.params_per_layer(hidden, h, k, hd, global);
}

namespace {
// One dense MLP layer of width `ffn`: its projections and, with `bias`, a bias per output (gate
// and up ffn each, or one up of ffn; down hidden).
std::int64_t dense_mlp_layer_params(std::int64_t hidden, std::int64_t ffn, bool gated, bool bias) {
  return (gated ? 3 : 2) * hidden * ffn + (bias ? (gated ? 2 : 1) * ffn + hidden : 0);
}
}  // namespace

std::int64_t ModelSpec::dense_mlp_params_per_layer() const {
  return dense_mlp_layer_params(hidden, ffn, gated_mlp, mlp_bias);
}

std::int64_t ModelSpec::dense_mlp_params() const {
  if (mlp_widths.empty()) return static_cast<std::int64_t>(dense_mlp_layers()) * dense_mlp_params_per_layer();
  std::int64_t sum = 0;
  for (const MlpWidthGroup& g : mlp_widths)
    sum += static_cast<std::int64_t>(g.layers) *
           (g.linear ? hidden * hidden : dense_mlp_layer_params(hidden, g.ffn, gated_mlp, mlp_bias));
  return sum;
}

namespace {
// One expert's weights; `bias`: gpt-oss's biases on gate/up (2 ffn) and down (width).
std::int64_t expert_params(std::int64_t width, std::int64_t ffn, bool gated, bool bias = false) {
  return (gated ? 3 : 2) * width * ffn + (bias ? (gated ? 2 : 1) * ffn + width : 0);
}
}  // namespace

// Router (with gpt-oss's bias), the routed experts at the width they run at (the latent
// width with Nemotron-3 Super's latent MoE, plus its two projections), the shared experts.
std::int64_t ModelSpec::moe_params_per_layer() const {
  const std::int64_t width = moe.latent > 0 ? moe.latent : hidden;
  return router_params_per_layer() + moe.num_experts * expert_params(width, moe.expert_ffn, gated_mlp, moe.expert_bias) +
         (moe.latent > 0 ? 2 * hidden * moe.latent + (moe.latent_norm ? moe.latent : 0) : 0) +
         shared_expert_params_per_layer() + vision_expert_params_per_layer();
}

std::int64_t ModelSpec::vision_expert_params_per_layer() const {
  return moe.vision_experts * (expert_params(hidden, moe.vision_expert_ffn, gated_mlp) + hidden);
}

// The router scores every choice, LongCat-Flash's identity experts too.
std::int64_t ModelSpec::router_params_per_layer() const {
  return hidden * (moe.num_experts + moe.zero_experts) + (moe.expert_bias ? moe.num_experts : 0);
}

std::int64_t ModelSpec::shared_expert_params_per_layer() const {
  const std::int64_t shared_ffn = moe.shared_expert_ffn > 0 ? moe.shared_expert_ffn : moe.expert_ffn;
  return moe.shared_experts * expert_params(hidden, shared_ffn, gated_mlp);
}

std::int64_t ModelSpec::moe_active_params_per_layer() const {
  const std::int64_t shared_ffn = moe.shared_expert_ffn > 0 ? moe.shared_expert_ffn : moe.expert_ffn;
  const std::int64_t width = moe.latent > 0 ? moe.latent : hidden;
  return router_params_per_layer() + moe.experts_per_token * expert_params(width, moe.expert_ffn, gated_mlp, moe.expert_bias) +
         (moe.latent > 0 ? 2 * hidden * moe.latent + (moe.latent_norm ? moe.latent : 0) : 0) +
         moe.shared_experts * expert_params(hidden, shared_ffn, gated_mlp);
}

int ModelSpec::moe_layers() const {
  if (!moe.enabled()) return 0;
  if (moe.listed_layers >= 0) return moe.listed_layers;
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
  const char* what = kind == Kind::chunked ? "chunked attention"
                     : kind == Kind::topk  ? "top-k sparse attention (DSA)"
                                           : "sliding window";
  return fmt::format("{} of {} tokens on {} layers", what, span, layers);
}

// The token table and the LM head, table_width() wide (OPT-350m: word_embed_proj_dim).
std::int64_t ModelSpec::embedding_params() const { return vocab * table_width() * (tied_embeddings ? 1 : 2); }

std::int64_t ModelSpec::norm_params() const {
  // One RMSNorm before each sublayer (two per layer of attention + MLP) plus the final one
  // (MLA adds its latent norms, counted above; OPT-350m's post-LN layout has no final one); a
  // LayerNorm with a bias holds twice that.
  return layer_norm_params() + ((final_norm ? 1 : 0) + (embedding_norm ? 1 : 0)) * hidden * (norm_bias ? 2 : 1);
}

std::int64_t ModelSpec::repeated_pass_params() const {
  if (layer_passes <= 1) return 0;
  // The readers that set layer_passes (Ouro's) have attention, a dense MLP and two norms a
  // layer, nothing else per layer: the final norm is held once, outside the loop.
  const std::int64_t unrolled = attention_params() + dense_mlp_params() + layer_norm_params();
  return unrolled - unrolled / layer_passes;
}

std::int64_t ModelSpec::repeated_pass_norm_params() const {
  return layer_passes > 1 ? layer_norm_params() - layer_norm_params() / layer_passes : 0;
}

std::int64_t ModelSpec::shared_block_wide_input_params() const {
  if (!shared_blocks.enabled()) return 0;
  const std::int64_t qkv_width = q_dim() + 2 * kv_dim();
  return (shared_blocks.input_width - hidden) * qkv_width;
}

// The per-layer sums count, for each of the U uses, attention_params_of(true) (q, k, v from
// hidden), a dense MLP layer and two hidden-wide norms. A shared block holds once the attention
// with its wider q, k, v, the MLP and its two norms (input_width + hidden); each use holds its
// adapters and its linear map.
std::int64_t ModelSpec::shared_blocks_params_delta() const {
  if (!shared_blocks.enabled()) return 0;
  const SharedBlocks& b = shared_blocks;
  const std::int64_t attention = attention_params_of(true), mlp = dense_mlp_params_per_layer();
  const std::int64_t counted = attention + mlp + 2 * hidden;
  const std::int64_t held = attention + shared_block_wide_input_params() + mlp + b.input_width + hidden;
  const std::int64_t own = b.per_use_params(hidden, q_dim(), (gated_mlp ? 2 : 1) * ffn);
  return static_cast<std::int64_t>(b.blocks) * held - static_cast<std::int64_t>(b.uses) * (counted - own);
}

std::int64_t ModelSpec::layer_norm_params() const {
  return static_cast<std::int64_t>(sublayers()) * hidden * (norm_bias ? 2 : 1) +
         (qk_head_norms ? 2LL * attention_layers() * head_dim : 0);
}

// Gemma 4's KV-sharing layers: no k_proj, and no v_proj where values are projected (a global
// layer with attention_k_eq_v has none anyway): hidden x KV heads x head width each.
std::int64_t ModelSpec::kv_shared_missing_kv_proj_params() const {
  if (kv_shared_layers_hold_kv_proj) return 0;
  auto kv_proj = [&](bool global) {
    const std::int64_t width = static_cast<std::int64_t>(kv_heads_of(global)) * head_dim_of(global);
    return hidden * width * (global && global_k_eq_v ? 1 : 2);
  };
  return kv_shared_global_layers * kv_proj(true) + kv_shared_local_layers * kv_proj(false);
}

std::int64_t ModelSpec::total_params() const {
  return gemma3n_params() + gemma3n.table_params(layers) - kv_shared_missing_kv_proj_params() -
         repeated_pass_params() + attention_params() + static_cast<std::int64_t>(state.enabled() ? state.layers : 0) * state.params_per_layer(hidden) +
         dense_mlp_params() +
         moe_layers() * moe_params_per_layer() + embedding_params() + norm_params() + hc_params() +
         hash_table_params() + attn_res_params() + position_table_params() + embed_projection_params() +
         ngram.table_params() + ngram.projection_params(hidden) + ple.table_params() + ple.projection_params(hidden) +
         cross_attention_params() + loop_gate_params + shared_blocks_params_delta();
}

// transformers' MllamaCrossAttentionDecoderLayer: q_proj, k_proj, v_proj, o_proj (no biases),
// q_norm and k_norm over head_dim, input and post-attention RMSNorms, the attention and MLP
// tanh gates (one weight each) and a gated MLP of `ffn`.
std::int64_t ModelSpec::cross_attention_params_per_layer() const {
  if (cross_attention_layers <= 0) return 0;
  const std::int64_t hd = head_dim, q = static_cast<std::int64_t>(heads) * hd,
                     kv = static_cast<std::int64_t>(kv_heads) * hd;
  return hidden * (q + 2 * kv) + q * hidden + 2 * hd + 3 * hidden * ffn + 2 * hidden + 2;
}

// Block: hc_attn_fn and hc_ffn_fn ((2 + h) h rows of h x hidden), their bases ((2 + h) h) and
// scales (3); the head (ParallelHead.hc_head, Transformer.hc_head_*): h rows of h x hidden, h, 1.
// Low rank (hc_lowrank r): per sublayer the norm (h x hidden) and W_down, W_up, W_inject
// ((2 r + h) x h x hidden); the head's mixer the norm, W_down and W_up.
std::int64_t ModelSpec::hc_params_per_layer() const {
  if (hc_mult <= 0) return 0;
  const std::int64_t h = hc_mult, mix = hc_mix_rows();
  if (hc_lowrank > 0) return 2 * (mix * h * hidden + h * hidden);
  return 2 * (mix * h * hidden + mix + (hc_independent ? 2 : 3));
}

std::int64_t ModelSpec::hc_head_params() const {
  if (hc_mult <= 0) return 0;
  const std::int64_t h = hc_mult;
  if (hc_lowrank > 0) return (2LL * hc_lowrank + 1) * h * hidden;
  return h * h * hidden + h + 1;
}

std::int64_t ModelSpec::hc_params() const {
  if (hc_mult <= 0) return 0;
  return static_cast<std::int64_t>(layers) * hc_params_per_layer() + hc_head_params();
}

// Per layer two RMSNorms and two hidden -> 1 projections (before attention and before the
// MLP), and one of each before the final norm (vLLM's KimiLinearModel.output_attn_res_*).
std::int64_t ModelSpec::attn_res_params() const {
  if (attn_res_block_size <= 0) return 0;
  return (4 * static_cast<std::int64_t>(layers) + 2) * hidden;
}

std::int64_t ModelSpec::hash_table_params() const {
  return static_cast<std::int64_t>(moe.hash_layers) * vocab * moe.experts_per_token;
}

double ModelSpec::fixed_kv_bytes_per_sequence(DType kv) const {
  if (!compressed.enabled()) return 0.0;
  return compressed.window_bytes_per_sequence(dtype_bytes(kv)) + compressed.compressor_state_bytes_per_sequence();
}

std::int64_t ModelSpec::mtp_params() const {
  // One DeepSeek-V3 MTP module (its paper, section 2.2; the checkpoint's layer 61): a
  // decoder layer like the last (MoE), the projection of [h; embedding] (2h x h), the
  // enorm, hnorm and head norm beside the layer's two, and the embedding and output head
  // the checkpoint stores again in the module (shared with the main model when served).
  // DeepSeek-V4's MTPBlock: a Block (attention of compress ratio 0, the reader checks; MoE;
  // hyper-connections) with e_proj and h_proj (2 h x h), enorm, hnorm, norm and its own hc head.
  if (mtp_layers <= 0) return 0;
  const std::int64_t attention = compressed.enabled() ? compressed.base_params(hidden, heads) : attention_params_per_layer();
  const std::int64_t hc = hc_mult > 0 ? hc_params_per_layer() + hc_head_params() : 0;
  const std::int64_t block = attention + hc +
                             (moe.enabled() ? moe_params_per_layer() : dense_mlp_params_per_layer());
  const std::int64_t module = block + 2 * hidden * hidden + 5 * hidden + (mtp_own_tables ? 2 * vocab * hidden : 0);
  return static_cast<std::int64_t>(mtp_layers) * module;
}

std::int64_t ModelSpec::gemma3n_params() const {
  return static_cast<std::int64_t>(layers) * gemma3n.params_per_layer(hidden) + gemma3n.model_params(hidden, layers);
}

// Gemma 3n's per-layer embedding table is a lookup: not in the active figure (Google's
// "effective" parameters leave it out too), its projections are.
std::int64_t ModelSpec::active_params_all_tables() const {
  return gemma3n_params() - kv_shared_missing_kv_proj_params() - repeated_pass_params() + attention_params() + static_cast<std::int64_t>(state.enabled() ? state.layers : 0) * state.params_per_layer(hidden) +
         dense_mlp_params() +
         moe_layers() * moe_active_params_per_layer() + embedding_params() + norm_params() + hc_params() +
         attn_res_params() + position_table_params() + embed_projection_params() + ngram.projection_params(hidden) +
         ple.projection_params(hidden) + loop_gate_params + shared_blocks_params_delta();
}

std::int64_t ModelSpec::active_params_with_real_experts(int real) const {
  const std::int64_t one = expert_params(moe.latent > 0 ? moe.latent : hidden, moe.expert_ffn, gated_mlp, moe.expert_bias);
  return active_params() + static_cast<std::int64_t>(moe_layers()) * (real - moe.experts_per_token) * one;
}

std::int64_t ModelSpec::active_params() const {
  // A tied table is the LM head: lm_head_only keeps it. A learned position table is a lookup
  // like the embedding: counted with both tables, left out with the embedding.
  const std::int64_t table = vocab * table_width();
  switch (active_count) {
    case ActiveCount::all_tables: return active_params_all_tables();
    case ActiveCount::lm_head_only:
      return active_params_all_tables() - (tied_embeddings ? 0 : table) - position_table_params();
    case ActiveCount::no_tables: return active_params_all_tables() - embedding_params() - position_table_params();
  }
  return active_params_all_tables();
}

std::string ModelSpec::active_count_name() const {
  switch (active_count) {
    case ActiveCount::all_tables: return "embedding and LM head counted";
    case ActiveCount::lm_head_only: return "LM head counted, embedding not (a lookup)";
    case ActiveCount::no_tables: return "embedding and LM head not counted";
  }
  return "?";
}

std::int64_t ModelSpec::kv_elements_per_token_layer() const { return kv_elements_of(true); }

std::int64_t ModelSpec::kv_elements_of(bool global) const {
  // MLA caches the compressed latent and one shared rotary key per token.
  if (mla.enabled()) return mla.kv_lora_rank + mla.qk_rope_head_dim;
  return static_cast<std::int64_t>(kv_heads_of(global)) * (head_dim_of(global) + value_dim_of(global));
}

double ModelSpec::kv_bytes_per_token(DType kv) const {
  // Layers that read another layer's KV (Gemma 3n's KV-sharing layers) cache none.
  double elements = static_cast<double>(cached_global_layers()) * static_cast<double>(kv_elements_of(true)) +
                    static_cast<double>(cached_local_layers()) * static_cast<double>(kv_elements_of(false));
  // Nemotron-51B: the sum over its groups of layers x kv_heads x (head_dim + value width).
  if (!kv_head_groups.empty()) {
    elements = 0.0;
    for (const KvHeadGroup& g : kv_head_groups)
      elements += static_cast<double>(g.layers) * g.kv_heads * (head_dim_of(true) + value_dim_of(true));
  }
  const double indexer_keys = indexer.enabled() ? indexer_layers() * indexer.key_bytes() : 0.0;
  return elements * dtype_bytes(kv) + indexer_keys +
         (compressed.enabled() ? compressed.compressed_bytes_per_token(dtype_bytes(kv)) : 0.0);
}

double ModelSpec::state_bytes_per_sequence(DType activations) const {
  if (!state.enabled()) return 0.0;
  return static_cast<double>(state.layers) * (static_cast<double>(state.state_elements()) * dtype_bytes(state.state_dtype) +
                                              static_cast<double>(state.conv_state_elements()) * dtype_bytes(activations));
}

}  // namespace servesim
