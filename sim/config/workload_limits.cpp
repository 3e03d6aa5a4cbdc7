#include "config/workload_limits.h"

#include <fmt/format.h>

#include <algorithm>

#include "config/workload_keys.h"
#include "util/error.h"
#include "util/ranges.h"

namespace servesim {
namespace {

bool is_renewal(ArrivalKind k) {
  return k == ArrivalKind::poisson || k == ArrivalKind::gamma || k == ArrivalKind::constant;
}

void check_schedule(const std::string& where, double seconds, const std::string& what) {
  if (seconds <= kMaxScheduleSeconds) return;
  throw Error(fmt::format("{}: {} spans about {:.3g} s, beyond the {:g} s (3.2 years) servesim simulates: simulated "
                          "time is int64 nanoseconds kept within 1e9 s; use fewer requests or a higher rate",
                          where, what, seconds, kMaxScheduleSeconds));
}

}  // namespace

void check_workload_limits(ConfigMap& workload, ConfigMap& arrival, const WorkloadSpec& w) {
  if (w.trace) return;  // a trace's size and times are checked as it is read

  const ArrivalSpec& a = w.arrival;
  // Expected span of the arrival schedule (the duration cap ends it sooner).
  double span = 0.0;
  if (is_renewal(a.kind)) {
    if (w.requests > 0) span = static_cast<double>(w.requests) / a.rate;
  } else if (a.kind == ArrivalKind::all_at_once) {
    if (w.requests > kMaxRequestsAtOnce)
      check_integer_range(where(workload, workload_keys::requests), w.requests, {1, kMaxRequestsAtOnce},
                          "all_at_once queues every request at t = 0");
  } else if (a.kind == ArrivalKind::closed_loop) {
    // Each user's requests are at least think_time apart.
    if (w.requests > 0)
      span = static_cast<double>(w.requests) / static_cast<double>(a.users) * a.think_time_s;
  } else if (a.kind == ArrivalKind::multi_stage) {
    for (const ArrivalStage& st : a.stages)
      span += st.duration_s ? *st.duration_s : static_cast<double>(st.requests) / st.rate;
  }
  if (w.duration_s) span = std::min(span, *w.duration_s);
  check_schedule(arrival.where(), span,
                 a.kind == ArrivalKind::closed_loop ? "the schedule (requests / users x think_time)"
                                                    : "the arrival schedule (requests / rate)");
  if (w.multi_turn)
    check_schedule(where(workload, workload_keys::multi_turn),
                   span + static_cast<double>(w.multi_turn->turns - 1) * w.multi_turn->think_time_s,
                   "the arrival schedule plus a session's turns x think_time");
}

}  // namespace servesim
