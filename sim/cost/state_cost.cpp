// The cost of the layer kinds of layer_kinds.h, as CostModel ops.
//
// State layers (gated delta rule, Mamba-2, Mamba), per step, on state.layers layers:
//   with the tokens  state_in_proj   GEMM hidden -> in_proj_width / tp (heads split over TP)
//                    state_x_dt_proj Mamba's x_proj + dt_proj (GEMM from d_inner)
//                    state_conv      the short causal convolution: its inputs read, outputs written
//                    state_gate_norm the gated RMSNorm of the output (read y and z, write); the short
//                                    convolution has no norm but two gate products instead
//                                    (state_gates: B x before the conv, C y after, each reading
//                                    two inputs and writing one; their FLOPs are in the scan's)
//                    state_out_proj  GEMM inner / tp -> hidden
//   with the batch   state_scan_prefill  the chunked scan of a prefill (chunk): its FLOPs per
//                                        token (layer_kinds.cpp), the scan's inputs and
//                                        outputs, and the sequence's state read once and
//                                        written once per chunk
//                    state_update_decode one update per decoding sequence: the state read and
//                                        written, whatever the context length
// The state is the cache traffic of these layers (OpCost::kv_bytes), at the state's own
// precision (mamba_ssm_cache_dtype; its conv part at the activations').
//
// DSA's lightning indexer (DeepSeek-V3.2), on every top-k layer (all with DSA, MiniMax-M3's
// sparse ones: its MSA index, 16-bit keys and no head weights), replicated on every GPU
// (its top-k must see all heads):
//   with the tokens  dsa_indexer_proj  its query, key and head-weight projections; the key
//                                      written to its cache (fp8 + scale, any KV precision)
//   with the batch   dsa_indexer       scores of every query against every earlier key in
//                                      fp8 (2 x heads x head_dim FLOPs a pair, DeepGEMM's
//                                      fp8_mqa_logits), the cached keys read, the selected
//                                      top-k indices written (4 bytes each)
// while the main attention reads only the selected keys (LocalAttention::Kind::topk).
//
// DeepSeek-V4's compressed attention (layer_kinds.h CompressedAttention), on its layers:
//   with the tokens  v4_attn_proj     wq_a and wkv (replicated), wq_b, wo_a, wo_b (split over TP):
//                                     2 T x their weights; weights at the attention group's bytes
//                    v4_compressor    the compressors' wkv and wgate (bf16, replicated) of the
//                                     compressed layers and of the indexers
//                    v4_indexer_proj  the indexer's query and head-weight projections (split over TP)
//                    v4_kv_write      the window's entry per token and layer, a compressed entry
//                                     per ratio tokens, the indexer's key per 4 (fp8 + scale)
//   with the batch   v4_attention_*   each query's heads (split over TP) against the entries it
//                                     reads, head_dim wide for scores and values alike (one KV
//                                     head: K = V, as MLA's latent): 2 heads (2 head_dim) FLOPs a
//                                     pair; the entries read once per sequence and layer
//                    v4_indexer_*     the indexer's fp8 scores of every compressed key (2 x index
//                                     heads x index head_dim a pair, heads split over TP), its
//                                     keys read, the top-k indices written
// The batch's sums per layer kind are derived from its aggregate sums (a BatchSummary keeps
// sums over sequences, not each length; the engines' decode fast paths give only the
// sequences and their total context): for decode with n sequences at mean position p =
// decode_kv_tokens / n, n min(p, window) window entries, n min(topk, p / 4) indexed entries,
// decode_kv_tokens / 128 dense entries and decode_kv_tokens / 4 scored keys; for prefill, the
// S chunks as S chunks of the mean length after the mean cached context, each summed exactly
// over its positions (layer_kinds.cpp closed forms). Exact (up to the floor of p / ratio in
// decode) for sequences of one length; with mixed decode lengths the two min() terms are upper
// bounds (Jensen: the min of the mean is at least the mean of the min).
//
// Hyper-connections (ModelSpec::hc_mult, DeepSeek-V4's Block.hc_pre / hc_post), before and
// after each sublayer: hc_mix, the mix weights from the flattened streams (a GEMM of
// hc x hidden -> (2 + hc) hc, fp32 weights, replicated); hc_streams, the streams' traffic as
// vLLM fuses one sublayer's hc_post with the next one's hc_pre (MHCFusedPostPreOp,
// vllm/model_executor/models/deepseek_v4.py): the sublayer's output and the hc streams read,
// the new hc streams and the next sublayer's input written, (2 hc + 2) x hidden a token.
#include <algorithm>
#include <cmath>

#include "cost/step_cost.h"

namespace servesim {
namespace {

OpCost state_gemm(const char* name, double M, double K, double N, double reps, double w, double a) {
  OpCost op;
  op.name = name;
  op.kind = OpKind::gemm;
  op.count = reps;
  op.m_tokens = M;
  op.flops = reps * 2.0 * M * K * N;
  op.weight_bytes = reps * K * N * w;
  op.activation_bytes = reps * (M * K + M * N) * a;
  return op;
}

OpCost state_elementwise(const char* name, double bytes, double kernels, double flops, double tokens,
                         ElementwiseKind kind = ElementwiseKind::other) {
  OpCost op;
  op.name = name;
  op.kind = OpKind::elementwise;
  op.m_tokens = tokens;
  op.elementwise_kind = kind;
  op.count = kernels;
  op.activation_bytes = bytes;
  op.flops = flops;
  return op;
}

}  // namespace

void CostModel::state_token_ops(double T, CostPart& part, std::vector<OpCost>* ops) const {
  const ModelSpec& m = model_;
  const double hidden = static_cast<double>(m.hidden);
  const double a = act_bytes_;
  auto put = [&](OpCost op) { emit(op, true, part, ops); };
  if (m.state.enabled()) {
    const StateLayers& st = m.state;
    const double Ls = st.layers, tp = par_.tp;
    const double inner = static_cast<double>(st.inner()) / tp;
    const double channels = static_cast<double>(st.conv_channels()) / tp;
    put(state_gemm("state_in_proj", T, hidden, static_cast<double>(st.in_proj_width()) / tp, Ls, w_state_, a));
    if (st.mid_params() > 0)
      put(state_gemm("state_x_dt_proj", T, inner, static_cast<double>(st.mid_params()) / st.inner(), Ls, w_state_, a));
    // Lightning attention has no convolution (conv_channels() 0): no launches to price.
    if (channels > 0)
      put(state_elementwise("state_conv", 2.0 * T * channels * a * Ls, Ls, 2.0 * st.conv_kernel * T * channels * Ls, T));
    if (st.kind == StateLayers::Kind::short_conv)
      put(state_elementwise("state_gates", 6.0 * T * inner * a * Ls, 2.0 * Ls, 0.0, T));
    else
      put(state_elementwise("state_gate_norm", 3.0 * T * inner * a * Ls, Ls, 5.0 * T * inner * Ls, T,
                            ElementwiseKind::norm));
    put(state_gemm("state_out_proj", T, inner, hidden, Ls, w_state_, a));
  }
  if (m.indexer.enabled()) {
    const double La = m.indexer_layers();
    const double params = static_cast<double>(m.indexer.params_per_layer(m.hidden, m.mla.q_lora_rank));
    put(state_gemm("dsa_indexer_proj", T, hidden, params / hidden, La, w_attention_, a));
    OpCost write = state_elementwise("dsa_index_key_write", T * m.indexer.head_dim * a * La, La, 0, T);
    write.kv_bytes = T * m.indexer.key_bytes() * La;
    put(write);
  }
  if (m.compressed.enabled()) {
    const CompressedAttention& c = m.compressed;
    const double tp = par_.tp;
    const double L = c.layers(), Lc = c.indexed_layers + c.dense_layers;
    const double split = static_cast<double>(c.split_params_per_layer(m.hidden, m.heads));
    const double per_layer = static_cast<double>(c.base_params(m.hidden, m.heads)) - split + split / tp;
    put(state_gemm("v4_attn_proj", T, hidden, per_layer / hidden, L, w_attention_, a));
    if (Lc > 0) {
      const double compressors =
          static_cast<double>(c.bf16_params(m.hidden) - static_cast<std::int64_t>(c.indexed_layers) * m.hidden * c.indexer.heads);
      put(state_gemm("v4_compressor", T, hidden, compressors / Lc / hidden, Lc, 2.0, a));
    }
    if (c.indexed_layers > 0) {
      const double iq = static_cast<double>(c.q_lora_rank) * c.indexer.heads * c.indexer.head_dim / tp;
      const double iw = hidden * c.indexer.heads / tp;
      put(state_gemm("v4_indexer_proj", T, hidden, (iq + iw) / hidden, c.indexed_layers, w_attention_, a));
    }
    const double entry = c.head_dim * kv_bytes_;
    OpCost write = state_elementwise("v4_kv_write", T * c.head_dim * a * L, L, 0, T);
    write.kv_bytes = T * (entry * L + c.compressed_bytes_per_token(kv_bytes_));
    put(write);
  }
  if (m.rel.enabled()) {
    // Inkling: r_proj on every attention layer (split over TP with the heads), and the four
    // convolutions, each reading its input and writing its output (kernel taps of FLOPs a value).
    const double La = m.attention_layers(), tp = par_.tp;
    put(state_gemm("rel_proj", T, hidden, static_cast<double>(m.heads) * m.rel.d_rel / tp, La, w_attention_, a));
    if (m.rel.sconv_kernel > 0) {
      const double local = m.local.enabled() ? m.local.layers : 0.0;
      const double kv = (local * m.kv_heads_of(false) + (La - local) * m.kv_heads_of(true)) / La;  // mean over the kinds
      const double channels = (2.0 * kv * m.head_dim + 2.0 * hidden) / tp;
      put(state_elementwise("short_convs", 2.0 * T * channels * a * La, 4.0 * La, 2.0 * m.rel.sconv_kernel * T * channels * La,
                            T));
    }
  }
  if (m.ple.enabled()) {
    const PleNgram& p = m.ple;
    const double wide = p.streams * hidden, embed = static_cast<double>(p.embed_dim);
    // The rows a token gathers (at the table's bytes: 16-bit, or fp8 where the checkpoint
    // converts it) and E written.
    const double row_bytes = p.table_bytes > 0 ? p.table_bytes : a;
    put(state_elementwise("ple_gather", T * (p.lookups * static_cast<double>(p.width) * row_bytes + embed * a), 1, 0, T));
    put(state_gemm("ple_proj", T, embed, wide + hidden, 1, w_attention_, a));  // key_proj and value_proj
    // Three grouped norms, the gate and the convolution over the wide streams: each reads and
    // writes a wide vector; the convolution also reads its (kernel - 1) x dilation inputs.
    put(state_elementwise("ple_mix", T * (8.0 + (p.conv_kernel - 1.0) * p.conv_dilation) * wide * a, 4,
                          (12.0 + 2.0 * p.conv_kernel) * T * wide, T));
  }
  if (m.hc_mult > 0) {
    const double h = m.hc_mult, sub = 2.0 * m.layers, mix = static_cast<double>(m.hc_mix_rows());
    put(state_gemm("hc_mix", T, h * hidden, mix, sub, m.hc_weight_bytes(), a));
    put(state_elementwise("hc_streams", (2.0 * h + 2.0) * hidden * T * a * sub, sub,
                          (4.0 * h + h * h) * hidden * T * sub, T));
  }
}

void CostModel::state_batch_ops(const BatchSummary& b, CostPart& part, std::vector<OpCost>* ops) const {
  const ModelSpec& m = model_;
  const double a = act_bytes_;
  auto put = [&](OpCost op) { emit(op, true, part, ops); };
  if (m.state.enabled()) {
    const StateLayers& st = m.state;
    const double Ls = st.layers, tp = par_.tp;
    // Lightning attention's scan reads q, k and v straight from its projection (no convolution).
    const double scan_in = st.kind == StateLayers::Kind::lightning ? 3.0 * static_cast<double>(st.inner())
                                                                   : static_cast<double>(st.conv_channels());
    const double io = (scan_in + static_cast<double>(st.inner())) / tp * a;  // scan inputs + outputs per token
    const double state = (static_cast<double>(st.state_elements()) * dtype_bytes(st.state_dtype) +
                          static_cast<double>(st.conv_state_elements()) * a) /
                         tp;  // one sequence's state in one layer, on this GPU
    auto scan = [&](const char* name, double tokens, double seqs, double flops_per_token) {
      OpCost op;
      op.name = name;
      op.kind = OpKind::attention;
      op.count = Ls;
      op.flops = tokens * flops_per_token / tp * Ls;
      op.activation_bytes = tokens * io * Ls;
      op.kv_bytes = 2.0 * seqs * state * Ls;  // read and written once
      put(op);
    };
    if (b.prefill_seqs > 0)
      scan("state_scan_prefill", static_cast<double>(b.prefill_tokens), static_cast<double>(b.prefill_seqs),
           st.prefill_flops_per_token());
    if (b.decode_seqs > 0)
      scan("state_update_decode", static_cast<double>(b.decode_seqs), static_cast<double>(b.decode_seqs),
           st.decode_flops_per_token());
  }
  if (m.indexer.enabled()) {
    const double La = m.indexer_layers();
    // A query scores one key per pool of key_pool tokens (GLM-5.3-Flash's KPool; Qwen's QSA,
    // which reads a raw key a token and means them a pool: key_bytes() says which).
    const double per_pair = 2.0 * m.indexer.heads * m.indexer.head_dim / m.indexer.key_pool;
    const double key = m.indexer.key_bytes();
    auto index = [&](const char* name, double queries, double pairs, double keys_read) {
      OpCost op;
      op.name = name;
      op.kind = OpKind::attention;
      op.fp8_math = m.indexer.key_fp8;  // MiniMax-M3's 16-bit index keys score in 16 bits
      op.count = La;
      op.flops = per_pair * pairs * La;
      // The index queries (fp8, or 16-bit with MiniMax-M3's keys) read, the picks written (4 B each).
      const double q_bytes = m.indexer.key_fp8 ? 1.0 : 2.0;
      op.activation_bytes = queries * (m.indexer.heads * m.indexer.head_dim * q_bytes + 4.0 * m.indexer.selected()) * La;
      op.kv_bytes = keys_read * key * La;
      put(op);
    };
    if (b.prefill_seqs > 0) index("dsa_indexer_prefill", static_cast<double>(b.prefill_tokens), b.prefill_pairs, b.prefill_kv_tokens);
    if (b.decode_seqs > 0) index("dsa_indexer_decode", static_cast<double>(b.decode_seqs), b.decode_kv_tokens, b.decode_kv_tokens);
  }
  if (m.compressed.enabled()) compressed_batch_ops(b, part, ops);
}

CompressedWork compressed_work(const CompressedAttention& c, const BatchSummary& b, bool prefill) {
  CompressedWork w;
  const double win = c.window, topk = c.indexer.topk;
  const double r4 = CompressedAttention::kIndexedRatio, r128 = CompressedAttention::kDenseRatio;
  if (prefill) {
    // The S chunks as S chunks of the mean length n after the mean cached context c0, each
    // summed exactly over its positions c0 + 1 .. c0 + n.
    const double T = static_cast<double>(b.prefill_tokens), S = static_cast<double>(b.prefill_seqs);
    const std::int64_t n = std::max<std::int64_t>(1, std::llround(T / S));
    const std::int64_t c0 = std::max<std::int64_t>(0, std::llround((b.prefill_kv_tokens - T) / S));
    const std::int64_t end = c0 + n;
    w.queries = T;
    w.window_pairs = S * (c.window_pairs_through(end) - c.window_pairs_through(c0));
    w.indexed_pairs = S * (c.indexed_pairs_through(end) - c.indexed_pairs_through(c0));
    w.dense_pairs = S * (CompressedAttention::compressed_pairs_through(end, CompressedAttention::kDenseRatio) -
                         CompressedAttention::compressed_pairs_through(c0, CompressedAttention::kDenseRatio));
    w.scored_pairs = S * (CompressedAttention::compressed_pairs_through(end, CompressedAttention::kIndexedRatio) -
                          CompressedAttention::compressed_pairs_through(c0, CompressedAttention::kIndexedRatio));
    // From the first query's window start; any compressed entry may be among the selected.
    w.window_read = S * static_cast<double>(std::min<std::int64_t>(end, n + c.window - 1));
    w.indexed_read = w.scored_read = S * static_cast<double>(CompressedAttention::index_keys(end));
    w.dense_read = S * static_cast<double>(CompressedAttention::dense_keys(end));
  } else {
    const double n = static_cast<double>(b.decode_seqs), K = b.decode_kv_tokens;
    const double p = n > 0 ? K / n : 0.0;  // mean position of the new tokens
    w.queries = n;
    w.window_pairs = w.window_read = n * std::min(p, win);
    w.indexed_pairs = w.indexed_read = n * std::min(topk, p / r4);
    w.dense_pairs = w.dense_read = K / r128;
    w.scored_pairs = w.scored_read = K / r4;
  }
  return w;
}

void CostModel::compressed_batch_ops(const BatchSummary& b, CostPart& part, std::vector<OpCost>* ops) const {
  const CompressedAttention& c = model_.compressed;
  const double a = act_bytes_, tp = par_.tp;
  const double heads = shard_.heads;
  const double L = c.layers(), Li = c.indexed_layers, Ld = c.dense_layers;
  auto put = [&](OpCost op) { emit(op, true, part, ops); };
  auto attend = [&](const char* name, const char* index_name, const CompressedWork& w) {
    OpCost op;
    op.name = name;
    op.kind = OpKind::attention;
    op.count = L;
    const double pairs = L * w.window_pairs + Li * w.indexed_pairs + Ld * w.dense_pairs;
    const double read = L * w.window_read + Li * w.indexed_read + Ld * w.dense_read;
    op.flops = 2.0 * heads * (2.0 * c.head_dim) * pairs;
    op.activation_bytes = w.queries * heads * 2.0 * c.head_dim * a * L;
    op.kv_bytes = read * c.head_dim * kv_bytes_;
    put(op);
    if (Li > 0) {
      OpCost ix;
      ix.name = index_name;
      ix.kind = OpKind::attention;
      ix.fp8_math = true;
      ix.count = Li;
      ix.flops = 2.0 * c.indexer.heads * c.indexer.head_dim / tp * w.scored_pairs * Li;
      ix.activation_bytes = w.queries * (c.indexer.heads * c.indexer.head_dim / tp + 4.0 * c.indexer.topk) * Li;
      ix.kv_bytes = w.scored_read * c.indexer.key_bytes() * Li;
      put(ix);
    }
  };
  if (b.prefill_seqs > 0) attend("v4_attention_prefill", "v4_indexer_prefill", compressed_work(c, b, true));
  if (b.decode_seqs > 0) attend("v4_attention_decode", "v4_indexer_decode", compressed_work(c, b, false));
}

}  // namespace servesim
