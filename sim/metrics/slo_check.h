#pragma once
// Judging latencies against an SLO (slo_spec.h), shared by the run's verdict
// (collector.cpp) and each request class's (class_metrics.h), so both apply the
// same rules: per-request limits are the tightest limit given per metric, and a
// statistic limit is met only when something was measured.
#include <algorithm>
#include <limits>
#include <vector>

#include "metrics/run_summary.h"
#include "metrics/slo_spec.h"
#include "metrics/stats.h"

namespace servesim {

// The limits one request must meet (ms; +inf where the SLO sets none). ITL is per
// token and judged on its distribution only.
struct PerRequestLimits {
  double ttft = std::numeric_limits<double>::infinity();
  double tpot = std::numeric_limits<double>::infinity();
  double e2e = std::numeric_limits<double>::infinity();

  explicit PerRequestLimits(const SloSpec& slo) {
    for (const auto& t : slo.targets) {
      if (t.metric == "ttft_ms") ttft = std::min(ttft, t.limit_ms);
      else if (t.metric == "tpot_ms") tpot = std::min(tpot, t.limit_ms);
      else if (t.metric == "e2e_ms") e2e = std::min(e2e, t.limit_ms);
    }
  }
  // has_tpot: the request has more than one output token (TPOT is undefined otherwise).
  bool met(double ttft_ms, double tpot_ms, bool has_tpot, double e2e_ms) const {
    return ttft_ms <= ttft && e2e_ms <= e2e && (!has_tpot || tpot_ms <= tpot);
  }
};

inline double distribution_statistic(const Distribution& d, const std::string& stat) {
  if (stat == "mean") return d.mean;
  if (stat == "p50") return d.p50;
  if (stat == "p90") return d.p90;
  if (stat == "p95") return d.p95;
  return d.p99;
}

// Each statistic limit of `slo` against the distributions (itl may be null: not measured).
inline std::vector<SloResult> slo_results(const SloSpec& slo, const Distribution& ttft, const Distribution& tpot,
                                          const Distribution* itl, const Distribution& e2e) {
  static const Distribution none;
  std::vector<SloResult> out;
  for (const auto& t : slo.targets) {
    const Distribution& d = t.metric == "ttft_ms" ? ttft
                            : t.metric == "tpot_ms" ? tpot
                            : t.metric == "itl_ms"  ? (itl ? *itl : none)
                                                    : e2e;
    SloResult r{t.metric, t.statistic, t.limit_ms, distribution_statistic(d, t.statistic), false};
    r.measured = d.count > 0;  // no completed request: nothing was measured, nothing is met
    r.met = r.measured && r.value_ms <= r.limit_ms;
    out.push_back(r);
  }
  return out;
}

// The verdict: every limit met, the attainment reached, and nothing failed (a
// verdict over the served requests alone would hide the ones that were not).
inline bool slo_verdict(const SloSpec& slo, const std::vector<SloResult>& results, double attainment,
                        std::int64_t completed, std::int64_t failed) {
  bool met = std::all_of(results.begin(), results.end(), [](const SloResult& r) { return r.met; });
  if (slo.attainment > 0 && attainment < slo.attainment) met = false;
  if (failed > 0 || completed == 0) met = false;
  return met;
}

}  // namespace servesim
