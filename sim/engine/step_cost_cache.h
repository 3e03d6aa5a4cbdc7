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
// Other batches (with prefill chunks) are evaluated by the model: their keys
// (chunk sizes and contexts) rarely repeat, so a table of them does not pay.
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

  explicit StepCostCache(const CostModel& cost) : cost_(cost) {}
  // cost.totals() of the batch {seqs = new_tokens = sampled = decode_seqs = n,
  // decode_kv_tokens = kv}, without the per-op list.
  StepCost decode(std::int64_t n, std::int64_t kv);
  // cost.totals(b) for any batch, without the per-op list (decode-only ones from the cache).
  StepCost totals(const BatchSummary& b);

  std::int64_t model_evaluations() const { return evaluations_; }

 private:
  static constexpr int kFields = 4 + kBoundCount;  // time, stage_time, flops, bytes, time_by_bound
  using Vec = std::array<double, kFields>;
  struct Cell {
    std::int8_t state = 0;  // 0 unknown, 1 affine, 2 bends inside: evaluate directly
    Vec base{}, slope{};    // value at the cell's low end, per token of K
  };
  StepCost evaluate(const BatchSummary& b);
  Vec decode_vec(std::int64_t n, std::int64_t kv);
  static Vec pack(const StepCost& c);
  static StepCost unpack(const Vec& v);

  const CostModel& cost_;
  std::vector<std::vector<Cell>> cells_;  // [n][kv / (n * kCellTokensPerSeq)]
  std::int64_t evaluations_ = 0;
};

}  // namespace servesim
