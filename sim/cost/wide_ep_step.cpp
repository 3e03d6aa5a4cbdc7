// The wide-EP step: a replica with attention data parallelism and/or expert
// parallelism (Parallelism::wide()), priced on its busiest GPU.
//
//  - Attention side (embedding, norms, QKV/output projections, attention over the KV
//    cache, dense layers, shared experts, LM head): each DP rank runs its own
//    sequences, tp-way. The ranks take prefill chunks and decoders round-robin, so of
//    p prefill chunks and d decoders the busiest rank holds ceil(p/D) chunks (of mean
//    size) and ceil(d/D) decoders, and that share of every sum of the batch.
//  - Expert side: all ranks' T tokens route T k token-expert pairs to the ep GPUs
//    holding the experts, T k / ep each on average and max_over_mean(T) times that on
//    the busiest GPU (cost/expert_load.h), which also reads every expert slot it holds
//    that some token hit.
//  - All-to-all (cost/all_to_all.h): per MoE layer a dispatch and a combine; the
//    busiest GPU moves the copies of max(its rank's tokens / tp, T / GPUs x
//    max_over_mean) tokens: what the busiest rank sends or the busiest expert GPU
//    receives. A step that prefills uses moe.prefill_all_to_all, a decode step
//    (speculative verification included) moe.decode_all_to_all. With ep = 1 the
//    experts are split tensor-parallel over the whole stage and the tokens all-gathered.
//  - Overlap: none adds everything; two_batch (moe.overlap) runs two micro-batches of
//    half the tokens, one's compute under the other's communication in each MoE layer:
//        other(full) + 2 dense(half) + 2 max(x, y) + 2 (1 - o) min(x, y) + o min(x, y) / L_moe
//    with x = moe(half), y = comm(half) and o moe.overlap_efficiency (weights are read once
//    per micro-batch: at small batches the overlap costs); x grows by s/(1 - s) min(x, y)
//    when the kernel holds a share s of the SMs while in flight (DeepEP normal: 20 of 132).
//  - single_batch (moe.overlap): each layer's combine runs under its down GEMM and shared
//    experts (a second stream); only max(0, combine - down - shared) of it shows.
//  - A running engine's all-to-all moves its network (scale-out) copies
//    moe.all_to_all_slowdown times slower than its kernel's benchmark (cost/moe_engine_fit.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "cost/collectives.h"
#include "cost/layer_ops.h"
#include "cost/moe_engine_fit.h"
#include "util/error.h"

namespace servesim {
namespace {

void add_part(CostPart& to, const CostPart& from, double scale = 1.0) {
  to.layer_time += from.layer_time * scale;
  to.other_time += from.other_time * scale;
  to.flops += from.flops * scale;
  to.bytes += from.bytes * scale;
  for (std::size_t i = 0; i < to.time_by_bound.size(); ++i) to.time_by_bound[i] += from.time_by_bound[i] * scale;
}

double part_time(const CostPart& p) { return p.layer_time + p.other_time; }

double ceil_div(double x, double d) { return std::ceil(x / d); }

}  // namespace

void CostModel::init_wide() {
  wide_ = true;
  layout_ = resolve_layout(par_, gpu_);
  // Not modelled in wide layouts, so refused rather than priced wrong: state layers (their
  // mixers are not split into the wide step's parts) and a latent MoE (its dispatch would
  // move latent-width tokens).
  if (has_layer_kinds_)
    throw Error(fmt::format("{}: attention_dp > 1 or ep > 1 with state layers, a sparse-attention indexer, "
                            "compressed attention or hyper-connections is not modelled; use tensor parallelism "
                            "(attention_dp = 1, ep = 1)",
                            model_.name));
  if (model_.moe.latent > 0)
    throw Error(fmt::format("{}: attention_dp > 1 or ep > 1 with a latent MoE (moe.latent) is not modelled; use "
                            "tensor parallelism (attention_dp = 1, ep = 1)",
                            model_.name));
  if (layout_.ep_crosses_network() && !(gpu_.inter_node.bandwidth > 0))
    throw Error(fmt::format("ep={} spans {} nodes of {} GPUs but {} gives no inter_node network "
                            "(hardware.interconnect.inter_node.bandwidth)",
                            par_.ep, layout_.ep_nodes, layout_.gpus_per_node, gpu_.name));
  if (par_.ep == 1) {
    // The experts are split tensor-parallel over the whole stage: every GPU needs every token.
    prefill_a2a_ = decode_a2a_ = &find_all_to_all_kernel("allgather_reducescatter", "moe");
  } else {
    prefill_a2a_ = &find_all_to_all_kernel(moe_.prefill_all_to_all, "moe.prefill_all_to_all");
    decode_a2a_ = &find_all_to_all_kernel(moe_.decode_all_to_all, "moe.decode_all_to_all");
    for (const auto& [kernel, key] : {std::pair{prefill_a2a_, "moe.prefill_all_to_all"},
                                      std::pair{decode_a2a_, "moe.decode_all_to_all"}})
      if (kernel->nvlink_only && layout_.ep_crosses_network())
        throw Error(fmt::format("{}: {} works inside one NVLink domain, but ep={} spans {} nodes of {} GPUs; use "
                                "deepep_low_latency or deepep_normal, or a GPU with a larger NVLink domain",
                                key, kernel->name, par_.ep, layout_.ep_nodes, layout_.gpus_per_node));
  }
  const int slots = model_.moe.num_experts + par_.redundant_experts;
  const int k = model_.moe.experts_per_token;
  prefill_copies_ = token_copies(*prefill_a2a_, layout_, slots, k);
  decode_copies_ = token_copies(*decode_a2a_, layout_, slots, k);
  dispatch_payload_ = activation_payload_bytes(model_.hidden, moe_.dispatch);
  combine_payload_ = activation_payload_bytes(model_.hidden, moe_.combine);
  const double skew = moe_.routing_skew >= 0 ? moe_.routing_skew : kDefaultRoutingSkew;
  if (moe_.all_to_all_slowdown < 0) moe_.all_to_all_slowdown = fitted_all_to_all_slowdown();
  if (moe_.overlap_efficiency < 0) moe_.overlap_efficiency = fitted_overlap_efficiency();
  expert_load_ = ExpertLoad(model_, par_, moe_.balancer, skew);
}

WideLoad CostModel::wide_load(const BatchSummary& b) const {
  WideLoad w;
  const double D = par_.attention_dp;
  w.total_tokens = static_cast<double>(b.new_tokens);
  w.prefill = b.prefill_seqs > b.verify_seqs;
  if (par_.attention_dp == 1) {
    w.rank_tokens = w.total_tokens;
    w.rank_sampled = static_cast<double>(b.sampled);
    return w;
  }
  const double p = static_cast<double>(b.prefill_seqs);
  const double chunks = p > 0 ? ceil_div(static_cast<double>(b.prefill_tokens) * ceil_div(p, D) / p, 1.0) : 0.0;
  w.rank_tokens = chunks + ceil_div(static_cast<double>(b.decode_seqs), D);
  w.rank_sampled = ceil_div(static_cast<double>(b.sampled), D);
  return w;
}

BatchSummary CostModel::rank_batch(const BatchSummary& b) const {
  if (par_.attention_dp == 1) return b;
  const std::int64_t D = par_.attention_dp;
  BatchSummary r = b;
  const std::int64_t p = (b.prefill_seqs + D - 1) / D, d = (b.decode_seqs + D - 1) / D;
  const double sp = b.prefill_seqs > 0 ? static_cast<double>(p) / static_cast<double>(b.prefill_seqs) : 0.0;
  const double sd = b.decode_seqs > 0 ? static_cast<double>(d) / static_cast<double>(b.decode_seqs) : 0.0;
  r.prefill_seqs = p;
  r.verify_seqs = (b.verify_seqs + D - 1) / D;
  r.prefill_tokens = static_cast<std::int64_t>(std::ceil(static_cast<double>(b.prefill_tokens) * sp));
  r.prefill_pairs = b.prefill_pairs * sp;
  r.prefill_full_pairs = b.prefill_full_pairs * sp;
  r.prefill_kv_tokens = b.prefill_kv_tokens * sp;
  r.prefill_local_pairs = b.prefill_local_pairs * sp;
  r.prefill_local_kv_tokens = b.prefill_local_kv_tokens * sp;
  r.decode_seqs = d;
  r.decode_kv_tokens = b.decode_kv_tokens * sd;
  r.decode_local_kv_tokens = b.decode_local_kv_tokens * sd;
  r.seqs = p + d;
  r.new_tokens = r.prefill_tokens + d;
  r.sampled = (b.sampled + D - 1) / D;
  return r;
}

BatchSummary CostModel::half_batch(const BatchSummary& r) {
  BatchSummary h = r;
  auto half = [](std::int64_t x) { return (x + 1) / 2; };
  h.seqs = half(r.seqs);
  h.new_tokens = half(r.new_tokens);
  h.sampled = half(r.sampled);
  h.prefill_seqs = half(r.prefill_seqs);
  h.verify_seqs = half(r.verify_seqs);
  h.prefill_tokens = half(r.prefill_tokens);
  h.decode_seqs = half(r.decode_seqs);
  for (double* x : {&h.prefill_pairs, &h.prefill_full_pairs, &h.prefill_kv_tokens, &h.decode_kv_tokens,
                    &h.prefill_local_pairs, &h.prefill_local_kv_tokens, &h.decode_local_kv_tokens})
    *x *= 0.5;
  return h;
}

WideLoad CostModel::half_load(const WideLoad& w) {
  WideLoad h = w;
  h.rank_tokens = std::ceil(w.rank_tokens / 2.0);
  h.rank_sampled = std::ceil(w.rank_sampled / 2.0);
  h.total_tokens = std::ceil(w.total_tokens / 2.0);
  return h;
}

WideParts CostModel::wide_parts(const WideLoad& w, std::vector<OpCost>* ops) const {
  using ops::comm;
  using ops::elementwise;
  using ops::gemm;
  WideParts parts;
  const Efficiency& eff = gpu_.efficiency;
  const ModelSpec& m = model_;
  const double T = w.rank_tokens, total = w.total_tokens;
  const double L = m.layers, Lm = m.moe_layers(), Ld = L - Lm;
  const double hidden = static_cast<double>(m.hidden);
  const double a = act_bytes_;
  auto into = [&](CostPart& part) { return [this, &part, ops](OpCost op, bool per_layer) { emit(op, per_layer, part, ops); }; };
  auto put_moe = into(parts.moe);
  auto put_comm = into(parts.comm);
  auto put_dense = into(parts.dense);
  auto put_other = into(parts.other);

  put_other(elementwise("embedding", 2.0 * T * hidden * a, 1, 0, T), false);
  // Every layer's attention block over the rank's tokens, split between the layer kinds.
  CostPart block;
  auto put_block = into(block);
  attention_block_ops(T, put_block);
  add_part(parts.moe, block, Lm / L);
  add_part(parts.dense, block, Ld / L);
  if (par_.tp > 1) {
    // Inside a rank: two all-reduces per dense layer; a MoE layer with EP reduce-scatters
    // before the dispatch and all-gathers after the combine, one all-reduce's bytes.
    const double msg = T * hidden * a;
    const double calls = 2.0 * Ld + (par_.ep > 1 ? 1.0 : 2.0) * Lm;
    put_dense(comm("tp_allreduce", msg, allreduce_time(msg, par_.tp, tp_link_, eff.comm_bandwidth), calls), true);
  }
  if (Ld > 0) dense_mlp_ops(T, Ld, put_dense);
  if (Lm > 0) {
    const double E = m.moe.num_experts, k = m.moe.experts_per_token;
    const double slots = E + par_.redundant_experts;
    put_moe(gemm("moe_router", T, hidden, E, Lm, kRouterWeightBytes, a), true);
    // The busiest expert GPU: its share of the token-expert pairs, and its slots hit at least once.
    const double load = expert_load_.max_over_mean(total);
    const double assignments = total * k / par_.ep * load;
    const double touched = shard_.experts * (1.0 - std::pow(1.0 - k / slots, total));
    // The down GEMM's and the shared experts' time, which a single-batch overlap puts under the combine.
    double overlappable = 0;
    auto put_expert = [&](OpCost op, bool per_layer) {
      const std::string_view name = op.name;
      emit(op, per_layer, parts.moe, ops);
      if (name == "moe_experts_down" || name == "moe_shared_up" || name == "moe_shared_down") overlappable += op.time;
    };
    routed_expert_ops(T, assignments, touched, Lm, put_expert);
    if (m.moe.shared_experts > 0) shared_expert_ops(T, Lm, put_expert);
    const AllToAllKernel& kernel = w.prefill ? *prefill_a2a_ : *decode_a2a_;
    const TokenCopies& copies = w.prefill ? prefill_copies_ : decode_copies_;
    const double wire_tokens = std::max(T / par_.tp, total / layout_.gpus_per_stage * load);
    // A running engine's transfers across nodes take all_to_all_slowdown times the kernel
    // benchmark's (the wire time of the network copies; NVLink copies as benchmarked).
    const double slow = moe_.all_to_all_slowdown;
    const AllToAllTime bytes = all_to_all_time(kernel, copies, gpu_, wire_tokens, dispatch_payload_, combine_payload_);
    AllToAllTime t = bytes;
    if (kernel.copies == CopyRule::all_gather) {
      if (copies.network > 0) t.dispatch *= slow, t.combine *= slow;
    } else if (slow != 1.0 && copies.network > 0) {
      TokenCopies slowed = copies;
      slowed.network *= slow;
      t = all_to_all_time(kernel, slowed, gpu_, wire_tokens, dispatch_payload_, combine_payload_);
    }
    parts.comm_sm_share = kernel.sm_share;
    // Single-batch overlap: each layer's combine runs under its down GEMM and shared experts;
    // what is left of it shows.
    const double combine = moe_.overlap == MoeOverlap::single_batch
                               ? std::max(0.0, t.combine - overlappable / Lm)
                               : t.combine;
    put_comm(comm("moe_dispatch", bytes.dispatch_bytes, t.dispatch, Lm), true);
    put_comm(comm("moe_combine", bytes.combine_bytes, combine, Lm), true);
  }
  put_other(elementwise("final_norm", 2.0 * T * hidden * a, 1, 5.0 * T * hidden, T, ElementwiseKind::norm), false);
  if (par_.pp > 1) {
    const double msg = T * hidden * a;
    put_other(comm("pp_send_recv", msg, p2p_time(msg, pp_link_, eff.comm_bandwidth), par_.pp - 1.0), false);
  }
  OpCost fixed;
  fixed.name = "step_overhead";
  fixed.kind = OpKind::overhead;
  fixed.overhead_time = eff.step_overhead;
  put_other(fixed, false);
  add_part(parts.other, sample_ops(w.rank_sampled, ops));
  return parts;
}

StepTotals CostModel::wide_combine(const WideParts& full, const CostPart& attention, const WideParts* half,
                                   const CostPart* half_attention) const {
  const double L = model_.layers, Lm = model_.moe_layers();
  const double moe_share = Lm / L;
  StepTotals out;
  CostPart sum = full.other;
  double layer_time = 0;
  if (!half) {
    for (const CostPart* p : {&full.moe, &full.comm, &full.dense}) add_part(sum, *p);
    add_part(sum, attention);
    layer_time = full.moe.layer_time + full.comm.layer_time + full.dense.layer_time + attention.layer_time;
    out.time = part_time(sum);
  } else {
    // Each micro-batch: its MoE layers' compute (with their share of attention) against
    // its dispatch and combine, its dense layers' compute alone; run twice.
    CostPart x = half->moe, dense = half->dense;
    add_part(x, *half_attention, moe_share);
    add_part(dense, *half_attention, 1.0 - moe_share);
    // Per MoE layer, in steady state the two micro-batches' compute and communication
    // alternate: 2 max(x, y), plus the share of min(x, y) the overlap fails to hide (twice),
    // plus the pipeline's fill and drain (one min(x, y) per step, spread over the layers).
    // While the other micro-batch's transfer is in flight, its kernel holds a share of the
    // SMs: the overlapped compute stretches by that share of the overlap.
    const double yt = part_time(half->comm);
    const double x0 = part_time(x);
    const double xt = x0 + half->comm_sm_share / (1.0 - half->comm_sm_share) * std::min(x0, yt);
    const double lm_stage = std::max(1, shard_.moe_layers);
    const double hidden = moe_.overlap_efficiency;
    layer_time = 2.0 * part_time(dense) + 2.0 * std::max(xt, yt) + 2.0 * (1.0 - hidden) * std::min(xt, yt) +
                 hidden * std::min(xt, yt) / lm_stage;
    add_part(sum, x, 2.0);
    add_part(sum, dense, 2.0);
    out.time = part_time(full.other) + layer_time;
    // The bounds of the compute parts as they are; the communication left exposed is the rest.
    sum.time_by_bound[static_cast<int>(Bound::communication)] = 0;
    double accounted = 0;
    for (double t : sum.time_by_bound) accounted += t;
    sum.time_by_bound[static_cast<int>(Bound::communication)] = std::max(0.0, out.time - accounted);
  }
  out.stage_time = layer_time * (static_cast<double>(shard_.layers) / L) + part_time(full.other);
  out.flops = sum.flops;
  out.bytes = sum.bytes;
  out.time_by_bound = sum.time_by_bound;
  return out;
}

StepTotals CostModel::wide_totals(const BatchSummary& b) const {
  const WideLoad w = wide_load(b);
  const BatchSummary r = rank_batch(b);
  const WideParts full = wide_parts(w);
  const CostPart attention = attention_part(r);
  if (!two_batch(w)) return wide_combine(full, attention, nullptr, nullptr);
  const WideParts half = wide_parts(half_load(w));
  const CostPart half_attention = attention_part(half_batch(r));
  return wide_combine(full, attention, &half, &half_attention);
}

StepCost CostModel::wide_breakdown(const BatchSummary& b) const {
  StepCost out;
  static_cast<StepTotals&>(out) = wide_totals(b);
  // The busiest GPU's ops at the whole batch, in execution order; with two-batch overlap
  // a last entry says what overlapping the micro-batches changed.
  std::vector<OpCost> list, attention;
  const WideLoad w = wide_load(b);
  (void)wide_parts(w, &list);
  (void)attention_ops(rank_batch(b), &attention);
  ops::insert_after(list, "kv_cache_write", attention);
  double listed = 0;
  for (const OpCost& op : list) listed += op.time;
  if (two_batch(w)) {
    OpCost overlap;
    overlap.name = "two_batch_overlap";
    overlap.kind = OpKind::overhead;
    overlap.time = out.time - listed;  // < 0: communication hidden; > 0: weights read twice
    overlap.overhead_time = overlap.time;
    overlap.bound = Bound::overhead;
    list.push_back(overlap);
  }
  out.ops = std::move(list);
  return out;
}

}  // namespace servesim
