// The saturation test per arrival stage (metrics/stage_queue_growth.h): a stage whose rate is
// higher than the one before has a longer but steady queue, which the whole-run test (middle
// 20% by arrival against the last 20%) takes for growth; each stage's own test does not.
#include <catch2/catch.hpp>

#include "metrics/stage_queue_growth.h"
#include "workload/arrival_process.h"

using namespace servesim;

TEST_CASE("A steady but longer queue in a later stage is not growth, a growing one is", "[queue_growth][stages]") {
  // 1,000 requests a stage, evenly spread over [0, 100) s and [100, 200) s.
  QueueDelayBins whole;
  StageQueueGrowth steady({0.0, 100.0}, 200.0);
  StageQueueGrowth growing({0.0, 100.0}, 200.0);
  for (int i = 0; i < 1000; ++i) {
    const double t1 = i * 0.1, t2 = 100.0 + i * 0.1;
    whole.add(t1, 10.0);
    whole.add(t2, 400.0);
    steady.add(t1, 10.0);
    steady.add(t2, 400.0);
    growing.add(t1, 10.0);
    growing.add(t2, i * 1.0);  // 0 .. 999 ms over the stage
  }
  // Whole run: ranks 40-60% are half stage 1 (10 ms) and half stage 2 (400 ms): 205 ms; the
  // last 20% 400 ms > 1.5 x 205 + 25 = 332.5: the whole-run test says "grows".
  double mid = 0, last = 0;
  whole.window_means(&mid, &last);
  CHECK(mid == Approx(205.0).epsilon(0.01));
  CHECK(last == Approx(400.0).epsilon(1e-9));
  CHECK(queue_delay_grows(mid, last));
  // Per stage: 10 -> 10 and 400 -> 400 ms, neither grows.
  const StageGrowthVerdict v = steady.verdict();
  CHECK(v.tested == 2);
  CHECK(v.growing == 0);
  CHECK(v.worst == -1);
  // A stage whose delay rises linearly: its ranks 40-60% average 499.5 ms, its last 20% 899.5 ms
  // > 1.5 x 499.5 + 25 = 774.25: it grows; the verdict names it and its window.
  const StageGrowthVerdict g = growing.verdict();
  CHECK(g.tested == 2);
  CHECK(g.growing == 1);
  CHECK(g.worst == 1);
  CHECK(g.start_s == 100.0);
  CHECK(g.end_s == 200.0);
  CHECK(g.mid_ms == Approx(499.5).epsilon(0.01));
  CHECK(g.last_ms == Approx(899.5).epsilon(0.01));
}

TEST_CASE("A stage with too few requests is not tested", "[queue_growth][stages]") {
  StageQueueGrowth s({0.0, 10.0}, 20.0);
  for (int i = 0; i < StageQueueGrowth::kMinRequests; ++i) s.add(i * 0.1, 10.0);  // stage 1: 50
  for (int i = 0; i < StageQueueGrowth::kMinRequests - 1; ++i) s.add(10.0 + i * 0.1, i * 100.0);  // stage 2: 49
  const StageGrowthVerdict v = s.verdict();
  CHECK(v.tested == 1);
  CHECK(v.growing == 0);
}

TEST_CASE("Stage windows come from a multi_stage process of durations only", "[queue_growth][stages]") {
  ArrivalSpec spec;
  spec.kind = ArrivalKind::multi_stage;
  ArrivalStage a, b, c;
  a.rate = 2;
  a.duration_s = 3600;
  b.rate = 4;
  b.duration_s = 1800;
  c.rate = 1;
  c.duration_s = 600;
  spec.stages = {a, b, c};
  std::vector<double> starts;
  double end_s = 0;
  REQUIRE(stage_windows(spec, &starts, &end_s));
  CHECK(starts == std::vector<double>{0.0, 3600.0, 5400.0});
  CHECK(end_s == 6000.0);
  // A stage bounded by a request count ends when its last request arrives: no windows.
  spec.stages[1].requests = 500;
  spec.stages[1].duration_s.reset();
  CHECK_FALSE(stage_windows(spec, &starts, &end_s));
  // One stage, or another process: the whole-run test.
  spec.stages = {a};
  CHECK_FALSE(stage_windows(spec, &starts, &end_s));
  spec.kind = ArrivalKind::poisson;
  CHECK_FALSE(stage_windows(spec, &starts, &end_s));
}
