#pragma once
// What the xPyD and pool-mix plans report of one trial at the target rate (their tables'
// columns in JSON), and goodput at an operating point.
#include <nlohmann/json.hpp>

#include "planning/capacity.h"

namespace servesim::planning {

// The share of offered requests that met every SLO times the offered rate. (RunSummary::
// goodput_rps divides by the run's span, first arrival to last completion, which includes the
// queue's drain after the last arrival: a trial of 2000 requests at 20 req/s with 100%
// attainment reads about 17 req/s there.)
inline double offered_goodput(const Trial& t) { return t.summary.slo_attainment * t.rate; }

// The trial's tail latencies, SLO attainment and goodput into `x`.
inline void add_trial_fields(nlohmann::ordered_json& x, const Trial& t) {
  const RunSummary& r = t.summary;
  x["ttft_p99_ms"] = r.ttft_ms.p99;
  x["tpot_p99_ms"] = r.tpot_ms.p99;
  x["slo_attainment"] = r.slo_attainment;
  x["goodput_rps"] = offered_goodput(t);
}

}  // namespace servesim::planning
