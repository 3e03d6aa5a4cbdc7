#include "engine/step_cost_cache.h"

#include <algorithm>
#include <cmath>

namespace servesim {

StepCostCache::Vec StepCostCache::pack(const StepCost& c) {
  Vec v{};
  v[0] = c.time;
  v[1] = c.stage_time;
  v[2] = c.flops;
  v[3] = c.bytes;
  for (int i = 0; i < kBoundCount; ++i) v[static_cast<std::size_t>(4 + i)] = c.time_by_bound[static_cast<std::size_t>(i)];
  return v;
}

StepCost StepCostCache::unpack(const Vec& v) {
  StepCost c;
  c.time = v[0];
  c.stage_time = v[1];
  c.flops = v[2];
  c.bytes = v[3];
  for (int i = 0; i < kBoundCount; ++i) c.time_by_bound[static_cast<std::size_t>(i)] = v[static_cast<std::size_t>(4 + i)];
  return c;
}

StepCost StepCostCache::evaluate(const BatchSummary& b) {
  ++evaluations_;
  return cost_.totals(b);
}

StepCostCache::Vec StepCostCache::decode_vec(std::int64_t n, std::int64_t kv) {
  if (n <= 0) return Vec{};
  auto direct = [&](std::int64_t k) {
    BatchSummary b;
    b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
    b.decode_kv_tokens = static_cast<double>(k);
    return pack(evaluate(b));
  };
  const std::int64_t width = n * kCellTokensPerSeq;
  const std::int64_t j = kv / width;
  if (cells_.size() <= static_cast<std::size_t>(n)) cells_.resize(static_cast<std::size_t>(n) + 1);
  std::vector<Cell>& row = cells_[static_cast<std::size_t>(n)];
  if (row.size() <= static_cast<std::size_t>(j)) row.resize(static_cast<std::size_t>(j) + 1);
  Cell& cell = row[static_cast<std::size_t>(j)];
  const std::int64_t lo = j * width;
  if (cell.state == 0) {
    // width is even (kCellTokensPerSeq is), so the midpoint is a whole token count.
    const Vec a = direct(lo), m = direct(lo + width / 2), z = direct(lo + width);
    bool affine = true;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const double scale = std::max({std::abs(a[k]), std::abs(z[k]), 1e-300});
      if (std::abs(m[k] - 0.5 * (a[k] + z[k])) > 1e-12 * scale) affine = false;
      cell.base[k] = a[k];
      cell.slope[k] = (z[k] - a[k]) / static_cast<double>(width);
    }
    cell.state = affine ? 1 : 2;
  }
  if (cell.state == 2) return direct(kv);
  const double dk = static_cast<double>(kv - lo);
  Vec v;
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = cell.base[k] + cell.slope[k] * dk;
  return v;
}

StepCost StepCostCache::decode(std::int64_t n, std::int64_t kv) {
  if (n <= 0) return StepCost{};
  return unpack(decode_vec(n, kv));
}

StepCost StepCostCache::totals(const BatchSummary& b) {
  if (b.seqs <= 0) return StepCost{};
  const std::int64_t n = b.decode_seqs;
  const auto kv = static_cast<std::int64_t>(b.decode_kv_tokens);
  if (b.seqs == n && b.new_tokens == n && b.sampled == n && b.prefill_seqs == 0 &&
      static_cast<double>(kv) == b.decode_kv_tokens)
    return decode(n, kv);
  return evaluate(b);
}

}  // namespace servesim
