// Weights, state and scan work of the state layers and the DSA indexer (layer_kinds.h).
//
// Gated delta rule (transformers' Qwen3NextGatedDeltaNet; Yang et al., "Gated Delta
// Networks", 2024). Kd = key_heads x key_dim, Vd = heads x head_dim:
//   in_proj_qkvz: hidden -> 2 Kd + 2 Vd (q, k, v and the output gate z); in_proj_ba:
//   hidden -> 2 heads (beta and the decay's a); a depthwise conv over q, k, v (2 Kd + Vd
//   channels, kernel conv_kernel, no bias); dt_bias and A_log per head; a gated RMSNorm of
//   head_dim; out_proj: Vd -> hidden. State per head: a key_dim x head_dim matrix.
//   Decode per head: S^T k (2 dk dv), the rank-1 delta update (2 dk dv), the decay (dk dv)
//   and the read-out S^T q (2 dk dv): 7 dk dv. Prefill in chunks of C (FLA's
//   chunk_gated_delta_rule): per token the state read-out, the chunk's state update and the
//   WY correction (6 dk dv), and the causal intra-chunk products Q K^T and K K^T (C/2 keys
//   of 2 dk each) and their products with values (C/2 of 2 dv each): 2 C (dk + dv).
// Kimi delta attention (KDA; Kimi Team, "Kimi Linear", arXiv 2510.26692; shapes from vLLM's
//   KimiDeltaAttention, vllm/model_executor/layers/kda.py, and for the full-rank gate
//   KimiK3DeltaAttention, vllm/models/kimi_k3/nvidia/kda.py, whose in_proj_qkvgfab fuses
//   q, k, v, g (heads x head_dim each), f_a (head_dim) and b (heads)). P = heads x head_dim:
//   q_proj, k_proj, v_proj: hidden -> P; f_a_proj: hidden -> head_dim, f_b_proj: head_dim -> P
//   (the per-channel forget gate); b_proj: hidden -> heads (beta); the output gate g_proj
//   hidden -> P (full rank) or g_a_proj hidden -> head_dim, g_b_proj head_dim -> P (Kimi
//   Linear); three depthwise convs (q, k, v: 3 P channels, kernel short_conv_kernel_size, no
//   bias); dt_bias (P) and A_log (heads); o_norm over head_dim; o_proj P -> hidden. State per
//   head: head_dim x head_dim, fp32 in vLLM (MambaStateDtypeCalculator.kda_state_dtype), the
//   three conv windows at the activations' precision. Work per token is counted as the gated
//   delta rule's (below): the per-channel decay costs the same dk dv per head in decode; the
//   chunked prefill's extra intra-chunk decay factors (the paper's section 3) are not counted,
//   an approximation.
// Mamba-2 (transformers' NemotronHMamba2Mixer; Dao & Gu, "Transformers are SSMs", 2024).
//   d_inner = heads x head_dim, G N = groups x d_state: in_proj: hidden -> 2 d_inner + 2 G N
//   + heads (z, x, B, C, dt); conv over x, B, C (d_inner + 2 G N channels, with bias when
//   use_conv_bias); dt_bias, A_log, D per head; a gated RMSNorm of d_inner; out_proj. State
//   per head: head_dim x d_state. Decode per head: the decayed state plus dt B x (3 P N) and
//   the read-out C h (2 P N), rounded to 6 P N. Prefill, SSD in chunks of C: per token and
//   group the causal C B^T (C/2 of 2 N), per head (L o C B^T) X (C/2 of 2 P), the chunk
//   states B^T X and their read-out C h (2 P N each): heads (4 P N + C P) + groups C N.
// Mamba (transformers' JambaMambaMixer; Gu & Dao, "Mamba", 2023): in_proj hidden -> 2
//   d_inner (x, z); conv over d_inner (with bias); x_proj d_inner -> dt_rank + 2 N; dt_proj
//   dt_rank -> d_inner (with bias); A_log d_inner x N; D; Jamba's dt/B/C norms (dt_rank + 2
//   N); out_proj. State: d_inner x N. The selective scan costs about 9 d_inner N FLOPs a
//   token (the paper's section 3.3 count: discretisation, the recurrence and the read-out),
//   in prefill and decode alike (it is a scan, not chunked matrix products).
// PLaMo 2's Mamba (vLLM's Plamo2MambaMixer, vllm/model_executor/models/plamo2.py; Preferred
//   Networks' modeling_plamo.py): d_inner = heads x head_dim (mamba_num_heads x
//   hidden_size_per_head); in_proj hidden -> 2 d_inner (gate, x), no bias; a depthwise conv over
//   d_inner (no bias); then, as Mamba does, from the conv's output bcdt_proj d_inner -> dt_rank
//   + 2 N and dt_proj dt_rank -> heads (Mamba-2's one dt per head), no biases; RMSNorms of dt
//   (dt_rank), B and C (N each); A, D and dt_bias per head; out_proj d_inner -> hidden. The gate
//   z enters the scan (no gated-norm weight). The scan is Mamba-2's SSD with one group (B and C
//   shared by the heads; vLLM's state shape n_groups 0 -> one): state per head head_dim x N,
//   work per token as Mamba-2's with key_heads 1.
// Gated short convolution (transformers' Lfm2ShortConv, models/lfm2/modeling_lfm2.py; vLLM's
//   ShortConv, vllm/model_executor/layers/mamba/short_conv.py): in_proj hidden -> 3 hidden
//   (B, C, x), y = C * conv(B * x) with a depthwise causal conv of conv_L_cache taps over the
//   hidden channels, out_proj hidden -> hidden; conv_bias puts a bias on in_proj, the conv and
//   out_proj alike (the three modules take bias=config.conv_bias). No recurrent matrix: the
//   state is the conv's last conv_L_cache - 1 inputs per channel (vLLM's
//   MambaStateShapeCalculator.short_conv_state_shape, vllm-project/vllm@2afe1e8573cf51b73569ae1d35f59078a2032a91:
//   vllm/model_executor/layers/mamba/mamba_utils.py: one conv state of (conv_kernel - 1, hidden / tp),
//   no temporal state; its dtype the model's, MambaStateDtypeCalculator.short_conv_state_dtype). Work per token: the two gate products (B x, C y: 1 FLOP a channel
//   each) and the conv taps, in prefill and decode alike (no chunked products).
// Lightning attention (MiniMax-Text-01's linear layers; Qin et al., "Lightning Attention-2",
//   arXiv 2401.04658; MiniMax, "MiniMax-01", arXiv 2501.08313; shapes from vLLM's
//   MiniMaxText01LinearAttention, vllm/model_executor/models/minimax_text_01.py). P = heads x
//   head_dim: qkv_proj hidden -> 3 P and output_gate hidden -> P (no biases), an RMSNorm over P
//   (MiniMaxText01RMSNormTP), out_proj P -> hidden; the per-head decay (slope_rate) is a fixed
//   ALiBi-style buffer, not a weight; no convolution. State per head: a head_dim x head_dim
//   matrix (vLLM's MambaStateShapeCalculator.linear_attention_state_shape), at the model's dtype
//   (MambaStateDtypeCalculator.linear_attention_state_dtype). Decode per head: the decay and the
//   rank-1 update k^T v (3 dk dv) and the read-out q S (2 dk dv). Prefill in blocks of C
//   (block_size): per token the read-out and the block's state update (4 dk dv) and the causal
//   intra-block products Q K^T and (Q K^T) V (C/2 keys of 2 dk, then of 2 dv): C (dk + dv).
// The short convolution costs 2 x kernel FLOPs per channel and token in every kind.
#include "model/layer_kinds.h"

#include <fmt/format.h>

#include <algorithm>

namespace servesim {

std::int64_t StateLayers::in_proj_width() const {
  const std::int64_t kd = static_cast<std::int64_t>(key_heads) * key_dim;
  switch (kind) {
    case Kind::gated_delta: return 2 * kd + 2 * inner() + 2 * heads;
    // q, k, v, the forget gate (f, or its low-rank f_a), b, and the output gate (g, or its g_a)
    case Kind::kda:
      return 2 * kd + inner() + (full_rank_forget ? inner() : head_dim) + heads + (full_rank_gate ? inner() : head_dim);
    case Kind::mamba2: return 2 * inner() + 2 * kd + heads;
    case Kind::mamba1:
    case Kind::mamba2_bcdt: return 2 * inner();
    case Kind::short_conv: return 3 * inner();  // B, C, x
    case Kind::lightning: return 4 * inner();   // q, k, v and the output gate
    case Kind::none: break;
  }
  return 0;
}

std::int64_t StateLayers::mid_params() const {
  // KDA: f_b_proj head_dim -> P and g_b_proj head_dim -> P, each only with its low-rank gate.
  if (kind == Kind::kda)
    return ((full_rank_forget ? 0 : 1) + (full_rank_gate ? 0 : 1)) * static_cast<std::int64_t>(head_dim) * inner();
  // PLaMo 2: bcdt_proj d_inner -> dt_rank + 2 N, dt_proj dt_rank -> heads (no bias).
  if (kind == Kind::mamba2_bcdt) return inner() * (dt_rank + 2LL * key_dim) + static_cast<std::int64_t>(dt_rank) * heads;
  if (kind != Kind::mamba1) return 0;
  return inner() * (dt_rank + 2LL * key_dim) + static_cast<std::int64_t>(dt_rank) * inner() + inner();
}

std::int64_t StateLayers::conv_channels() const {
  const std::int64_t kd = static_cast<std::int64_t>(key_heads) * key_dim;
  switch (kind) {
    case Kind::gated_delta:
    case Kind::kda: return 2 * kd + inner();
    case Kind::mamba2: return inner() + 2 * kd;
    case Kind::mamba1:
    case Kind::mamba2_bcdt:
    case Kind::short_conv: return inner();
    case Kind::lightning:  // no convolution
    case Kind::none: break;
  }
  return 0;
}

std::int64_t StateLayers::params_per_layer(std::int64_t hidden) const {
  if (kind == Kind::none) return 0;
  const std::int64_t conv = conv_channels() * conv_kernel + (conv_bias ? conv_channels() : 0);
  std::int64_t small = 0;
  switch (kind) {
    case Kind::gated_delta: small = 2LL * heads + head_dim; break;   // dt_bias, A_log; norm over head_dim
    case Kind::kda: small = inner() + heads + head_dim; break;       // dt_bias (per channel), A_log; o_norm
    case Kind::mamba2: small = 3LL * heads + inner(); break;         // dt_bias, A_log, D; norm over d_inner
    case Kind::mamba1: small = inner() * key_dim + inner() + dt_rank + 2LL * key_dim; break;  // A_log, D, dt/B/C norms
    case Kind::mamba2_bcdt: small = 3LL * heads + dt_rank + 2LL * key_dim; break;  // A, D, dt_bias; dt/B/C norms
    case Kind::short_conv: small = conv_bias ? in_proj_width() + hidden : 0; break;  // in_proj and out_proj biases
    case Kind::lightning: small = inner(); break;  // the RMSNorm over heads x head_dim
    case Kind::none: break;
  }
  return hidden * in_proj_width() + mid_params() + conv + small + inner() * hidden;
}

std::int64_t StateLayers::state_elements() const {
  switch (kind) {
    case Kind::gated_delta:
    case Kind::kda:
    case Kind::mamba2:
    case Kind::mamba2_bcdt:
    case Kind::lightning: return static_cast<std::int64_t>(heads) * head_dim * key_dim;
    case Kind::mamba1: return inner() * key_dim;
    case Kind::short_conv:  // the conv window only (conv_state_elements)
    case Kind::none: break;
  }
  return 0;
}

std::int64_t StateLayers::conv_state_elements() const { return conv_channels() * (conv_kernel - 1); }

double StateLayers::prefill_flops_per_token() const {
  const double dk = key_dim, dv = head_dim, c = chunk, h = heads;
  const double conv = 2.0 * conv_kernel * static_cast<double>(conv_channels());
  switch (kind) {
    case Kind::gated_delta:
    case Kind::kda: return h * (6.0 * dk * dv + 2.0 * c * (dk + dv)) + conv;
    case Kind::mamba2: return h * (4.0 * dv * dk + c * dv) + key_heads * c * dk + conv;
    case Kind::mamba2_bcdt: return h * (4.0 * dv * dk + c * dv) + c * dk + conv;  // one group
    case Kind::mamba1: return 9.0 * static_cast<double>(inner()) * dk + conv;
    case Kind::short_conv: return 2.0 * static_cast<double>(inner()) + conv;
    case Kind::lightning: return h * (4.0 * dk * dv + c * (dk + dv));
    case Kind::none: break;
  }
  return 0.0;
}

double StateLayers::decode_flops_per_token() const {
  const double dk = key_dim, dv = head_dim, h = heads;
  const double conv = 2.0 * conv_kernel * static_cast<double>(conv_channels());
  switch (kind) {
    case Kind::gated_delta:
    case Kind::kda: return h * 7.0 * dk * dv + conv;
    case Kind::mamba2:
    case Kind::mamba2_bcdt: return h * 6.0 * dv * dk + conv;
    case Kind::mamba1: return 9.0 * static_cast<double>(inner()) * dk + conv;
    case Kind::short_conv: return 2.0 * static_cast<double>(inner()) + conv;
    case Kind::lightning: return h * 5.0 * dk * dv;
    case Kind::none: break;
  }
  return 0.0;
}

std::string StateLayers::kind_name() const {
  switch (kind) {
    case Kind::gated_delta: return "gated delta rule";
    case Kind::kda: return "Kimi delta attention";
    case Kind::mamba2: return "Mamba-2";
    case Kind::mamba1: return "Mamba";
    case Kind::mamba2_bcdt: return "Mamba-2 with B, C and dt from the convolution (PLaMo 2)";
    case Kind::short_conv: return "gated short convolution";
    case Kind::lightning: return "lightning attention";
    case Kind::none: break;
  }
  return "none";
}

std::string StateLayers::describe() const {
  if (!enabled()) return "none";
  if (kind == Kind::mamba1)
    return fmt::format("{} on {} layers (d_inner {} x d_state {} state)", kind_name(), layers, inner(), key_dim);
  if (kind == Kind::short_conv)
    return fmt::format("{} on {} layers ({} channels, {} taps; state: the last {} inputs)", kind_name(), layers,
                       inner(), conv_kernel, conv_kernel - 1);
  return fmt::format("{} on {} layers ({} heads of {} x {} state)", kind_name(), layers, heads, key_dim, head_dim);
}

std::int64_t SparseIndexer::params_per_layer(std::int64_t hidden, std::int64_t q_lora_rank) const {
  const std::int64_t width = static_cast<std::int64_t>(heads) * head_dim;
  const std::int64_t q_in = q_lora_rank > 0 ? q_lora_rank : hidden;
  const std::int64_t pool =
      key_pool > 1 && !pool_when_scoring ? static_cast<std::int64_t>(key_pool) * head_dim + head_dim * hidden : 0;
  return q_in * width + hidden * head_dim + 2LL * head_dim + (head_weights ? hidden * heads : 0) + pool;
}

// DeepSeek-V4 (layer_kinds.h CompressedAttention; shapes from inference/model.py).
std::int64_t CompressedAttention::base_params(std::int64_t hidden, int heads) const {
  // wq_a, q_norm, wkv, kv_norm and the sinks beside the TP-split wq_b, wo_a and wo_b.
  return hidden * q_lora_rank + q_lora_rank + hidden * head_dim + head_dim + heads +
         split_params_per_layer(hidden, heads);
}

std::int64_t CompressedAttention::split_params_per_layer(std::int64_t hidden, int heads) const {
  const std::int64_t width = static_cast<std::int64_t>(heads) * head_dim;
  const std::int64_t groups_rank = static_cast<std::int64_t>(o_groups) * o_lora_rank;
  // wq_b: q_lora_rank -> heads x head_dim; wo_a: o_groups blocks of (width / o_groups) ->
  // o_lora_rank, i.e. width x o_lora_rank; wo_b: o_groups x o_lora_rank -> hidden.
  return static_cast<std::int64_t>(q_lora_rank) * width + width * o_lora_rank + groups_rank * hidden;
}

std::int64_t CompressedAttention::compressor_params(std::int64_t hidden, int ratio, int width) const {
  const std::int64_t coff = ratio == kIndexedRatio ? 2 : 1;
  return 2 * hidden * coff * width + static_cast<std::int64_t>(ratio) * coff * width + width;  // wkv, wgate; ape; norm
}

std::int64_t CompressedAttention::indexer_params(std::int64_t hidden) const {
  return static_cast<std::int64_t>(q_lora_rank) * indexer.heads * indexer.head_dim + hidden * indexer.heads +
         compressor_params(hidden, kIndexedRatio, indexer.head_dim);
}

std::int64_t CompressedAttention::params(std::int64_t hidden, int heads) const {
  return static_cast<std::int64_t>(layers()) * base_params(hidden, heads) +
         static_cast<std::int64_t>(indexed_layers) *
             (compressor_params(hidden, kIndexedRatio, head_dim) + indexer_params(hidden)) +
         static_cast<std::int64_t>(dense_layers) * compressor_params(hidden, kDenseRatio, head_dim);
}

std::int64_t CompressedAttention::bf16_params(std::int64_t hidden) const {
  return static_cast<std::int64_t>(indexed_layers) *
             (compressor_params(hidden, kIndexedRatio, head_dim) + compressor_params(hidden, kIndexedRatio, indexer.head_dim) +
              hidden * indexer.heads) +
         static_cast<std::int64_t>(dense_layers) * compressor_params(hidden, kDenseRatio, head_dim);
}

double CompressedAttention::window_pairs_through(std::int64_t p) const {
  const double q = static_cast<double>(p), w = window;
  if (p <= window) return q * (q + 1.0) / 2.0;
  return w * (w + 1.0) / 2.0 + (q - w) * w;
}

// sum_{q=1}^{p} floor(q / r): with p = n r + s (0 <= s < r), the values j = 1 .. n-1 each r
// times and n for the last s + 1 positions: r n (n - 1) / 2 + n (s + 1).
double CompressedAttention::compressed_pairs_through(std::int64_t p, int ratio) {
  if (p <= 0) return 0.0;
  const double n = static_cast<double>(p / ratio), s = static_cast<double>(p % ratio);
  return ratio * n * (n - 1.0) / 2.0 + n * (s + 1.0);
}

// min(topk, floor(q/4)) reaches topk at q = 4 topk; from there on each position adds topk.
double CompressedAttention::indexed_pairs_through(std::int64_t p) const {
  const std::int64_t cap = static_cast<std::int64_t>(kIndexedRatio) * indexer.topk;  // first q with floor(q/4) = topk
  if (p < cap) return compressed_pairs_through(p, kIndexedRatio);
  return compressed_pairs_through(cap - 1, kIndexedRatio) + static_cast<double>(p - cap + 1) * indexer.topk;
}

double CompressedAttention::kv_bytes_per_sequence(std::int64_t ctx, double entry_bytes) const {
  const double entry = head_dim * entry_bytes;
  return static_cast<double>(layers()) * static_cast<double>(window_keys(ctx)) * entry +
         static_cast<double>(indexed_layers) * static_cast<double>(index_keys(ctx)) * (entry + indexer.key_bytes()) +
         static_cast<double>(dense_layers) * static_cast<double>(dense_keys(ctx)) * entry;
}

double CompressedAttention::compressed_bytes_per_token(double entry_bytes) const {
  const double entry = head_dim * entry_bytes;
  return indexed_layers * (entry + indexer.key_bytes()) / kIndexedRatio + dense_layers * entry / kDenseRatio;
}

double CompressedAttention::window_bytes_per_sequence(double entry_bytes) const {
  return static_cast<double>(layers()) * window * head_dim * entry_bytes;
}

// kv_state and score_state: 2 x (coff r) x (coff width) fp32 per compressor.
double CompressedAttention::compressor_state_bytes_per_sequence() const {
  auto state = [](int ratio, int width) {
    const double coff = ratio == kIndexedRatio ? 2.0 : 1.0;
    return 2.0 * coff * ratio * coff * width * 4.0;
  };
  return indexed_layers * (state(kIndexedRatio, head_dim) + state(kIndexedRatio, indexer.head_dim)) +
         dense_layers * state(kDenseRatio, head_dim);
}

std::string CompressedAttention::describe() const {
  if (!enabled()) return "none";
  return fmt::format("compressed attention (DeepSeek-V4) on {} layers: a {}-token window on all, KV compressed {}x "
                     "with an indexer reading the top {} on {}, {}x on {}, the window only on {}",
                     layers(), window, kIndexedRatio, indexer.topk, indexed_layers, kDenseRatio, dense_layers,
                     window_layers);
}

}  // namespace servesim

namespace servesim {

// transformers' Gemma3nTextAltUp (modality_router hidden -> n, router_norm, prediction_coefs
// n -> n^2, correction_coefs n -> n, correct_output_scale), Gemma3nTextLaurelBlock
// (linear_left, linear_right, post_laurel_norm) and the decoder layer's
// per_layer_input_gate, per_layer_projection and post_per_layer_input_norm.
std::int64_t Gemma3nParts::params_per_layer(std::int64_t hidden) const {
  const std::int64_t n = altup_streams;
  const std::int64_t altup = n > 0 ? hidden * n + hidden + n * n * n + n * n + hidden : 0;
  const std::int64_t laurel = laurel_rank > 0 ? 2 * hidden * laurel_rank + hidden : 0;
  const std::int64_t ple = ple_width > 0 ? 2 * hidden * ple_width + hidden : 0;
  return altup + laurel + ple;
}

// Gemma3nTextModel: altup_projections and altup_unembed_projections (n - 1 each, hidden x
// hidden), per_layer_model_projection (hidden -> layers x w) and per_layer_projection_norm (w).
std::int64_t Gemma3nParts::model_params(std::int64_t hidden, int layers) const {
  const std::int64_t altup = altup_streams > 1 ? 2LL * (altup_streams - 1) * hidden * hidden : 0;
  const std::int64_t ple = ple_width > 0 ? hidden * layers * ple_width + ple_width : 0;
  return altup + ple;
}

std::int64_t Gemma3nParts::matmul_params(std::int64_t hidden, int layers) const {
  const std::int64_t per_layer = hidden * altup_streams + 2 * hidden * laurel_rank + 2 * hidden * ple_width;
  const std::int64_t altup = altup_streams > 1 ? 2LL * (altup_streams - 1) * hidden * hidden : 0;
  return per_layer * layers + altup + hidden * layers * ple_width;
}

}  // namespace servesim
