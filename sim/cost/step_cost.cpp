#include "cost/step_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "cost/collectives.h"
#include "cost/op_builders.h"
#include "cost/kv_size.h"
#include "cost/layer_ops.h"
#include "cost/weight_bytes.h"
#include "util/error.h"

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
                     AttentionKernel attention, GgmlKernels ggml, const MoeDeployment& moe)
    : gpu_(std::move(gpu)),
      model_(std::move(model)),
      precision_(precision),
      par_(par),
      attention_(attention),
      ggml_(std::move(ggml)),
      moe_(moe) {
  ggml_quantized_ = precision_.gguf != GgufType::none && precision_.gguf != GgufType::f16;
  ggml_amx_ = ggml_amx_type(precision_.gguf);
  validate_parallelism(par_, model_);
  shard_ = shard_shape(par_, model_);
  lora_ = servesim::lora_geometry(model_, shard_);
  // A TP or PP group larger than a node crosses the network.
  tp_link_ = par_.tp <= gpu_.gpus_per_node || gpu_.inter_node.bandwidth <= 0 ? gpu_.intra_node : gpu_.inter_node;
  pp_link_ = par_.tp * par_.pp <= gpu_.gpus_per_node || gpu_.inter_node.bandwidth <= 0 ? gpu_.intra_node
                                                                                        : gpu_.inter_node;
  peak_compute_ = gpu_.peak(precision_.compute);
  eight_bit_compute_ = precision_.compute == DType::fp8 || precision_.compute == DType::int8;
  four_bit_compute_ = precision_.compute == DType::fp4;
  peak_attention_ = gpu_.supports(DType::bf16) ? gpu_.peak(DType::bf16) : gpu_.peak(DType::fp16);
  act_bytes_ = dtype_bytes(precision_.activation_storage);
  const WeightElementBytes wb = weight_element_bytes(model_, precision_);  // group scales, GGUF mixes
  w_bytes_ = wb.layers;
  w_attention_ = wb.attention;
  w_dense_ = wb.dense_mlp;
  w_experts_ = wb.experts;
  w_shared_ = wb.shared_experts;
  w_state_ = wb.state_layers;
  lm_head_bytes_ = wb.lm_head;
  kv_bytes_ = dtype_bytes(precision_.kv_cache);
  attention_s_per_flop_ = 1.0 / (peak_attention_ * gpu_.efficiency.attention_compute);
  attention_s_per_byte_ = 1.0 / (gpu_.memory_bandwidth * gpu_.efficiency.attention_memory);
  attention_s_per_flop8_ =
      gpu_.supports(DType::fp8) ? 1.0 / (gpu_.peak(DType::fp8) * gpu_.efficiency.attention_compute) : attention_s_per_flop_;
  has_layer_kinds_ = model_.state.enabled() || model_.indexer.enabled() || model_.compressed.enabled() || model_.hc_mult > 0 ||
                    model_.ple.enabled() || model_.rel.enabled();
  // Attention rates (see attention_ops for the shapes). Prefill: scores over (d_qk =
  // head_dim; MLA prefill runs as plain MHA with nope+rope key dims) and values over
  // d_v. Decode: MLA absorbs the up-projection, so scores run over the latent
  // (kv_lora + rope) and values over kv_lora.
  const ModelSpec& m = model_;
  // With local attention the rates below are the global layers' and a second set the
  // local layers' (the same shapes over fewer layers each; Gemma 4's global layers have
  // their own head width and KV heads, Step-3.5-Flash's and Laguna's their own query heads).
  // Layers without attention (state layers) have none.
  has_local_ = m.local.enabled();
  double L = has_local_ ? m.global_attention_layers() : m.attention_layers();
  double heads = gpu_heads_of(m, shard_, true);  // query heads of the layers being priced
  const bool mla = m.mla.enabled();
  const double d_v = mla ? m.mla.v_head_dim : m.value_dim_of(false);  // a local layer's values (MLA: all)
  auto rates = [&](double d_qk, double d_out, double kv_elems) {
    AttentionRates r;
    r.flops_per_pair = 2.0 * heads * (d_qk + d_out) * L;
    r.act_bytes_per_query = heads * (d_qk + d_out) * act_bytes_ * L;
    r.kv_bytes_per_token = kv_elems * kv_bytes_ * L;
    // The naive kernel writes the score matrix, reads it for softmax, writes the
    // probabilities and reads them for P.V: four passes over the score entries.
    r.naive_bytes_per_entry = attention_ == AttentionKernel::naive ? 4.0 * heads * act_bytes_ * L : 0.0;
    return r;
  };
  const double kv_global = gpu_kv_elements_per_token_layer(m, shard_, true);
  const double hd_global = m.head_dim_of(true);
  const double vd_global = m.value_dim_of(true);  // scores over head_dim, values over the value width
  prefill_rates_ = rates(mla ? m.head_dim : hd_global, mla ? d_v : vd_global, kv_global);
  decode_rates_ = mla ? rates(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim, m.mla.kv_lora_rank, kv_global)
                      : rates(hd_global, vd_global, kv_global);
  if (has_local_) {
    L = m.local.layers;
    heads = gpu_heads_of(m, shard_, false);
    const double kv_local = gpu_kv_elements_per_token_layer(m, shard_, false);
    if (mla) {  // top-k sparse MLA (DSA): prefill and decode both run on the latent (FlashMLA's sparse kernels)
      local_prefill_rates_ = rates(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim, m.mla.kv_lora_rank, kv_local);
      local_decode_rates_ = local_prefill_rates_;
    } else {
      local_prefill_rates_ = rates(m.head_dim, d_v, kv_local);
      local_decode_rates_ = rates(m.head_dim, d_v, kv_local);
    }
  }
  attention_kernels_ = (attention_ == AttentionKernel::naive ? 4.0 : 1.0) * m.attention_layers();
  if (par_.wide()) init_wide();
}

void CostModel::finish_op(OpCost& op) const {
  const Efficiency& e = gpu_.efficiency;
  const double bw = gpu_.memory_bandwidth;
  switch (op.kind) {
    case OpKind::gemm: {
      if (ggml_.enabled) {  // a ggml back end's mat-vec / mat-mat kernels (cost/ggml_kernels.h)
        const GgmlGemmTime t =
            ggml_gemm_time(ggml_, gpu_, GgmlGemm{op.m_tokens, op.flops, op.bytes(), ggml_quantized_, ggml_amx_});
        op.compute_time = t.compute;
        op.memory_time = t.memory;
        op.exposed_time = t.exposed;
        break;
      }
      const double fill = op.m_tokens > 0 ? op.m_tokens / (op.m_tokens + e.gemm_tokens_half) : 1.0;
      const double dequant = precision_.weight_only ? e.dequant_compute : 1.0;
      const double eight_bit = eight_bit_compute_ ? e.gemm_8bit_compute_ratio
                               : four_bit_compute_ ? e.gemm_4bit_compute_ratio
                                                   : 1.0;
      op.compute_time = op.flops / (peak_compute_ * e.gemm_compute * fill * dequant * eight_bit);
      op.memory_time = op.bytes() / (bw * e.gemm_memory);
      if (e.gemm_overlap < 1.0) op.exposed_time = (1.0 - e.gemm_overlap) * std::min(op.compute_time, op.memory_time);
      break;
    }
    case OpKind::attention:
      // Shared with attention_part, which must give the same numbers bit for bit.
      op.compute_time = op.flops * (op.fp8_math ? attention_s_per_flop8_ : attention_s_per_flop_);
      op.memory_time = op.bytes() * attention_s_per_byte_;
      break;
    case OpKind::elementwise: {
      const ElementwiseCost c =
          elementwise_cost(e, op.elementwise_kind, op.bytes(), op.count, op.m_tokens, bw, gpu_.sm_count, gpu_.boost_clock,
                           gpu_.l2_cache, gpu_.supports(DType::fp32) ? gpu_.peak(DType::fp32) : 0.0);
      op.memory_time = c.memory_time;
      op.overhead_time += c.overhead_time;
      break;
    }
    case OpKind::communication:
    case OpKind::overhead: break;
  }
  if (op.kind != OpKind::elementwise) op.overhead_time += op.count * e.kernel_overhead;
  op.time = std::max(op.compute_time, op.memory_time) + op.exposed_time + op.comm_time + op.overhead_time;
  // The largest of the four parts names the bound.
  const double roof = std::max(op.compute_time, op.memory_time);
  op.bound = op.compute_time >= op.memory_time ? Bound::compute : Bound::memory;
  if (op.comm_time > roof) op.bound = Bound::communication;
  if (op.overhead_time > std::max(roof, op.comm_time)) op.bound = Bound::overhead;
}

double CostModel::step_time(const BatchSummary& b) const { return totals(b).time; }

using ops::comm;
using ops::elementwise;
using ops::gemm;
using ops::insert_after;

void CostModel::emit(OpCost& op, bool per_layer, CostPart& part, std::vector<OpCost>* ops) const {
  finish_op(op);
  (per_layer ? part.layer_time : part.other_time) += op.time;
  part.flops += op.flops;
  part.bytes += op.bytes();
  // The exposed part of the shorter side counts for its own bound.
  part.time_by_bound[static_cast<int>(Bound::compute)] +=
      op.compute_time >= op.memory_time ? op.compute_time : op.exposed_time;
  part.time_by_bound[static_cast<int>(Bound::memory)] += op.memory_time > op.compute_time ? op.memory_time : op.exposed_time;
  part.time_by_bound[static_cast<int>(Bound::communication)] += op.comm_time;
  part.time_by_bound[static_cast<int>(Bound::overhead)] += op.overhead_time;
  if (ops) ops->push_back(op);
}

StepTotals CostModel::combine(const CostPart& tokens, const CostPart& sampled, const CostPart& attention) const {
  StepTotals out;
  const double layer_part = tokens.layer_time + sampled.layer_time + attention.layer_time;
  const double other_part = tokens.other_time + sampled.other_time + attention.other_time;
  out.time = layer_part + other_part;
  out.stage_time = layer_part * (static_cast<double>(shard_.layers) / model_.layers) + other_part;
  out.flops = tokens.flops + sampled.flops + attention.flops;
  out.bytes = tokens.bytes + sampled.bytes + attention.bytes;
  for (std::size_t i = 0; i < out.time_by_bound.size(); ++i)
    out.time_by_bound[i] = tokens.time_by_bound[i] + sampled.time_by_bound[i] + attention.time_by_bound[i];
  return out;
}

StepTotals CostModel::totals(const BatchSummary& b) const {
  if (b.seqs <= 0) return StepTotals{};
  if (wide_) return wide_totals(b);
  StepTotals t = combine(token_part(b.new_tokens), sample_part(b.sampled), attention_part(b));
  if (b.lora.adapters > 0) add_to_totals(t, lora_part(b.lora));
  return t;
}

StepCost CostModel::breakdown(const BatchSummary& b) const {
  StepCost out;
  if (b.seqs <= 0) return out;
  if (wide_) return wide_breakdown(b);
  std::vector<OpCost> ops, sampling, attention;
  const CostPart t = tokens_ops(static_cast<double>(b.new_tokens), &ops);
  const CostPart s = sample_ops(static_cast<double>(b.sampled), &sampling);
  const CostPart a = attention_ops(b, &attention);
  static_cast<StepTotals&>(out) = combine(t, s, a);
  std::vector<OpCost> lora;
  if (b.lora.adapters > 0) add_to_totals(out, lora_ops(b.lora, &lora));
  // Listed in execution order: attention after the KV write, sampling after the final norm,
  // the adapters' GEMMs after the layers' (their sum over the layers).
  insert_after(ops, "kv_cache_write", attention);
  insert_after(ops, "final_norm", sampling);
  insert_after(ops, "mlp_down", lora);
  out.ops = std::move(ops);
  return out;
}


CostPart CostModel::tokens_ops(double T, std::vector<OpCost>* ops) const {
  CostPart part;
  const Efficiency& eff = gpu_.efficiency;
  const ModelSpec& m = model_;
  const ShardShape& s = shard_;
  // The norms: one before each sublayer (attention or state mixer, MLP), two per layer of
  // the usual kind; one all-reduce after each sublayer.
  const double norm_layers = m.sublayers() / 2.0;
  const double hidden = static_cast<double>(m.hidden);
  const double a = act_bytes_;
  auto put = [&](OpCost op, bool per_layer) { emit(op, per_layer, part, ops); };

  // ---- per step, before the layers ----
  put(elementwise("embedding", 2.0 * T * hidden * a, 1, 0, T), false);
  // OPT-350m: project_in from the narrower token table to hidden (project_out after the layers),
  // on every token as vLLM's OPTDecoder runs them (replicated, not split over tp).
  if (m.embed_proj_dim > 0)
    put(gemm("project_in", T, static_cast<double>(m.embed_proj_dim), hidden, 1, w_attention_, a), false);
  // Gemma 3n: the per-layer embedding rows a token gathers (layers x w, 16-bit), their
  // projection hidden -> layers x w (split over tp), the AltUp projections into and out of
  // n streams; per layer the AltUp router, LAuReL's low-rank pair and the per-layer gate and
  // projection, priced as one GEMM of their summed widths (the same FLOPs and weights). Their
  // elementwise work (AltUp's predict and correct over n streams, the norms) is not priced.
  if (m.gemma3n.enabled()) {
    const Gemma3nParts& g = m.gemma3n;
    const double layers = m.layers, w = static_cast<double>(g.ple_width);
    if (g.ple_width > 0) {
      put(elementwise("per_layer_embedding", 2.0 * T * layers * w * a, 1, 0, T), false);
      put(gemm("per_layer_projection", T, hidden, layers * w / par_.tp, 1, w_attention_, a), false);
    }
    if (g.altup_streams > 1) put(gemm("altup_projections", T, hidden, hidden, 2.0 * (g.altup_streams - 1), w_attention_, a), false);
    const double side = static_cast<double>(g.altup_streams) + 2.0 * g.laurel_rank + 2.0 * w;
    put(gemm("per_layer_side", T, hidden, side, layers, w_attention_, a), true);
  }

  // ---- attention block, every attention layer (attention itself: attention_ops) ----
  attention_block_ops(T, put);
  if (has_layer_kinds_) state_token_ops(T, part, ops);
  if (par_.tp > 1) {
    const double msg = T * hidden * a;
    // One after each sublayer's output projection: attention (or state mixer), MLP.
    const double reduces = 2.0 * norm_layers;
    put(comm("tp_allreduce", msg, allreduce_time(msg, par_.tp, tp_link_, eff.comm_bandwidth), reduces), true);
  }

  // ---- MLP block: dense layers and MoE layers ----
  const double dense_layers = m.dense_mlp_layers();
  if (dense_layers > 0) dense_mlp_ops(T, dense_layers, put);
  // Zamba2: each use of a shared block runs its own adapters (split over tp, as vLLM's
  // ColumnParallelLinear A and B) and its hidden x hidden linear map (ReplicatedLinear), priced
  // as one GEMM of their summed widths (the same FLOPs and weights streamed).
  if (m.shared_blocks.enabled()) {
    const double adapters = static_cast<double>(m.shared_blocks.adapter_params(m.hidden, m.q_dim(), (m.gated_mlp ? 2 : 1) * m.ffn));
    put(gemm("shared_block_adapters", T, hidden, adapters / hidden / par_.tp + hidden, m.shared_blocks.uses,
             w_dense_, a),
        true);
  }
  const double moe_layers = m.moe_layers();
  if (moe_layers > 0) {
    const double E = m.moe.num_experts;
    const double k = m.moe.experts_per_token;
    put(gemm("moe_router", T, hidden, E, moe_layers, kRouterWeightBytes, a), true);
    // Nemotron-3's latent MoE: the experts run at the latent width, between two projections.
    const double width = m.moe.latent > 0 ? static_cast<double>(m.moe.latent) : hidden;
    if (m.moe.latent > 0) put(gemm("moe_latent_in", T, hidden, width, moe_layers, w_experts_, a), true);
    // Token-expert assignments handled by this GPU, and how many of its experts are
    // touched at least once (each expert's weights are read once if touched).
    const double assignments = T * k / par_.ep;
    const double local_experts = s.experts;
    const double touched = local_experts * (1.0 - std::pow(1.0 - k / E, T));
    routed_expert_ops(T, assignments, touched, moe_layers, put);
    if (m.moe.shared_experts > 0) shared_expert_ops(T, moe_layers, put);
  }

  // ---- per step, after the layers (sampling: sample_ops) ----
  // (none in OPT-350m's post-LN layout: its last norm is the last layer's own)
  if (m.final_norm)
    put(elementwise("final_norm", 2.0 * T * hidden * a, 1, 5.0 * T * hidden, T, ElementwiseKind::norm), false);
  if (m.embed_proj_dim > 0)
    put(gemm("project_out", T, hidden, static_cast<double>(m.embed_proj_dim), 1, w_attention_, a), false);
  if (par_.pp > 1) {
    const double msg = T * hidden * a;
    put(comm("pp_send_recv", msg, p2p_time(msg, pp_link_, eff.comm_bandwidth), par_.pp - 1.0), false);
  }
  OpCost fixed;
  fixed.name = "step_overhead";
  fixed.kind = OpKind::overhead;
  fixed.overhead_time = eff.step_overhead;
  put(fixed, false);
  return part;
}

CostPart CostModel::sample_ops(double sampled, std::vector<OpCost>* ops) const {
  CostPart part;
  if (sampled <= 0) return part;
  const Efficiency& eff = gpu_.efficiency;
  // hidden wide, or the table width (OPT-350m's head reads project_out's word_embed_proj_dim outputs)
  const double head_in = static_cast<double>(model_.table_width());
  const double vocab = static_cast<double>(model_.vocab);
  auto put = [&](OpCost op) { emit(op, false, part, ops); };
  // The LM head stays in 16-bit in quantized checkpoints, like the embedding (a GGUF file
  // quantizes it: cost/weight_bytes.h).
  put(gemm("lm_head", sampled, head_in, static_cast<double>(shard_.vocab), 1, lm_head_bytes_, act_bytes_));
  if (par_.tp > 1) {
    const double logits = sampled * vocab * 4.0;
    put(comm("logits_gather", logits, allgather_time(logits, par_.tp, tp_link_, eff.comm_bandwidth), 1));
  }
  // Softmax, top-k/top-p and the draw read the fp32 logits about three times.
  put(elementwise("sampling", 3.0 * sampled * vocab * 4.0, 3, 5.0 * sampled * vocab, sampled));
  return part;
}

// Attention over the KV cache, one op per phase present: prefill with
// prefill_pairs causal query-key pairs, decode with one query per sequence reading
// its whole KV once. attention_part is the same sums without building the ops.
CostPart CostModel::attention_ops(const BatchSummary& b, std::vector<OpCost>* ops) const {
  CostPart part;
  if (has_local_) check_local(b);
  // One op per phase: the global layers' work, plus the local layers' over the keys
  // they see (their share of queries and score entries: the same per layer).
  auto attention = [&](const char* name, const AttentionRates& r, const AttentionRates& lr, double pairs,
                       double queries, double kv_tokens, double score_entries, double local_pairs,
                       double local_kv_tokens) {
    OpCost op;
    op.name = name;
    op.kind = OpKind::attention;
    op.count = attention_kernels_;
    op.flops = r.flops_per_pair * pairs;
    op.activation_bytes = r.act_bytes_per_query * queries + r.naive_bytes_per_entry * score_entries;
    op.kv_bytes = r.kv_bytes_per_token * kv_tokens;
    if (has_local_) {
      op.flops += lr.flops_per_pair * local_pairs;
      op.activation_bytes += lr.act_bytes_per_query * queries + lr.naive_bytes_per_entry * score_entries;
      op.kv_bytes += lr.kv_bytes_per_token * local_kv_tokens;
    }
    emit(op, true, part, ops);
  };
  const bool plain_attention = model_.attention_layers() > 0;  // none in DeepSeek-V4 (compressed_batch_ops)
  if (b.prefill_seqs > 0 && plain_attention)
    attention("attention_prefill", prefill_rates_, local_prefill_rates_, b.prefill_pairs,
              static_cast<double>(b.prefill_tokens), b.prefill_kv_tokens, b.prefill_full_pairs, b.prefill_local_pairs,
              b.prefill_local_kv_tokens);
  if (b.decode_seqs > 0 && plain_attention)
    attention("attention_decode", decode_rates_, local_decode_rates_, b.decode_kv_tokens,
              static_cast<double>(b.decode_seqs), b.decode_kv_tokens, b.decode_kv_tokens, b.decode_local_kv_tokens,
              b.decode_local_kv_tokens);
  if (has_layer_kinds_) state_batch_ops(b, part, ops);
  return part;
}

CostPart CostModel::attention_part(const BatchSummary& b) const {
  // attention_ops + emit + finish_op for OpKind::attention, term by term in the same
  // order (so the totals match breakdown() bit for bit), without an OpCost. The
  // full-attention path is the hot one: local attention's terms are added only in
  // attention_sum<true>.
  if (!has_layer_kinds_) return has_local_ ? attention_sum<true>(b) : attention_sum<false>(b);
  CostPart part = has_local_ ? attention_sum<true>(b) : attention_sum<false>(b);
  state_batch_ops(b, part, nullptr);  // the same ops in the same order as attention_ops
  return part;
}

template <bool Local>
CostPart CostModel::attention_sum(const BatchSummary& b) const {
  CostPart part;
  if constexpr (Local) check_local(b);
  const double overhead = attention_kernels_ * gpu_.efficiency.kernel_overhead;
  auto add = [&](const AttentionRates& r, const AttentionRates& lr, double pairs, double queries, double kv_tokens,
                 double score_entries, double local_pairs, double local_kv_tokens) {
    double flops = r.flops_per_pair * pairs;
    double act = r.act_bytes_per_query * queries + r.naive_bytes_per_entry * score_entries;
    double kv = r.kv_bytes_per_token * kv_tokens;
    if constexpr (Local) {
      flops += lr.flops_per_pair * local_pairs;
      act += lr.act_bytes_per_query * queries + lr.naive_bytes_per_entry * score_entries;
      kv += lr.kv_bytes_per_token * local_kv_tokens;
    }
    const double bytes = 0.0 + act + kv;  // OpCost::bytes(): weight (0) + activation + KV
    const double compute = flops * attention_s_per_flop_;
    const double memory = bytes * attention_s_per_byte_;
    const double over = 0.0 + overhead;
    part.layer_time += std::max(compute, memory) + 0.0 + over;
    part.flops += flops;
    part.bytes += bytes;
    part.time_by_bound[static_cast<int>(Bound::compute)] += compute >= memory ? compute : 0;
    part.time_by_bound[static_cast<int>(Bound::memory)] += memory > compute ? memory : 0;
    part.time_by_bound[static_cast<int>(Bound::overhead)] += over;
  };
  if (b.prefill_seqs > 0)
    add(prefill_rates_, local_prefill_rates_, b.prefill_pairs, static_cast<double>(b.prefill_tokens),
        b.prefill_kv_tokens, b.prefill_full_pairs, b.prefill_local_pairs, b.prefill_local_kv_tokens);
  if (b.decode_seqs > 0)
    add(decode_rates_, local_decode_rates_, b.decode_kv_tokens, static_cast<double>(b.decode_seqs),
        b.decode_kv_tokens, b.decode_kv_tokens, b.decode_local_kv_tokens, b.decode_local_kv_tokens);
  return part;
}

void CostModel::check_local(const BatchSummary& b) const {
  // A batch summed without the local span would price the local layers at zero work.
  const LocalAttention& l = model_.local;
  if ((b.prefill_seqs > 0 || b.decode_seqs > 0) && (b.local.kind != l.kind || b.local.span != l.span))
    throw Error(fmt::format("internal: a batch for model '{}' ({}) was summed without its local attention "
                            "(build it with CostModel::batch())",
                            model_.name, l.describe()));
}

}  // namespace servesim
