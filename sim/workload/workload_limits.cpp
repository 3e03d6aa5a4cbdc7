#include "workload/workload_limits.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.h"
#include "util/units.h"
#include "config/config_ranges.h"

namespace servesim {
namespace {

bool is_renewal(ArrivalKind k) {
  return k == ArrivalKind::poisson || k == ArrivalKind::gamma || k == ArrivalKind::constant;
}

void check_rate(ConfigMap& m, double rate) {
  check_real_range(m.where("rate"), rate, {kMinArrivalRate, kMaxArrivalRate}, Dimension::fraction,
                   "requests per second: a slower rate has a mean gap beyond the 1e7 s longest duration, a faster "
                   "one gaps below the clock's 1 ns tick");
}

void check_schedule(const std::string& where, double seconds, const std::string& what) {
  if (seconds <= kMaxScheduleSeconds) return;
  throw Error(fmt::format("{}: {} spans about {:.3g} s, beyond the {:g} s (3.2 years) servesim simulates: simulated "
                          "time is int64 nanoseconds kept within 1e9 s; use fewer requests or a higher rate",
                          where, what, seconds, kMaxScheduleSeconds));
}

}  // namespace

void check_workload_limits(ConfigMap& workload, ConfigMap& arrival, const WorkloadSpec& w) {
  if (w.requests > kMaxRequests)
    check_integer_range(workload.where("requests"), w.requests, {1, kMaxRequests},
                        "about 20 minutes of simulation at 1M requests/s");
  if (w.trace) return;  // a trace's size and times are checked as it is read

  const ArrivalSpec& a = w.arrival;
  // Expected span of the arrival schedule (the duration cap ends it sooner).
  double span = 0.0;
  if (is_renewal(a.kind)) {
    check_rate(arrival, a.rate);
    if (w.requests > 0) span = static_cast<double>(w.requests) / a.rate;
  } else if (a.kind == ArrivalKind::all_at_once) {
    if (w.requests > kMaxRequestsAtOnce)
      check_integer_range(workload.where("requests"), w.requests, {1, kMaxRequestsAtOnce},
                          "all_at_once queues every request at t = 0");
  } else if (a.kind == ArrivalKind::closed_loop) {
    check_integer_range(arrival.where("users"), a.users, {1, kMaxClosedLoopUsers},
                        "one queued entry per user from t = 0; far more users than any engine batches");
    // Each user's requests are at least think_time apart.
    if (w.requests > 0)
      span = static_cast<double>(w.requests) / static_cast<double>(a.users) * a.think_time_s;
  } else if (a.kind == ArrivalKind::multi_stage) {
    const auto stages = arrival.get("stages");
    for (std::size_t i = 0; i < a.stages.size(); ++i) {
      ConfigMap stage(stages->items()[i], arrival.file(), fmt::format("{}[{}]", arrival.key_path("stages"), i));
      const ArrivalStage& st = a.stages[i];
      check_rate(stage, st.rate);
      if (st.requests > kMaxRequests)
        check_integer_range(stage.where("requests"), st.requests, {1, kMaxRequests},
                            "about 20 minutes of simulation at 1M requests/s");
      span += st.duration_s ? *st.duration_s : static_cast<double>(st.requests) / st.rate;
    }
  }
  if (w.duration_s) span = std::min(span, *w.duration_s);
  check_schedule(arrival.where(), span,
                 a.kind == ArrivalKind::closed_loop ? "the schedule (requests / users x think_time)"
                                                    : "the arrival schedule (requests / rate)");
  if (w.multi_turn)
    check_schedule(workload.where("multi_turn"),
                   span + static_cast<double>(w.multi_turn->turns - 1) * w.multi_turn->think_time_s,
                   "the arrival schedule plus a session's turns x think_time");
}

}  // namespace servesim
