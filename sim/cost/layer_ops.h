#pragma once
// The op groups of one transformer layer, shared by the tensor-parallel step
// (step_cost.cpp) and the wide-EP step (wide_ep_step.cpp): each hands its ops to
// `put(op, per_layer)` in execution order, so both steps time and sum them the same
// way. Internal to sim/cost.
#include <cmath>

#include "cost/kv_size.h"
#include "cost/op_builders.h"
#include "cost/step_cost.h"

namespace servesim {

// Norm, QKV projection, rotary, KV write and output projection of every attention layer
// over T tokens (the attention over the KV cache itself: attention_ops; state layers'
// mixers: state_token_ops).
template <typename Put>
void CostModel::attention_block_ops(double T, Put& put) const {
  using ops::elementwise;
  using ops::gemm;
  const ModelSpec& m = model_;
  const ShardShape& s = shard_;
  // Layers with attention (all, but for hybrids with state layers), and the norms: one
  // before each sublayer (attention or state mixer, MLP), two per layer of the usual kind.
  const double L = m.attention_layers();
  const double norm_layers = m.sublayers() / 2.0;
  const double hidden = static_cast<double>(m.hidden);
  const double a = act_bytes_;
  const double heads = s.heads;
  const bool mla = m.mla.enabled();
  // Widths per attention layer: Gemma 4's global and local layers differ (the mean over the
  // layers prices the same FLOPs and bytes); a query gate doubles q_proj's output; values
  // (v_proj's output, o_proj's input) are value_dim_of wide (MiMo-V2: narrower than q and k).
  const double q_out = m.attention_output_gate ? 2.0 : 1.0;
  double kv_elems = gpu_kv_elements_per_token_layer(m, s);
  double n_qkv = (heads * q_out + s.kv_heads) * m.head_dim + s.kv_heads * m.value_dim_of(false);
  // Of n_qkv, the key and value channels (the rest is the query's).
  double mean_kv_width = s.kv_heads * m.head_dim + s.kv_heads * m.value_dim_of(false);
  double n_rope = (heads + s.kv_heads) * m.head_dim;
  double d_o = heads * (mla ? m.mla.v_head_dim : m.value_dim_of(false));
  if (m.mixed_attention_shapes() && L > 0) {
    const double g = m.global_attention_layers(), l = m.local.enabled() ? m.local.layers : 0;
    auto mean = [&](double global, double local) { return (g * global + l * local) / L; };
    // Query heads too may differ by kind (Step-3.5-Flash, Laguna: ModelSpec::global_heads).
    const double h_g = gpu_heads_of(m, s, true), h_l = gpu_heads_of(m, s, false);
    const double kv_g = gpu_kv_heads_of(m, s, true), hd_g = m.head_dim_of(true), vd_g = m.value_dim_of(true);
    const double kv_l = gpu_kv_heads_of(m, s, false), hd_l = m.head_dim_of(false), vd_l = m.value_dim_of(false);
    kv_elems = mean(gpu_kv_elements_per_token_layer(m, s, true), gpu_kv_elements_per_token_layer(m, s, false));
    n_qkv = mean((h_g * q_out + kv_g) * hd_g + (m.global_k_eq_v ? 0.0 : kv_g * vd_g),
                 (h_l * q_out + kv_l) * hd_l + kv_l * vd_l);
    mean_kv_width = mean(kv_g * hd_g + (m.global_k_eq_v ? 0.0 : kv_g * vd_g), kv_l * hd_l + kv_l * vd_l);
    n_rope = mean((h_g + kv_g) * hd_g, (h_l + kv_l) * hd_l);
    d_o = mean(h_g * vd_g, h_l * vd_l);
  }
  // Gemma 4's KV-sharing layers hold no k_proj / v_proj (ModelSpec::kv_shared_layers_hold_kv_proj
  // false): their qkv_proj emits the query alone, so the mean width over the layers drops their
  // key and value channels (the weights the memory plan leaves out are the ones not streamed).
  if (!mla && m.query_rank == 0 && !m.kv_shared_layers_hold_kv_proj && L > 0) {
    auto kv_width = [&](bool global) {
      return gpu_kv_heads_of(m, s, global) *
             (m.head_dim_of(global) + (global && m.global_k_eq_v ? 0.0 : m.value_dim_of(global)));
    };
    n_qkv -= (m.kv_shared_global_layers * kv_width(true) + m.kv_shared_local_layers * kv_width(false)) / L;
  }
  put(elementwise("attn_norm_residual", 2.0 * 4.0 * T * hidden * a * norm_layers, 2.0 * norm_layers,
                  2.0 * 5.0 * T * hidden * norm_layers, T, ElementwiseKind::norm),
      true);
  if (L > 0) {
    if (mla) {
      const double qk = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
      const double q_in = m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : 0.0;
      // Down-projections (q_a, kv_a) replicated; up-projections (q_b, kv_b) split over TP.
      const double replicated = hidden * (q_in + m.mla.kv_lora_rank + m.mla.qk_rope_head_dim);
      // Kimi K3's output gate: g_proj hidden -> heads x v_head_dim, split over TP like q_b.
      const double gate = m.attention_output_gate ? hidden * heads * m.mla.v_head_dim : 0.0;
      const double split = (q_in > 0 ? q_in : hidden) * heads * qk +
                           static_cast<double>(m.mla.kv_lora_rank) * heads * (m.mla.qk_nope_head_dim + m.mla.v_head_dim) +
                           gate;
      const double params = replicated + split;
      put(gemm("qkv_proj", T, hidden, params / hidden, L, w_attention_, a), true);
    } else if (m.query_rank > 0) {
      // Step3's low-rank query: qkv_proj emits query_rank query channels (replicated, whole on
      // every GPU) beside K and V, wq lifts them to this GPU's heads (q_up_proj, split over TP).
      // inter_norm between them (query_rank elements a token) is not priced, as MLA's q_a norm.
      const double r = static_cast<double>(m.query_rank);
      const double q_channels = n_qkv - mean_kv_width;
      put(gemm("qkv_proj", T, hidden, r + mean_kv_width, L, w_attention_, a), true);
      put(gemm("q_up_proj", T, r, q_channels, L, w_attention_, a), true);
    } else {
      // Zamba2's shared blocks read [hidden state; embedding] (SharedBlocks::input_width).
      const double qkv_in = m.shared_blocks.enabled() ? static_cast<double>(m.shared_blocks.input_width) : hidden;
      put(gemm("qkv_proj", T, qkv_in, n_qkv, L, w_attention_, a), true);
    }
    put(elementwise("rope", 2.0 * T * n_rope * a * L, L, 3.0 * T * n_rope * L, T, ElementwiseKind::rope), true);
    // Only the layers that cache KV write it: the KV-sharing layers (Gemma 3n and 4,
    // IQuest-Loop-Coder's later loops) read an earlier layer's and store none.
    double written = kv_elems * L;
    if (m.kv_shared_global_layers + m.kv_shared_local_layers > 0)
      written = m.mixed_attention_shapes()
                    ? m.cached_global_layers() * gpu_kv_elements_per_token_layer(m, s, true) +
                          m.cached_local_layers() * gpu_kv_elements_per_token_layer(m, s, false)
                    : m.cached_attention_layers() * kv_elems;
    OpCost kv_write = elementwise("kv_cache_write", T * written * a, L, 0, T);
    kv_write.kv_bytes = T * written * kv_bytes_;
    put(kv_write, true);
    put(gemm("o_proj", T, d_o, hidden, L, w_attention_, a), true);
  }
}

// The dense MLP of `layers` layers over T tokens (its FFN split over tp). A model whose layers
// differ in width (mlp_widths) prices each width's GEMMs at their own shape, its share of
// `dense_layers` (all of them, or a pipeline stage's) in proportion to its layers, and its
// linear replacements as one hidden x hidden GEMM each, split over tp like the MLP's.
template <typename Put>
void CostModel::dense_mlp_ops(double T, double dense_layers, Put& put) const {
  using ops::elementwise;
  using ops::gemm;
  const double hidden = static_cast<double>(model_.hidden);
  const double a = act_bytes_;
  const double gate_up = model_.gated_mlp ? 2.0 : 1.0;
  auto mlp = [&](double ffn, double layers) {
    put(gemm("mlp_up", T, hidden, gate_up * ffn, layers, w_dense_, a), true);
    put(elementwise("mlp_act", (gate_up + 1.0) * T * ffn * a * layers, layers, 4.0 * T * ffn * layers, T,
                    ElementwiseKind::act),
        true);
    put(gemm("mlp_down", T, ffn, hidden, layers, w_dense_, a), true);
  };
  if (model_.mlp_widths.empty()) {
    mlp(static_cast<double>(shard_.ffn), dense_layers);
    return;
  }
  const double share = model_.dense_mlp_layers() > 0 ? dense_layers / model_.dense_mlp_layers() : 1.0;
  for (const MlpWidthGroup& g : model_.mlp_widths) {
    if (g.linear)
      put(gemm("linear_sublayer", T, hidden, hidden / par_.tp, g.layers * share, w_dense_, a), true);
    else
      mlp(static_cast<double>(g.ffn) / par_.tp, g.layers * share);
  }
}

// The routed experts of `moe_layers` layers on one GPU: `assignments` token-expert
// pairs over its experts, `touched` of which are hit at least once (each touched
// expert's weights are read once); with a latent MoE (Nemotron-3) the experts run at the
// latent width and the T tokens are projected back after them (the projection in:
// tokens_ops).
template <typename Put>
void CostModel::routed_expert_ops(double T, double assignments, double touched, double moe_layers, Put& put) const {
  using ops::elementwise;
  using ops::gemm;
  const double hidden = static_cast<double>(model_.hidden);
  const double width = model_.moe.latent > 0 ? static_cast<double>(model_.moe.latent) : hidden;
  const double a = act_bytes_;
  const double gate_up = model_.gated_mlp ? 2.0 : 1.0;
  const double effn = static_cast<double>(shard_.expert_ffn);
  const double per_expert_m = touched > 0 ? assignments / touched : 0.0;
  OpCost up = gemm("moe_experts_up", per_expert_m, width, gate_up * effn, moe_layers, w_experts_, a);
  up.flops = moe_layers * 2.0 * assignments * width * gate_up * effn;
  up.weight_bytes = moe_layers * touched * width * gate_up * effn * w_experts_;
  up.activation_bytes = moe_layers * assignments * (width + gate_up * effn) * a;
  up.count = 2.0 * moe_layers;  // routing/permute + grouped GEMM
  put(up, true);
  put(elementwise("moe_act", (gate_up + 1.0) * assignments * effn * a * moe_layers, moe_layers,
                  4.0 * assignments * effn * moe_layers, assignments, ElementwiseKind::act),
      true);
  OpCost down = gemm("moe_experts_down", per_expert_m, effn, width, moe_layers, w_experts_, a);
  down.flops = moe_layers * 2.0 * assignments * effn * width;
  down.weight_bytes = moe_layers * touched * effn * width * w_experts_;
  down.activation_bytes = moe_layers * assignments * (effn + width) * a;
  down.count = 2.0 * moe_layers;  // grouped GEMM + weighted combine
  put(down, true);
  if (model_.moe.latent > 0) put(gemm("moe_latent_out", T, width, hidden, moe_layers, w_experts_, a), true);
}

// The shared experts of `moe_layers` layers over T tokens (split over tp).
template <typename Put>
void CostModel::shared_expert_ops(double T, double moe_layers, Put& put) const {
  using ops::gemm;
  const ModelSpec& m = model_;
  const double hidden = static_cast<double>(m.hidden);
  const double gate_up = m.gated_mlp ? 2.0 : 1.0;
  const double sffn = static_cast<double>(m.moe.shared_expert_ffn > 0 ? m.moe.shared_expert_ffn : m.moe.expert_ffn) *
                      m.moe.shared_experts / par_.tp;
  put(gemm("moe_shared_up", T, hidden, gate_up * sffn, moe_layers, w_shared_, act_bytes_), true);
  put(gemm("moe_shared_down", T, sffn, hidden, moe_layers, w_shared_, act_bytes_), true);
}

}  // namespace servesim
