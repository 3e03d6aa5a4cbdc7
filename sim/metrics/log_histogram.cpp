#include "metrics/log_histogram.h"

#include <algorithm>
#include <cmath>

namespace servesim {

double LogHistogram::midpoint(int bucket) {
  const int exp = (bucket >> kSubBits) + kMinExp;
  const double sub = static_cast<double>(bucket & ((1 << kSubBits) - 1));
  return std::ldexp(1.0 + (sub + 0.5) / static_cast<double>(1 << kSubBits), exp);
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
