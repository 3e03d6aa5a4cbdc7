#include "metrics/queue_growth.h"

#include <algorithm>
#include <cmath>

namespace servesim {

void QueueDelayBins::add(double arrival_s, double queue_ms) {
  if (!(arrival_s >= 0)) arrival_s = 0;
  while (arrival_s >= end_s_) {
    // Merge pairs: bin i takes bins 2i and 2i+1; the upper half empties.
    for (int i = 0; i < kBins / 2; ++i) {
      n_[static_cast<std::size_t>(i)] = n_[static_cast<std::size_t>(2 * i)] + n_[static_cast<std::size_t>(2 * i + 1)];
      sum_[static_cast<std::size_t>(i)] = sum_[static_cast<std::size_t>(2 * i)] + sum_[static_cast<std::size_t>(2 * i + 1)];
    }
    std::fill(n_.begin() + kBins / 2, n_.end(), 0);
    std::fill(sum_.begin() + kBins / 2, sum_.end(), 0.0);
    width_s_ *= 2;
    per_s_ = 1.0 / width_s_;
    end_s_ = width_s_ * kBins;
  }
  // Per completed request, so a multiply rather than a divide (arrival_s < end_s_ here).
  const auto b = std::min<std::size_t>(kBins - 1, static_cast<std::size_t>(arrival_s * per_s_));
  ++n_[b];
  sum_[b] += queue_ms;
  ++total_;
}

double QueueDelayBins::mean_between(double from, double to) const {
  // Requests ranked [from * n, to * n): whole bins inside, partial bins pro rata.
  const double n = static_cast<double>(total_);
  const double lo = from * n, hi = to * n;
  double seen = 0, count = 0, sum = 0;
  for (std::size_t b = 0; b < static_cast<std::size_t>(kBins) && seen < hi; ++b) {
    const double c = static_cast<double>(n_[b]);
    if (c == 0) continue;
    const double take = std::max(0.0, std::min(seen + c, hi) - std::max(seen, lo));
    if (take > 0) {
      count += take;
      sum += sum_[b] * (take / c);
    }
    seen += c;
  }
  return count > 0 ? sum / count : 0.0;
}

void QueueDelayBins::window_means(double* mid_ms, double* last_ms) const {
  *mid_ms = mean_between(0.4, 0.6);
  *last_ms = mean_between(0.8, 1.0);
}

}  // namespace servesim
