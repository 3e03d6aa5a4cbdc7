#include "metrics/log_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace servesim {

int LogHistogram::bucket_of(double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  const int exp = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  if (exp < kMinExp) return 0;
  if (exp >= kMaxExp) return kBuckets - 1;
  const auto sub = static_cast<int>((bits >> (52 - kSubBits)) & ((1u << kSubBits) - 1));
  return ((exp - kMinExp) << kSubBits) | sub;
}

double LogHistogram::midpoint(int bucket) {
  const int exp = (bucket >> kSubBits) + kMinExp;
  const double sub = static_cast<double>(bucket & ((1 << kSubBits) - 1));
  return std::ldexp(1.0 + (sub + 0.5) / static_cast<double>(1 << kSubBits), exp);
}

void LogHistogram::add(double value, std::int64_t count) {
  if (count <= 0) return;
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
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

double LogHistogram::value_at_rank(std::int64_t pos) const {
  if (count_ == 0) return 0.0;
  if (pos < zeros_) return min_;
  std::int64_t seen = zeros_;
  for (int i = 0; i < static_cast<int>(counts_.size()); ++i) {
    seen += counts_[static_cast<std::size_t>(i)];
    if (pos < seen) return std::clamp(midpoint(i), min_, max_);
  }
  return max_;
}

double LogHistogram::percentile(double q) const {
  if (count_ == 0) return 0.0;
  const double pos = q / 100.0 * static_cast<double>(count_ - 1);
  const auto lo = static_cast<std::int64_t>(std::floor(pos));
  const double a = value_at_rank(lo);
  const double b = value_at_rank(std::min(lo + 1, count_ - 1));
  return a + (b - a) * (pos - static_cast<double>(lo));
}

Distribution LogHistogram::summarize() const {
  Distribution d;
  if (count_ == 0) return d;
  d.count = count_;
  d.mean = sum_ / static_cast<double>(count_);
  d.p50 = percentile(50);
  d.p90 = percentile(90);
  d.p95 = percentile(95);
  d.p99 = percentile(99);
  d.min = min_;
  d.max = max_;
  return d;
}

}  // namespace servesim
