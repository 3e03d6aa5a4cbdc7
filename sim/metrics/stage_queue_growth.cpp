#include "metrics/stage_queue_growth.h"

#include <algorithm>
#include <utility>

namespace servesim {

StageQueueGrowth::StageQueueGrowth(std::vector<double> starts, double end_s)
    : starts_(std::move(starts)), end_s_(end_s), bins_(starts_.size()) {}

void StageQueueGrowth::add(double arrival_s, double queue_ms) {
  if (starts_.empty()) return;
  // The last stage whose start is at or before the arrival (one before the first: stage 0).
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), arrival_s);
  const std::size_t k = it == starts_.begin() ? 0 : static_cast<std::size_t>(it - starts_.begin()) - 1;
  bins_[k].add(arrival_s - starts_[k], queue_ms);
}

StageGrowthVerdict StageQueueGrowth::verdict(const QueueGrowthRule& rule) const {
  StageGrowthVerdict v;
  double worst_excess = 0;
  for (std::size_t k = 0; k < bins_.size(); ++k) {
    if (bins_[k].count() < kMinRequests) continue;
    ++v.tested;
    double mid = 0, last = 0;
    bins_[k].window_means(&mid, &last);
    if (!queue_delay_grows(mid, last, rule)) continue;
    ++v.growing;
    const double excess = last - (rule.ratio * mid + rule.floor_ms);
    if (v.worst < 0 || excess > worst_excess) {
      worst_excess = excess;
      v.worst = static_cast<int>(k);
      v.start_s = starts_[k];
      v.end_s = k + 1 < starts_.size() ? starts_[k + 1] : end_s_;
      v.mid_ms = mid;
      v.last_ms = last;
    }
  }
  return v;
}

}  // namespace servesim
