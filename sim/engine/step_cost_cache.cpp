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

}  // namespace servesim
