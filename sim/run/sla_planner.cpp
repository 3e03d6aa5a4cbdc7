#include "run/sla_planner.h"

#include <algorithm>
#include <cmath>

namespace servesim {
namespace {

// ceil, less a hair so that an exact multiple is not rounded up by floating error.
int ceil_count(double x) { return x > 0 ? static_cast<int>(std::ceil(x - 1e-9)) : 0; }

}  // namespace

void SlaPlanner::observe(const SlaInterval& m) {
  last_.interval_s = m.interval_s;
  last_.requests = m.requests;
  if (m.finished <= 0) return;
  last_.finished = m.finished;
  last_.isl = m.isl;
  last_.osl = m.osl;
  last_.ttft_s = m.ttft_s;
  last_.itl_s = m.itl_s;
  last_.duration_s = m.duration_s;
  seen_ = true;
}

SlaPlan SlaPlanner::plan_prefill(const SlaInterval& m) {
  observe(m);
  SlaPlan p;
  if (!seen_ || last_.interval_s <= 0) {
    p.instances = -1;  // no reading yet: no decision
    return p;
  }
  const double isl = std::max(1.0, last_.isl);
  const double alone_s = profile_.prefill_s(isl);
  // Dynamo: "for TTFT, we expect the correction factor to be << 1 due to queuing delay";
  // only a factor below 1 (prefix-cache hits) lowers the load, min(1, factor).
  if (correction_ && m.finished > 0 && alone_s > 0 && last_.ttft_s > 0) prefill_factor_ = last_.ttft_s / alone_s;
  p.correction = correction_ ? std::min(1.0, prefill_factor_) : 1.0;
  p.per_instance = alone_s > 0 ? isl / alone_s : 0;
  const double load = last_.requests * isl / last_.interval_s * p.correction;  // prompt tokens/s
  p.instances = p.per_instance > 0 ? ceil_count(load / p.per_instance) : 0;
  return p;
}

SlaPlan SlaPlanner::plan_decode(const SlaInterval& m, int decode_instances) {
  observe(m);
  SlaPlan p;
  if (!seen_ || last_.interval_s <= 0) {
    p.instances = -1;
    return p;
  }
  const double context = std::max(1.0, last_.isl + last_.osl / 2);
  const int most = std::max(1, profile_.max_batch(context));
  if (correction_ && m.finished > 0 && decode_instances > 0 && last_.itl_s > 0) {
    // The concurrency per decode instance by Little's law, as Dynamo computes it.
    const double concurrency = last_.requests / decode_instances * last_.duration_s / last_.interval_s;
    const int b = std::clamp(static_cast<int>(std::lround(concurrency)), 1, most);
    const double expected = profile_.decode_step_s(b, context);
    if (expected > 0) decode_factor_ = last_.itl_s / expected;
  }
  p.correction = correction_ ? decode_factor_ : 1.0;
  const double itl = target_itl_s_ / p.correction;
  // The best throughput within the ITL: the largest batch whose step fits (a step's time
  // grows with its batch, so the fitting batches are 1..b).
  int b = 1;
  if (profile_.decode_step_s(1, context) > itl) {
    p.itl_unreachable = true;
  } else {
    int lo = 1, hi = most;
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (profile_.decode_step_s(mid, context) <= itl)
        lo = mid;
      else
        hi = mid - 1;
    }
    b = lo;
  }
  p.batch = b;
  p.per_instance = b / profile_.decode_step_s(b, context);  // output tokens/s
  const double load = last_.requests * std::max(1.0, last_.osl) / last_.interval_s;
  p.instances = ceil_count(load / p.per_instance);
  return p;
}

}  // namespace servesim
