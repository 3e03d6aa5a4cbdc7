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
#include <cstdint>
#include <vector>

#include "cost/step_cost.h"

namespace servesim {

class StepCostCache {
 public:
  // Token counts beyond this (huge static batches) are priced without the table.
  static constexpr std::int64_t kMaxTabulatedTokens = 1 << 16;

  explicit StepCostCache(const CostModel& cost) : cost_(cost) {}
  // cost.totals() of the decode-only batch {seqs = new_tokens = sampled = decode_seqs = n,
  // decode_kv_tokens = kv, decode_local_kv_tokens = local_kv}, without the per-op list
  // (local_kv: the keys the local attention layers see; unused without them).
  StepTotals decode(std::int64_t n, std::int64_t kv, std::int64_t local_kv = 0);
  // cost.totals(b) for any batch, without the per-op list.
  StepTotals totals(const BatchSummary& b);

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

  const CostModel& cost_;
  std::vector<Entry> tokens_;   // [new_tokens]
  std::vector<Entry> samples_;  // [sampled]
  std::int64_t computed_ = 0;
  CostPart token_scratch_, sample_scratch_;  // parts beyond the tables (not zeroed per call)
};

}  // namespace servesim
