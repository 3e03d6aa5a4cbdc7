#pragma once
// The saturation test (queue_growth.h) when the offered rate changes during the run
// (workload.arrival multi_stage: a day's hours, a burst). Over the whole run the test compares
// the queue delay of requests that arrived at different rates: the last 20% by arrival may be
// the evening's or the burst's, whose queue is longer although the server keeps up, or shorter
// although a stage before was short of capacity. So each stage is tested on its own requests:
// a stage whose queue delay grows from its middle 20% to its last 20% by arrival cannot keep up
// at its rate. Stages with fewer than kMinRequests completed requests are not tested (their 20%
// windows hold a handful of requests: noise).
#include <cstdint>
#include <vector>

#include "metrics/queue_growth.h"

namespace servesim {

struct StageGrowthVerdict {
  int tested = 0;    // stages with enough requests to test
  int growing = 0;   // of them, stages whose queue grows
  int worst = -1;    // the growing stage whose last 20% exceed the rule by most (0-based), or -1
  double start_s = 0, end_s = 0;       // its arrival window
  double mid_ms = 0, last_ms = 0;      // its window means
};

class StageQueueGrowth {
 public:
  static constexpr std::int64_t kMinRequests = 50;
  // `starts`: each stage's first arrival time, ascending from 0; `end_s`: the last stage's end.
  StageQueueGrowth(std::vector<double> starts, double end_s);
  void add(double arrival_s, double queue_ms);
  StageGrowthVerdict verdict(const QueueGrowthRule& rule = {}) const;
  int stages() const { return static_cast<int>(starts_.size()); }

 private:
  std::vector<double> starts_;
  double end_s_;
  std::vector<QueueDelayBins> bins_;  // per stage, arrival times from the stage's start
};

}  // namespace servesim
