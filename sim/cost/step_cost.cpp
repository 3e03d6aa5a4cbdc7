#include "cost/step_cost.h"

#include <algorithm>
#include <cmath>

#include "cost/collectives.h"

namespace servesim {

std::string bound_name(Bound b) {
  switch (b) {
    case Bound::compute: return "compute";
    case Bound::memory: return "memory";
    case Bound::communication: return "communication";
    case Bound::overhead: return "overhead";
  }
  return "?";
}

std::string op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::gemm: return "gemm";
    case OpKind::attention: return "attention";
    case OpKind::elementwise: return "elementwise";
    case OpKind::communication: return "communication";
    case OpKind::overhead: return "overhead";
  }
  return "?";
}

CostModel::CostModel(GpuSpec gpu, ModelSpec model, ResolvedPrecision precision, Parallelism par,
                     AttentionKernel attention)
    : gpu_(std::move(gpu)),
      model_(std::move(model)),
      precision_(precision),
      par_(par),
      attention_(attention) {
  validate_parallelism(par_, model_);
  shard_ = shard_shape(par_, model_);
  // A TP or PP group larger than a node crosses the network.
  tp_link_ = par_.tp <= gpu_.gpus_per_node || gpu_.inter_node.bandwidth <= 0 ? gpu_.intra_node : gpu_.inter_node;
  pp_link_ = par_.tp * par_.pp <= gpu_.gpus_per_node || gpu_.inter_node.bandwidth <= 0 ? gpu_.intra_node
                                                                                        : gpu_.inter_node;
  peak_compute_ = gpu_.peak(precision_.compute);
  peak_attention_ = gpu_.supports(DType::bf16) ? gpu_.peak(DType::bf16) : gpu_.peak(DType::fp16);
  act_bytes_ = dtype_bytes(precision_.activation_storage);
  w_bytes_ = dtype_bytes(precision_.weights);
  kv_bytes_ = dtype_bytes(precision_.kv_cache);
}

void CostModel::finish_op(OpCost& op) const {
  const Efficiency& e = gpu_.efficiency;
  const double bw = gpu_.memory_bandwidth;
  switch (op.kind) {
    case OpKind::gemm: {
      const double fill = op.m_tokens > 0 ? op.m_tokens / (op.m_tokens + e.gemm_tokens_half) : 1.0;
      const double dequant = precision_.weight_only ? e.dequant_compute : 1.0;
      op.compute_time = op.flops / (peak_compute_ * e.gemm_compute * fill * dequant);
      op.memory_time = op.bytes() / (bw * e.gemm_memory);
      break;
    }
    case OpKind::attention:
      op.compute_time = op.flops / (peak_attention_ * e.attention_compute);
      op.memory_time = op.bytes() / (bw * e.attention_memory);
      break;
    case OpKind::elementwise:
      op.memory_time = op.bytes() / (bw * e.elementwise_memory);
      break;
    case OpKind::communication:
    case OpKind::overhead: break;
  }
  op.overhead_time += op.count * e.kernel_overhead;
  op.time = std::max(op.compute_time, op.memory_time) + op.comm_time + op.overhead_time;
  // The largest of the four parts names the bound.
  const double roof = std::max(op.compute_time, op.memory_time);
  op.bound = op.compute_time >= op.memory_time ? Bound::compute : Bound::memory;
  if (op.comm_time > roof) op.bound = Bound::communication;
  if (op.overhead_time > std::max(roof, op.comm_time)) op.bound = Bound::overhead;
}

double CostModel::step_time(const BatchSummary& b) const { return evaluate(b, false).time; }
StepCost CostModel::breakdown(const BatchSummary& b) const { return evaluate(b, true); }

StepCost CostModel::evaluate(const BatchSummary& b, bool keep_ops) const {
  StepCost out;
  if (b.seqs <= 0) return out;
  const Efficiency& eff = gpu_.efficiency;
  const ModelSpec& m = model_;
  const ShardShape& s = shard_;
  const double T = static_cast<double>(b.new_tokens);
  const double L = m.layers;
  const double hidden = static_cast<double>(m.hidden);
  const double a = act_bytes_;
  double layer_part = 0.0;  // time inside transformer layers (split across PP stages)
  double other_part = 0.0;  // embedding, LM head, sampling, overheads

  auto emit = [&](OpCost op, bool per_layer) {
    finish_op(op);
    (per_layer ? layer_part : other_part) += op.time;
    out.flops += op.flops;
    out.bytes += op.bytes();
    out.time_by_bound[static_cast<int>(Bound::compute)] += op.compute_time >= op.memory_time ? op.compute_time : 0;
    out.time_by_bound[static_cast<int>(Bound::memory)] += op.memory_time > op.compute_time ? op.memory_time : 0;
    out.time_by_bound[static_cast<int>(Bound::communication)] += op.comm_time;
    out.time_by_bound[static_cast<int>(Bound::overhead)] += op.overhead_time;
    if (keep_ops) out.ops.push_back(op);
  };
  // A GEMM of M tokens by a (K x N) weight, repeated `reps` times (layers).
  auto gemm = [&](const char* name, double M, double K, double N, double reps, double weight_elem_bytes) {
    OpCost op;
    op.name = name;
    op.kind = OpKind::gemm;
    op.count = reps;
    op.m_tokens = M;
    op.flops = reps * 2.0 * M * K * N;
    op.weight_bytes = reps * K * N * weight_elem_bytes;
    op.activation_bytes = reps * (M * K + M * N) * a;
    return op;
  };
  auto elementwise = [&](const char* name, double bytes, double kernels, double flops) {
    OpCost op;
    op.name = name;
    op.kind = OpKind::elementwise;
    op.count = kernels;
    op.activation_bytes = bytes;
    op.flops = flops;
    return op;
  };
  auto comm = [&](const char* name, double bytes, double seconds, double reps) {
    OpCost op;
    op.name = name;
    op.kind = OpKind::communication;
    op.count = 0;
    op.comm_bytes = bytes * reps;
    op.comm_time = seconds * reps;
    return op;
  };

  // ---- per step, before the layers ----
  emit(elementwise("embedding", 2.0 * T * hidden * a, 1, 0), false);

  // ---- attention block, every layer ----
  const double heads = s.heads;
  const bool mla = m.mla.enabled();
  // K and V elements cached per token per layer on this GPU (MLA latent is replicated).
  const double kv_elems = mla ? static_cast<double>(m.kv_elements_per_token_layer()) : 2.0 * s.kv_heads * m.head_dim;
  emit(elementwise("attn_norm_residual", 2.0 * 4.0 * T * hidden * a * L, 2.0 * L, 2.0 * 5.0 * T * hidden * L), true);
  if (mla) {
    const double qk = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    const double q_in = m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : 0.0;
    // Down-projections (q_a, kv_a) replicated; up-projections (q_b, kv_b) split over TP.
    const double replicated = hidden * (q_in + m.mla.kv_lora_rank + m.mla.qk_rope_head_dim);
    const double split = (q_in > 0 ? q_in : hidden) * heads * qk +
                         static_cast<double>(m.mla.kv_lora_rank) * heads * (m.mla.qk_nope_head_dim + m.mla.v_head_dim);
    const double params = replicated + split;
    emit(gemm("qkv_proj", T, hidden, params / hidden, L, w_bytes_), true);
  } else {
    const double n_qkv = (heads + 2.0 * s.kv_heads) * m.head_dim;
    OpCost qkv = gemm("qkv_proj", T, hidden, n_qkv, L, w_bytes_);
    emit(qkv, true);
  }
  emit(elementwise("rope", 2.0 * T * (heads + s.kv_heads) * m.head_dim * a * L, L,
                   3.0 * T * (heads + s.kv_heads) * m.head_dim * L),
       true);
  OpCost kv_write = elementwise("kv_cache_write", T * kv_elems * a * L, L, 0);
  kv_write.kv_bytes = T * kv_elems * kv_bytes_ * L;
  emit(kv_write, true);

  const double d_v = mla ? m.mla.v_head_dim : m.head_dim;
  const bool naive = attention_ == AttentionKernel::naive;
  if (b.prefill_seqs > 0) {
    const double d_qk = m.head_dim;  // MLA prefill runs as plain MHA with (nope+rope) key dims
    OpCost op;
    op.name = "attention_prefill";
    op.kind = OpKind::attention;
    op.count = (naive ? 4.0 : 1.0) * L;
    op.flops = 2.0 * heads * (d_qk + d_v) * b.prefill_pairs * L;
    op.activation_bytes = b.prefill_tokens * heads * (d_qk + d_v) * a * L;
    op.kv_bytes = b.prefill_kv_tokens * kv_elems * kv_bytes_ * L;
    // The naive kernel writes the score matrix, reads it for softmax, writes the
    // probabilities and reads them for P.V: four passes over heads x new x (ctx+new).
    if (naive) op.activation_bytes += 4.0 * heads * b.prefill_full_pairs * a * L;
    emit(op, true);
  }
  if (b.decode_seqs > 0) {
    // Decode reads each sequence's whole KV once; MLA absorbs the up-projection so
    // scores run over the latent (kv_lora + rope) and values over kv_lora.
    const double d_qk = mla ? m.mla.kv_lora_rank + m.mla.qk_rope_head_dim : m.head_dim;
    const double d_out = mla ? m.mla.kv_lora_rank : m.head_dim;
    OpCost op;
    op.name = "attention_decode";
    op.kind = OpKind::attention;
    op.count = (naive ? 4.0 : 1.0) * L;
    op.flops = 2.0 * heads * (d_qk + d_out) * b.decode_kv_tokens * L;
    op.activation_bytes = b.decode_seqs * heads * (d_qk + d_out) * a * L;
    op.kv_bytes = b.decode_kv_tokens * kv_elems * kv_bytes_ * L;
    if (naive) op.activation_bytes += 4.0 * heads * b.decode_kv_tokens * a * L;
    emit(op, true);
  }
  emit(gemm("o_proj", T, heads * d_v, hidden, L, w_bytes_), true);
  if (par_.tp > 1) {
    const double msg = T * hidden * a;
    // Two per layer: after the attention output projection and after the MLP.
    emit(comm("tp_allreduce", msg, allreduce_time(msg, par_.tp, tp_link_, eff.comm_bandwidth), 2.0 * L), true);
  }

  // ---- MLP block: dense layers and MoE layers ----
  const double dense_layers = L - m.moe_layers();
  const double gate_up = m.gated_mlp ? 2.0 : 1.0;
  if (dense_layers > 0) {
    const double ffn = static_cast<double>(s.ffn);
    emit(gemm("mlp_up", T, hidden, gate_up * ffn, dense_layers, w_bytes_), true);
    emit(elementwise("mlp_act", (gate_up + 1.0) * T * ffn * a * dense_layers, dense_layers,
                     4.0 * T * ffn * dense_layers),
         true);
    emit(gemm("mlp_down", T, ffn, hidden, dense_layers, w_bytes_), true);
  }
  const double moe_layers = m.moe_layers();
  if (moe_layers > 0) {
    const double E = m.moe.num_experts;
    const double k = m.moe.experts_per_token;
    emit(gemm("moe_router", T, hidden, E, moe_layers, act_bytes_), true);
    // Token-expert assignments handled by this GPU, and how many of its experts are
    // touched at least once (each expert's weights are read once if touched).
    const double assignments = T * k / par_.ep;
    const double local_experts = s.experts;
    const double touched = local_experts * (1.0 - std::pow(1.0 - k / E, T));
    const double effn = static_cast<double>(s.expert_ffn);
    const double per_expert_m = touched > 0 ? assignments / touched : 0.0;
    OpCost up = gemm("moe_experts_up", per_expert_m, hidden, gate_up * effn, moe_layers, w_bytes_);
    up.flops = moe_layers * 2.0 * assignments * hidden * gate_up * effn;
    up.weight_bytes = moe_layers * touched * hidden * gate_up * effn * w_bytes_;
    up.activation_bytes = moe_layers * assignments * (hidden + gate_up * effn) * a;
    up.count = 2.0 * moe_layers;  // routing/permute + grouped GEMM
    emit(up, true);
    emit(elementwise("moe_act", (gate_up + 1.0) * assignments * effn * a * moe_layers, moe_layers,
                     4.0 * assignments * effn * moe_layers),
         true);
    OpCost down = gemm("moe_experts_down", per_expert_m, effn, hidden, moe_layers, w_bytes_);
    down.flops = moe_layers * 2.0 * assignments * effn * hidden;
    down.weight_bytes = moe_layers * touched * effn * hidden * w_bytes_;
    down.activation_bytes = moe_layers * assignments * (effn + hidden) * a;
    down.count = 2.0 * moe_layers;  // grouped GEMM + weighted combine
    emit(down, true);
    if (m.moe.shared_experts > 0) {
      const double sffn = static_cast<double>(m.moe.shared_expert_ffn > 0 ? m.moe.shared_expert_ffn : m.moe.expert_ffn) *
                          m.moe.shared_experts / par_.tp;
      emit(gemm("moe_shared_up", T, hidden, gate_up * sffn, moe_layers, w_bytes_), true);
      emit(gemm("moe_shared_down", T, sffn, hidden, moe_layers, w_bytes_), true);
    }
    if (par_.ep > 1) {
      const double msg = T * k * hidden * a / par_.ep;
      emit(comm("moe_all_to_all", msg, alltoall_time(msg, par_.ep, tp_link_, eff.comm_bandwidth), 2.0 * moe_layers),
           true);
    }
  }

  // ---- per step, after the layers ----
  const double sampled = static_cast<double>(b.sampled);
  emit(elementwise("final_norm", 2.0 * T * hidden * a, 1, 5.0 * T * hidden), false);
  if (sampled > 0) {
    // The LM head stays in 16-bit in quantized checkpoints, like the embedding.
    emit(gemm("lm_head", sampled, hidden, static_cast<double>(s.vocab), 1, 2.0), false);
    if (par_.tp > 1) {
      const double logits = sampled * static_cast<double>(m.vocab) * 4.0;
      emit(comm("logits_gather", logits, allgather_time(logits, par_.tp, tp_link_, eff.comm_bandwidth), 1), false);
    }
    // Softmax, top-k/top-p and the draw read the fp32 logits about three times.
    emit(elementwise("sampling", 3.0 * sampled * static_cast<double>(m.vocab) * 4.0, 3, 5.0 * sampled * m.vocab),
         false);
  }
  if (par_.pp > 1) {
    const double msg = T * hidden * a;
    emit(comm("pp_send_recv", msg, p2p_time(msg, pp_link_, eff.comm_bandwidth), par_.pp - 1.0), false);
  }
  OpCost fixed;
  fixed.name = "step_overhead";
  fixed.kind = OpKind::overhead;
  fixed.overhead_time = eff.step_overhead;
  emit(fixed, false);

  out.time = layer_part + other_part;
  out.stage_time = layer_part * (static_cast<double>(s.layers) / L) + other_part;
  return out;
}

}  // namespace servesim
