#pragma once
// Memoised step costs for the engine's fast path. The cost model splits a step into
// a part that depends only on the tokens computed (projections, MLP/MoE, norms,
// collectives), one that depends only on the sequences sampled (LM head, sampler)
// and the attention over the KV cache (CostModel::token_part and friends). The
// first two hold almost all of the ~20 ops and their arguments repeat from step to
// step (a decode step of n sequences computes n tokens and samples n), so they are
// tabulated on first use; attention (one or two ops) is priced every time.
//
// Exact: totals(b) is CostModel::combine of the same parts the model computes, so
// it equals cost.totals(b) bit for bit; runs with and without the cache agree to
// the nanosecond.
//
// Speed: a batch that samples as many sequences as it computes tokens (every
// decode-only step) reads one entry, the token and sample parts of n already
// added: combine() sums tokens + sampled + attention left to right, so
// (tokens + sampled) + attention is the same sum, bit for bit. The lookups and
// the final sum are inline (the event loop prices every step here).
#include <cstdint>
#include <vector>

#include "cost/step_cost.h"

namespace servesim {

class StepCostCache {
 public:
  // Token counts beyond this (huge static batches) are priced without the table.
  static constexpr std::int64_t kMaxTabulatedTokens = 1 << 16;

  explicit StepCostCache(const CostModel& cost)
      : cost_(cost),
        stage_share_(static_cast<double>(cost.shard().layers) / cost.model().layers) {}
  // cost.totals() of the decode-only batch {seqs = new_tokens = sampled = decode_seqs = n,
  // decode_kv_tokens = kv, decode_local_kv_tokens = local_kv}, without the per-op list
  // (local_kv: the keys the local attention layers see; unused without them).
  // lora: the step's LoRA adapters (LoraLoad; none by default).
  StepTotals decode(std::int64_t n, std::int64_t kv, std::int64_t local_kv = 0, const LoraLoad& lora = {}) {
    if (n <= 0) return StepTotals{};
    BatchSummary b = cost_.batch();
    b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
    b.decode_kv_tokens = static_cast<double>(kv);
    b.decode_local_kv_tokens = static_cast<double>(local_kv);
    b.lora = lora;
    return totals(b);
  }
  // decode(n, kv, local_kv).time alone (a fused run's last step: only its time is needed).
  double decode_time(std::int64_t n, std::int64_t kv, std::int64_t local_kv = 0, const LoraLoad& lora = {}) {
    if (n <= 0) return 0.0;
    BatchSummary b = cost_.batch();
    b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
    b.decode_kv_tokens = static_cast<double>(kv);
    b.decode_local_kv_tokens = static_cast<double>(local_kv);
    if (cost_.wide()) return wide_totals(b).time;
    if (lora.adapters > 0) return decode_time_with_lora(b, lora);
    const CostPart a = cost_.attention_part(b);
    const CostPart& ts = paired(n);
    return (ts.layer_time + a.layer_time) + (ts.other_time + a.other_time);  // sum()'s time
  }
  // cost.totals(b) for any batch, without the per-op list.
  StepTotals totals(const BatchSummary& b) {
    if (b.seqs <= 0) return StepTotals{};
    if (cost_.wide()) return wide_totals(b);
    if (b.lora.adapters > 0) return totals_with_lora(b);
    const CostPart a = cost_.attention_part(b);
    if (b.new_tokens == b.sampled) return sum(paired(b.new_tokens), a);
    const CostPart& t = tabulated(tokens_, b.new_tokens, &CostModel::token_part, token_scratch_);
    const CostPart& s = tabulated(samples_, b.sampled, &CostModel::sample_part, sample_scratch_);
    return cost_.combine(t, s, a);
  }

  // A wide layout's step (CostModel::wide()): a decode-only step's token parts (and its
  // micro-batches' with two-batch overlap) memoised by its sequences; the attention over
  // the KV cache priced every time; every other step priced by the model. Exact: the
  // same CostModel functions as CostModel::totals, in the same order.
  StepTotals wide_totals(const BatchSummary& b);

  // How many token and sample parts were computed (the rest came from the tables).
  std::int64_t parts_computed() const { return computed_; }
  // The model the tables price (engines of another model must not share them).
  const CostModel& cost() const { return cost_; }

 private:
  struct Entry {
    bool known = false;
    CostPart part;
  };
  using Part = CostPart (CostModel::*)(std::int64_t) const;
  // table[i], computed by `make` on first use; an i past the table's limit is
  // computed into `scratch` every time.
  const CostPart& tabulated(std::vector<Entry>& table, std::int64_t i, Part make, CostPart& scratch);
  // The token part of n tokens plus the sample part of n samples, field by field.
  const CostPart& paired(std::int64_t n) {
    const auto at = static_cast<std::size_t>(n);
    if (n >= 0 && at < paired_.size() && paired_[at].known) return paired_[at].part;
    return make_paired(n);
  }
  const CostPart& make_paired(std::int64_t n);
  // A batch with LoRA adapters (workload.lora), out of line so the plain path stays as
  // it was: the tables' parts, and the adapters' part priced every time, added as
  // CostModel::totals adds it (so the two agree bit for bit).
  StepTotals totals_with_lora(const BatchSummary& b);
  double decode_time_with_lora(const BatchSummary& b, const LoraLoad& lora);
  // CostModel::combine(t, s, a) given ts = t + s (paired()).
  StepTotals sum(const CostPart& ts, const CostPart& a) const {
    StepTotals out;
    const double layer_part = ts.layer_time + a.layer_time;
    const double other_part = ts.other_time + a.other_time;
    out.time = layer_part + other_part;
    out.stage_time = layer_part * stage_share_ + other_part;
    out.flops = ts.flops + a.flops;
    out.bytes = ts.bytes + a.bytes;
    for (std::size_t i = 0; i < out.time_by_bound.size(); ++i) out.time_by_bound[i] = ts.time_by_bound[i] + a.time_by_bound[i];
    return out;
  }

  const CostModel& cost_;
  double stage_share_;  // the busiest stage's share of the layers (combine's factor)
  std::vector<Entry> tokens_;   // [new_tokens]
  std::vector<Entry> samples_;  // [sampled]
  std::vector<Entry> paired_;   // [n]: tokens_[n] + samples_[n]
  struct WideEntry {
    bool known = false;
    WideParts full, half;  // half: one micro-batch's (two-batch overlap), else unused
  };
  std::vector<WideEntry> wide_;  // [n]: a wide layout's decode step of n sequences
  std::int64_t computed_ = 0;
  CostPart token_scratch_, sample_scratch_, paired_scratch_;  // parts beyond the tables (not zeroed per call)
};

}  // namespace servesim
