#pragma once
// Fixed-size log-bucket histogram for long runs: the collector keeps exact samples
// up to a cap and beyond it folds them into one of these, so memory stays flat in
// the trace length.
//
// Buckets are log-linear (as HdrHistogram's): every power of two [2^e, 2^(e+1)) is
// split into 1024 equal buckets, so a bucket [lo, hi) has hi / lo <= 1 + 1/1024:
// at most 0.098% wide relative to its values. The bucket of a value is read from
// the bits of its double (exponent and top 10 mantissa bits): no logarithm.
// A bucket's samples are reported at its midpoint, clamped to the exact min and
// max seen, which is within 1/2048 = 0.049% of every value in it. Percentiles
// interpolate linearly between the order statistics around the requested rank
// (numpy's "linear" method, as the exact path does), so each percentile is within
// 0.05% (less than 0.1%) of the exact one: both interpolated order statistics are.
// Count, mean, min and max stay exact (the mean up to summation order).
//
// Range: 2^-20 (about 1e-6, i.e. 1 ns in milliseconds) to 2^34 (about 1.7e10, 200
// days in ms); values at or below zero are counted apart and reported as the
// exact min; values outside the range go to the end buckets (reported clamped to
// the exact min or max). Memory: 54 x 1024 x 8 bytes = 432 KiB, allocated on first use.
//
// add() and bucket_of() are inline: past the collector's exact cap every request's
// four latencies and every step's inter-token gap land here (millions per run).
#include <bit>
#include <cstdint>
#include <vector>

#include "metrics/stats.h"

namespace servesim {

class LogHistogram {
 public:
  static constexpr int kSubBits = 10;  // 1024 buckets per power of two
  static constexpr int kMinExp = -20;
  static constexpr int kMaxExp = 34;   // exclusive
  static constexpr int kBuckets = (kMaxExp - kMinExp) << kSubBits;

  inline void add(double value, std::int64_t count = 1);
  std::int64_t count() const { return count_; }
  // Same fields as summarize_values / summarize_weighted over the expanded sample.
  Distribution summarize() const;
  // The value reported for 0-based rank `pos` of the expanded sorted sample.
  double value_at_rank(std::int64_t pos) const;
  double percentile(double q) const;  // q in [0, 100]
  // The bucket of a positive value, and the midpoint reported for a bucket.
  static int bucket_of(double value) {
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const int exp = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
    if (exp < kMinExp) return 0;
    if (exp >= kMaxExp) return kBuckets - 1;
    const auto sub = static_cast<int>((bits >> (52 - kSubBits)) & ((1u << kSubBits) - 1));
    return ((exp - kMinExp) << kSubBits) | sub;
  }
  static double midpoint(int bucket);

 private:
  std::vector<std::int64_t> counts_;  // kBuckets, lazily allocated
  std::int64_t zeros_ = 0;            // values <= 0
  std::int64_t count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

inline void LogHistogram::add(double value, std::int64_t count) {
  if (count <= 0) return;
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = value < min_ ? value : min_;  // std::min / std::max, spelled out
    max_ = max_ < value ? value : max_;
  }
  count_ += count;
  sum_ += value * static_cast<double>(count);
  if (!(value > 0)) {
    zeros_ += count;
    return;
  }
  if (counts_.empty()) counts_.assign(kBuckets, 0);
  counts_[static_cast<std::size_t>(bucket_of(value))] += count;
}

}  // namespace servesim
