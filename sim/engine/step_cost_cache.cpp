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

StepTotals StepCostCache::totals(const BatchSummary& b) {
  if (b.seqs <= 0) return StepTotals{};
  const CostPart& t = tabulated(tokens_, b.new_tokens, &CostModel::token_part, token_scratch_);
  const CostPart& s = tabulated(samples_, b.sampled, &CostModel::sample_part, sample_scratch_);
  return cost_.combine(t, s, cost_.attention_part(b));
}

StepTotals StepCostCache::decode(std::int64_t n, std::int64_t kv, std::int64_t local_kv) {
  if (n <= 0) return StepTotals{};
  BatchSummary b = cost_.batch();
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
  b.decode_kv_tokens = static_cast<double>(kv);
  b.decode_local_kv_tokens = static_cast<double>(local_kv);
  return totals(b);
}

}  // namespace servesim
