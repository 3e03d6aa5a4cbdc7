#pragma once
// Is the server keeping up? The saturation test `plan` uses (planning/capacity.h)
// and `run` reports: order completed requests by arrival; when the mean queue
// delay (arrival to first scheduling) of the last 20% exceeds `ratio` times the
// mean of the middle 20% (40-60%) plus `floor_ms`, the backlog grows with time:
// arrivals outpace service. A stable queue gives a ratio near 1; a backlog growing
// linearly from the start gives 0.9 / 0.5 = 1.8, hence 1.5.
#include <array>
#include <cstdint>

namespace servesim {

struct QueueGrowthRule {
  double ratio = 1.5;
  double floor_ms = 25;  // keeps a lightly loaded engine's millisecond jitter from counting as growth
};

inline bool queue_delay_grows(double mid_ms, double last_ms, const QueueGrowthRule& rule = {}) {
  return last_ms > rule.ratio * mid_ms + rule.floor_ms;
}

// The same test in bounded memory for runs of any length: completed requests'
// queue delays summed in kBins bins of arrival time whose width doubles (adjacent
// bins merge) when an arrival falls past the last. The 20% windows are cut by
// request count with a partial bin counted pro rata, so the means are those of
// the exact test to within a bin's share of the run (1/256 of it, or less).
class QueueDelayBins {
 public:
  static constexpr int kBins = 512;
  void add(double arrival_s, double queue_ms);
  std::int64_t count() const { return total_; }
  // Mean queue delay of the requests ranked [40%, 60%) and [80%, 100%) by arrival.
  void window_means(double* mid_ms, double* last_ms) const;

 private:
  double mean_between(double from, double to) const;  // ranks as fractions of count()
  double width_s_ = 1e-3;
  double per_s_ = 1e3;           // 1 / width_s_
  double end_s_ = 1e-3 * kBins;  // width_s_ * kBins: arrivals from here on merge bins first
  std::array<std::int64_t, kBins> n_{};
  std::array<double, kBins> sum_{};
  std::int64_t total_ = 0;
};

}  // namespace servesim
