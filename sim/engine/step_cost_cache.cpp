#include "engine/step_cost_cache.h"

namespace servesim {

const CostPart& StepCostCache::tabulated(std::vector<Entry>& table, std::int64_t i, Part make, CostPart& scratch) {
  if (i < 0 || i > kMaxTabulatedTokens) {
    ++computed_;
    scratch = (cost_.*make)(i);
    return scratch;
  }
  const auto at = static_cast<std::size_t>(i);
  if (table.size() <= at) table.resize(at + 1);
  Entry& e = table[at];
  if (!e.known) {
    ++computed_;
    e.part = (cost_.*make)(i);
    e.known = true;
  }
  return e.part;
}

StepTotals StepCostCache::wide_totals(const BatchSummary& b) {
  if (b.seqs <= 0) return StepTotals{};
  // The table's key, n, fixes a decode-only step's load: n decoders, n tokens, n samples.
  const bool plain_decode = b.prefill_seqs == 0 && b.decode_seqs == b.new_tokens && b.sampled == b.new_tokens;
  if (!plain_decode || b.new_tokens > kMaxTabulatedTokens) {
    ++computed_;
    return cost_.totals(b);
  }
  const WideLoad w = cost_.wide_load(b);
  const auto at = static_cast<std::size_t>(b.new_tokens);
  if (wide_.size() <= at) wide_.resize(at + 1);
  WideEntry& e = wide_[at];
  const bool two_batch = cost_.two_batch(w);
  if (!e.known) {
    ++computed_;
    e.full = cost_.wide_parts(w);
    if (two_batch) e.half = cost_.wide_parts(CostModel::half_load(w));
    e.known = true;
  }
  const BatchSummary r = cost_.rank_batch(b);
  const CostPart attention = cost_.attention_part(r);
  if (!two_batch) return cost_.wide_combine(e.full, attention, nullptr, nullptr);
  const CostPart half_attention = cost_.attention_part(CostModel::half_batch(r));
  return cost_.wide_combine(e.full, attention, &e.half, &half_attention);
}

const CostPart& StepCostCache::make_paired(std::int64_t n) {
  const CostPart& t = tabulated(tokens_, n, &CostModel::token_part, token_scratch_);
  const CostPart& s = tabulated(samples_, n, &CostModel::sample_part, sample_scratch_);
  CostPart ts;
  ts.layer_time = t.layer_time + s.layer_time;
  ts.other_time = t.other_time + s.other_time;
  ts.flops = t.flops + s.flops;
  ts.bytes = t.bytes + s.bytes;
  for (std::size_t i = 0; i < ts.time_by_bound.size(); ++i) ts.time_by_bound[i] = t.time_by_bound[i] + s.time_by_bound[i];
  if (n < 0 || n > kMaxTabulatedTokens) {
    paired_scratch_ = ts;
    return paired_scratch_;
  }
  const auto at = static_cast<std::size_t>(n);
  if (paired_.size() <= at) paired_.resize(at + 1);
  paired_[at].part = ts;
  paired_[at].known = true;
  return paired_[at].part;
}

StepTotals StepCostCache::totals_with_lora(const BatchSummary& b) {
  const CostPart a = cost_.attention_part(b);
  StepTotals out;
  if (b.new_tokens == b.sampled) {
    out = sum(paired(b.new_tokens), a);
  } else {
    const CostPart& t = tabulated(tokens_, b.new_tokens, &CostModel::token_part, token_scratch_);
    const CostPart& s = tabulated(samples_, b.sampled, &CostModel::sample_part, sample_scratch_);
    out = cost_.combine(t, s, a);
  }
  cost_.add_to_totals(out, cost_.lora_part(b.lora));
  return out;
}

double StepCostCache::decode_time_with_lora(const BatchSummary& b, const LoraLoad& lora) {
  const CostPart a = cost_.attention_part(b);
  const CostPart& ts = paired(b.new_tokens);
  const CostPart l = cost_.lora_part(lora);
  // sum()'s time, then CostModel::add_to_totals's, in their order.
  return (ts.layer_time + a.layer_time) + (ts.other_time + a.other_time) + (l.layer_time + l.other_time);
}

}  // namespace servesim
