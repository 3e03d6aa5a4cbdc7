#include "metrics/stats.h"

#include <algorithm>
#include <cmath>

namespace servesim {

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const double pos = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Distribution summarize_values(std::vector<double>& values) {
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.count = static_cast<std::int64_t>(values.size());
  double sum = 0;
  for (double v : values) sum += v;
  d.mean = sum / static_cast<double>(values.size());
  d.p50 = percentile_sorted(values, 50);
  d.p90 = percentile_sorted(values, 90);
  d.p95 = percentile_sorted(values, 95);
  d.p99 = percentile_sorted(values, 99);
  d.min = values.front();
  d.max = values.back();
  return d;
}

namespace {
// Value at 0-based position `pos` of the expanded (sorted) sample.
double weighted_at(const std::vector<std::pair<double, std::int64_t>>& s, const std::vector<std::int64_t>& cum,
                   std::int64_t pos) {
  const auto it = std::upper_bound(cum.begin(), cum.end(), pos);
  return s[static_cast<std::size_t>(it - cum.begin())].first;
}
double weighted_percentile(const std::vector<std::pair<double, std::int64_t>>& s, const std::vector<std::int64_t>& cum,
                           double q) {
  const std::int64_t n = cum.back();
  const double pos = q / 100.0 * static_cast<double>(n - 1);
  const auto lo = static_cast<std::int64_t>(std::floor(pos));
  const double a = weighted_at(s, cum, lo);
  const double b = weighted_at(s, cum, std::min(lo + 1, n - 1));
  return a + (b - a) * (pos - static_cast<double>(lo));
}
}  // namespace

Distribution summarize_weighted(std::vector<std::pair<double, std::int64_t>>& samples) {
  Distribution d;
  std::sort(samples.begin(), samples.end());
  std::vector<std::int64_t> cum;
  cum.reserve(samples.size());
  std::int64_t n = 0;
  double sum = 0;
  for (const auto& [v, c] : samples) {
    n += c;
    sum += v * static_cast<double>(c);
    cum.push_back(n);
  }
  if (n == 0) return d;
  d.count = n;
  d.mean = sum / static_cast<double>(n);
  d.p50 = weighted_percentile(samples, cum, 50);
  d.p90 = weighted_percentile(samples, cum, 90);
  d.p95 = weighted_percentile(samples, cum, 95);
  d.p99 = weighted_percentile(samples, cum, 99);
  d.min = samples.front().first;
  d.max = samples.back().first;
  return d;
}

}  // namespace servesim
