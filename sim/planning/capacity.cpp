#include "planning/capacity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "metrics/queue_growth.h"
#include "metrics/request_result.h"
#include "metrics/requests_csv.h"
#include "metrics/summary_json.h"
#include "scenario/setup.h"
#include "util/error.h"

namespace servesim::planning {
namespace {

double mean_of(const std::vector<std::pair<double, double>>& v, std::size_t a, std::size_t b) {
  if (b <= a) return 0;
  double s = 0;
  for (std::size_t i = a; i < b; ++i) s += v[i].second;
  return s / static_cast<double>(b - a);
}

// (arrival_s, queue_ms) of the completed requests, at requests.csv precision (as before).
std::vector<std::pair<double, double>> queue_delays(const RequestResults& results) {
  std::vector<std::pair<double, double>> out;
  out.reserve(results.size());
  for (const RequestResult& exact : results) {
    if (exact.failed) continue;
    const RequestResult r = at_csv_precision(exact);
    out.emplace_back(r.arrival_s, r.queue_ms);
  }
  return out;
}

// The first SLO a run missed, as "slo:metric.statistic", and a description.
std::string first_missed_slo(const RunSummary& s, double attainment_required, std::string* detail) {
  for (const auto& r : s.slo)
    if (!r.met) {
      *detail = fmt::format("{} {} {:.1f} ms > {:g} ms", r.metric, r.statistic, r.value_ms, r.limit_ms);
      return fmt::format("slo:{}.{}", r.metric, r.statistic);
    }
  *detail = fmt::format("SLO attainment {:.1f}% < {:.1f}%", 100 * s.slo_attainment, 100 * attainment_required);
  return "slo:attainment";
}

}  // namespace

Scenario trial_scenario(const Scenario& base, double rate, const TrialOptions& options) {
  if (base.workload.trace)
    throw Error("capacity search needs a synthetic workload (arrival and length distributions), not a trace");
  Scenario sc = base;
  ArrivalSpec& a = sc.workload.arrival;
  if (a.kind != ArrivalKind::poisson && a.kind != ArrivalKind::gamma && a.kind != ArrivalKind::constant) {
    a = ArrivalSpec{};
    a.kind = ArrivalKind::poisson;
  }
  a.rate = rate;
  a.stages.clear();
  sc.workload.requests = options.requests;
  sc.workload.duration_s.reset();
  return sc;
}

bool queue_grows(std::vector<std::pair<double, double>> aq, const TrialOptions& options, double* mid_ms,
                 double* last_ms) {
  std::sort(aq.begin(), aq.end());
  const std::size_t n = aq.size();
  const double mid = mean_of(aq, n * 4 / 10, n * 6 / 10);
  const double last = mean_of(aq, n * 8 / 10, n);
  if (mid_ms) *mid_ms = mid;
  if (last_ms) *last_ms = last;
  return queue_delay_grows(mid, last, QueueGrowthRule{options.saturation_ratio, options.saturation_floor_ms});
}

Trial run_trial(const Scenario& base, double rate, const TrialOptions& options) {
  const Scenario sc = trial_scenario(base, rate, options);
  RequestResults requests;
  SimulationOptions so;
  so.request_results = &requests;
  so.concurrent_runs = options.concurrent_runs;
  const SimulationResult r = simulate(sc, so);
  Trial t;
  t.rate = rate;
  t.summary = r.summary;
  t.kv_blocks = r.kv_blocks_per_replica;
  t.attainment_required = sc.slo.attainment;
  t.saturated = queue_grows(queue_delays(requests), options, &t.queue_mid_ms, &t.queue_last_ms);
  t.slo_met = r.summary.slo_met && r.summary.completed > 0;
  if (r.summary.failed > 0)
    t.failure = fmt::format("{} of {} requests failed ({})", r.summary.failed,
                            r.summary.completed + r.summary.failed, failures_text(r.summary.failures));
  else if (t.saturated)
    t.failure = fmt::format("saturated: mean queue delay grows from {:.0f} ms (middle 20% of requests) to {:.0f} ms "
                            "(last 20%)",
                            t.queue_mid_ms, t.queue_last_ms);
  else if (!t.slo_met) {
    std::string detail;
    first_missed_slo(r.summary, sc.slo.attainment, &detail);
    t.failure = "SLO missed: " + detail;
  }
  return t;
}

std::string dominant_resource(const RunSummary& s) {
  if (s.preemptions > 0 || s.kv_utilization_max > 0.95) return "kv-capacity";
  static const char* names[kBoundCount] = {"compute", "bandwidth", "communication", "overhead"};
  int best = 0;
  for (int i = 1; i < kBoundCount; ++i)
    if (s.bound_share[i] > s.bound_share[best]) best = i;
  return names[best];
}

std::pair<std::string, std::string> binding_constraint(const Trial& t) {
  const RunSummary& s = t.summary;
  const std::string at = fmt::format("at {:.3g} req/s", t.rate);
  if (s.failed > 0) return {"failures", fmt::format("{} {}", t.failure, at)};
  if (s.preemptions > 0 || s.kv_utilization_max > 0.95)
    return {"kv-capacity", fmt::format("KV cache full {}: {:.0f}% peak use, {} preemptions{}", at,
                                       100 * s.kv_utilization_max, s.preemptions,
                                       t.saturated ? ", queue growing" : "")};
  const std::string res = dominant_resource(s);
  const double share = res == "compute"   ? s.bound_share[0]
                       : res == "bandwidth" ? s.bound_share[1]
                       : res == "communication" ? s.bound_share[2] : s.bound_share[3];
  if (t.saturated)
    return {res, fmt::format("saturated {}: queue delay {:.0f} -> {:.0f} ms; {} took {:.0f}% of GPU time, busy {:.0f}%",
                             at, t.queue_mid_ms, t.queue_last_ms, res, 100 * share, 100 * s.busy_fraction)};
  std::string detail;
  const std::string binding = first_missed_slo(s, t.attainment_required, &detail);
  return {binding, fmt::format("{} {}; GPU time {:.0f}% {}", detail, at, 100 * share, res)};
}

CapacityResult find_max_rate(const Scenario& base, const SearchOptions& options) {
  CapacityResult out;
  const CostModel cost = make_cost_model(base);
  out.memory = plan_setup_memory(base, cost);
  out.fits = out.memory.fits;
  if (!out.fits) {
    out.error = out.memory.verdict;
    out.binding = "memory";
    out.binding_detail = "does not fit: " + out.memory.verdict;
    return out;
  }
  // Saturation probe: every request at t = 0.
  {
    Scenario probe = trial_scenario(base, 1.0, options.trial);
    probe.workload.arrival = ArrivalSpec{};
    probe.workload.arrival.kind = ArrivalKind::all_at_once;
    const SimulationResult r = simulate(probe);
    out.kv_blocks = r.kv_blocks_per_replica;
    out.saturation_rps = r.summary.requests_per_s;
    // Requests that cannot be served at any rate (too long, larger than the KV
    // cache) make every rate infeasible: say so instead of searching.
    if (r.summary.failed > 0) {
      out.error = fmt::format("{} of {} requests cannot be served at any rate ({})", r.summary.failed,
                              r.summary.completed + r.summary.failed, failures_text(r.summary.failures));
      out.binding = "failures";
      out.binding_detail = out.error;
      return out;
    }
  }
  if (!(out.saturation_rps > 0)) {
    out.error = "no request completes (prompts longer than the KV cache or max_model_len?)";
    out.binding = "kv-capacity";
    out.binding_detail = out.error;
    return out;
  }
  const double x = out.saturation_rps;
  const double floor_rate = std::max(options.min_rate, x / 256.0);
  double lo = 0, hi = std::numeric_limits<double>::infinity();
  double r = 0.7 * x;
  for (int k = 0; k < options.max_trials; ++k) {
    Trial t = run_trial(base, r, options.trial);
    const bool ok = t.sustainable();
    out.trials.push_back(t);
    if (ok && r > lo) {
      lo = r;
      out.at_max = t;
    } else if (!ok && r < hi) {
      hi = r;
      out.above_max = t;
    }
    if (std::isinf(hi)) {
      r = r < x ? std::max(r * 1.0001, std::min(2 * r, 1.02 * x)) : 2 * r;
    } else if (lo == 0) {
      r = r / 2;
      if (r < floor_rate) break;
    } else if ((hi - lo) / lo <= options.tolerance) {
      break;
    } else {
      r = 0.5 * (lo + hi);
    }
  }
  out.max_rate = lo;
  if (out.above_max) {
    auto [b, d] = binding_constraint(*out.above_max);
    out.binding = b;
    out.binding_detail = d;
  }
  if (lo == 0) {
    out.error = out.above_max ? fmt::format("the SLOs are not met even at {:.3g} req/s ({})", out.above_max->rate,
                                            out.above_max->failure)
                              : "no sustainable rate found";
  }
  return out;
}

}  // namespace servesim::planning
