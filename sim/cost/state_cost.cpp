// The cost of the layer kinds of layer_kinds.h, as CostModel ops.
//
// State layers (gated delta rule, Mamba-2, Mamba), per step, on state.layers layers:
//   with the tokens  state_in_proj   GEMM hidden -> in_proj_width / tp (heads split over TP)
//                    state_x_dt_proj Mamba's x_proj + dt_proj (GEMM from d_inner)
//                    state_conv      the short causal convolution: its inputs read, outputs written
//                    state_gate_norm the gated RMSNorm of the output (read y and z, write)
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
// DSA's lightning indexer (DeepSeek-V3.2), on every attention layer, replicated on every GPU
// (its top-k must see all heads):
//   with the tokens  dsa_indexer_proj  its query, key and head-weight projections; the key
//                                      written to its cache (fp8 + scale, any KV precision)
//   with the batch   dsa_indexer       scores of every query against every earlier key in
//                                      fp8 (2 x heads x head_dim FLOPs a pair, DeepGEMM's
//                                      fp8_mqa_logits), the cached keys read, the selected
//                                      top-k indices written (4 bytes each)
// while the main attention reads only the selected keys (LocalAttention::Kind::topk).
#include <algorithm>

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
    put(state_elementwise("state_conv", 2.0 * T * channels * a * Ls, Ls, 2.0 * st.conv_kernel * T * channels * Ls, T));
    put(state_elementwise("state_gate_norm", 3.0 * T * inner * a * Ls, Ls, 5.0 * T * inner * Ls, T,
                          ElementwiseKind::norm));
    put(state_gemm("state_out_proj", T, inner, hidden, Ls, w_state_, a));
  }
  if (m.indexer.enabled()) {
    const double La = m.attention_layers();
    const double params = static_cast<double>(m.indexer.params_per_layer(m.hidden, m.mla.q_lora_rank));
    put(state_gemm("dsa_indexer_proj", T, hidden, params / hidden, La, w_attention_, a));
    OpCost write = state_elementwise("dsa_index_key_write", T * m.indexer.head_dim * a * La, La, 0, T);
    write.kv_bytes = T * m.indexer.key_bytes() * La;
    put(write);
  }
}

void CostModel::state_batch_ops(const BatchSummary& b, CostPart& part, std::vector<OpCost>* ops) const {
  const ModelSpec& m = model_;
  const double a = act_bytes_;
  auto put = [&](OpCost op) { emit(op, true, part, ops); };
  if (m.state.enabled()) {
    const StateLayers& st = m.state;
    const double Ls = st.layers, tp = par_.tp;
    const double io = static_cast<double>(st.conv_channels() + st.inner()) / tp * a;  // scan inputs + outputs per token
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
    const double La = m.attention_layers();
    const double per_pair = 2.0 * m.indexer.heads * m.indexer.head_dim;
    const double key = m.indexer.key_bytes();
    auto index = [&](const char* name, double queries, double pairs, double keys_read) {
      OpCost op;
      op.name = name;
      op.kind = OpKind::attention;
      op.fp8_math = true;
      op.count = La;
      op.flops = per_pair * pairs * La;
      op.activation_bytes = queries * (m.indexer.heads * m.indexer.head_dim + 4.0 * m.indexer.topk) * La;
      op.kv_bytes = keys_read * key * La;
      put(op);
    };
    if (b.prefill_seqs > 0) index("dsa_indexer_prefill", static_cast<double>(b.prefill_tokens), b.prefill_pairs, b.prefill_kv_tokens);
    if (b.decode_seqs > 0) index("dsa_indexer_decode", static_cast<double>(b.decode_seqs), b.decode_kv_tokens, b.decode_kv_tokens);
  }
}

}  // namespace servesim
