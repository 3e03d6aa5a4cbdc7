#pragma once
// Memoised step costs for the engine's fast path: the cost model is pure, so an
// engine may price a batch from earlier evaluations when the result is the same
// up to floating-point rounding.
//
// Decode-only batches. n sequences whose KV lengths sum to K
// (BatchSummary::decode_kv_tokens). For fixed n, everything in the roofline but
// the decode attention is constant, and the decode attention costs
// max(compute(K), memory(K)) with both affine in K: the step time is a convex,
// piecewise-affine function of K with at most one bend; so is every other total
// (flops and bytes are affine; the time split by bound bends where the time does).
// The cache cuts each n's K axis into cells of width n * kCellTokensPerSeq and
// evaluates the model at a cell's two ends and its midpoint, once. When the
// midpoint lies on the chord (every total within 1e-12 relative) the cell is
// affine and later queries interpolate. This is rigorous for the step time: a
// convex function that meets its chord at an interior point equals the chord on
// the whole cell; the 1e-12 tolerance bounds the error of a bend that shallow to
// 2e-12 relative. (For the totals by bound, which are reporting only, the
// midpoint test is a heuristic.) Cells where the roofline bends are evaluated
// directly every time.
//
// Mixed batches (prefill chunks with or without decodes). The decode attention
// is the only operator that reads decode_kv_tokens, and it reads nothing but
// decode_seqs and decode_kv_tokens. So for a batch b with n decoding sequences
//   cost(b) = cost(b with any other K) - D(n, K_other) + D(n, K),
// D being the decode-only cost above: the rest, g(b) = cost(b) - D(n, K(b)),
// depends on b's other fields only. The cache keeps g per such key (a fixed-size
// direct-mapped table, so memory is bounded), computed from one evaluation, and
// prices a repeat of the key at another K as g + D(n, K). The decomposition is
// checked against the model on the first kVerifyMixed repeats; a mismatch beyond
// 1e-9 relative (a cost model whose structure changed) turns the mixed table off.
//
// Results differ from cost.totals() by rounding only; engines use the cache with
// fast_forward on and the model itself step by step (fast_forward off), which
// stays exact to the nanosecond.
#include <array>
#include <cstdint>
#include <vector>

#include "cost/step_cost.h"

namespace servesim {

class StepCostCache {
 public:
  static constexpr std::int64_t kCellTokensPerSeq = 256;
  static constexpr std::size_t kMixedSlots = 1 << 14;
  static constexpr int kVerifyMixed = 64;

  explicit StepCostCache(const CostModel& cost) : cost_(cost) {}
  // cost.totals() of the batch {seqs = new_tokens = sampled = decode_seqs = n,
  // decode_kv_tokens = kv}, without the per-op list.
  StepCost decode(std::int64_t n, std::int64_t kv);
  // cost.totals(b) for any batch, without the per-op list.
  StepCost totals(const BatchSummary& b);

  std::int64_t model_evaluations() const { return evaluations_; }
  bool mixed_enabled() const { return mixed_enabled_; }

 private:
  static constexpr int kFields = 4 + kBoundCount;  // time, stage_time, flops, bytes, time_by_bound
  using Vec = std::array<double, kFields>;
  struct Cell {
    std::int8_t state = 0;  // 0 unknown, 1 affine, 2 bends inside: evaluate directly
    Vec base{}, slope{};    // value at the cell's low end, per token of K
  };
  // A mixed batch's fields other than decode_kv_tokens.
  struct Key {
    std::int64_t seqs = -1, new_tokens = 0, sampled = 0, prefill_seqs = 0, prefill_tokens = 0, decode_seqs = 0;
    double prefill_pairs = 0, prefill_full_pairs = 0, prefill_kv_tokens = 0;
    bool operator==(const Key&) const = default;
  };
  struct Slot {
    Key key;
    Vec rest{};  // g(b) = cost(b) - D(n, K(b))
  };
  StepCost evaluate(const BatchSummary& b);
  Vec decode_vec(std::int64_t n, std::int64_t kv);
  static Vec pack(const StepCost& c);
  static StepCost unpack(const Vec& v);
  static Key key_of(const BatchSummary& b);
  static std::size_t hash(const Key& k);

  const CostModel& cost_;
  std::vector<std::vector<Cell>> cells_;  // [n][kv / (n * kCellTokensPerSeq)]
  std::vector<Slot> mixed_;               // kMixedSlots, lazily allocated
  bool mixed_enabled_ = true;
  int verified_ = 0;
  std::int64_t evaluations_ = 0;
};

}  // namespace servesim
