#pragma once
// Maximum sustainable request rate of one configuration under its SLOs (goodput).
//
// A trial simulates `requests` requests of the scenario's workload (same seed,
// same length distributions) arriving at a given rate: poisson, or the
// scenario's own gamma/constant process at the new rate; closed-loop, one-shot
// and multi-stage arrivals become poisson. A rate is SUSTAINABLE when
//   (1) the scenario's SLOs are met (every percentile limit, and the attainment
//       share when set), and
//   (2) the run is not saturated: ordering completed requests by arrival, the
//       mean queue delay (arrival to first scheduling) of the last 20% is not
//       more than `saturation_ratio` (1.5x) the mean of the middle 20% (40-60%)
//       plus `saturation_floor_ms` (25 ms). A stable queue has the same delay
//       distribution throughout the run (ratio ~1); an overloaded one has a
//       backlog, and so a queue delay, that grows with time: growing linearly
//       from the start it gives 0.9 / 0.5 = 1.8, hence 1.5 rather than 2. The
//       floor keeps the millisecond-level jitter of a lightly loaded engine from
//       counting as growth.
//
// The search: one "all at once" probe gives the saturation throughput X (req/s
// completed with an unbounded queue, the most the configuration can serve);
// trials start at 0.7 X, go up (to 1.02 X, then doubling) until one fails and
// down (halving) until one passes, then bisect until (hi - lo) / lo <= tolerance
// (2.5%). The result is the highest passing rate, `lo`. Deterministic for a seed:
// every trial reuses the same random streams, so arrival gaps are the same draws
// scaled by 1/rate.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/plan_section.h"
#include "run/simulation.h"
#include "scenario/scenario.h"

namespace servesim::planning {

struct TrialOptions {
  std::int64_t requests = kDefaultTrialRequests;  // per trial
  double saturation_ratio = 1.5;    // last-20% over middle-20% mean queue delay
  double saturation_floor_ms = 25;  // ... plus this much
  int concurrent_runs = 1;          // trials run at once (plan -j), for the overload guard
};

struct Trial {
  double rate = 0;  // offered, requests per second (to the whole scenario, all replicas)
  RunSummary summary;
  std::int64_t kv_blocks = 0;      // per replica
  double queue_mid_ms = 0;         // mean queue delay of the middle 20% of requests (by arrival)
  double queue_last_ms = 0;        // ... and of the last 20%
  bool saturated = false;
  bool slo_met = false;
  double attainment_required = 0;  // the scenario's slo.attainment (0: none)
  std::string failure;             // why it is not sustainable ("" when it is)
  bool sustainable() const { return slo_met && !saturated; }
};

// The trial's scenario: `base` with its workload switched to `requests` requests at `rate`.
Scenario trial_scenario(const Scenario& base, double rate, const TrialOptions& options);
// Simulates it and judges it. Throws servesim::Error when the model does not fit.
Trial run_trial(const Scenario& base, double rate, const TrialOptions& options);
// The saturation test on (arrival_s, queue_ms) pairs of completed requests.
bool queue_grows(std::vector<std::pair<double, double>> arrival_queue, const TrialOptions& options, double* mid_ms,
                 double* last_ms);

struct SearchOptions {
  TrialOptions trial;
  double tolerance = kDefaultSearchTolerance;  // relative width of the final bracket
  int max_trials = 30;
  double min_rate = 1e-3;    // below this, give up: the SLOs cannot be met at any load
};

struct CapacityResult {
  bool fits = false;               // the model and some KV cache fit in memory
  std::string error;               // memory verdict or loader error when it cannot run
  MemoryPlan memory;
  std::int64_t kv_blocks = 0;
  double saturation_rps = 0;       // all-at-once probe throughput
  double max_rate = 0;             // highest sustainable rate (0: none found)
  std::optional<Trial> at_max;     // the trial at max_rate
  std::optional<Trial> above_max;  // the lowest failing trial (what broke first)
  std::vector<Trial> trials;       // every trial, in the order run
  std::string binding;             // "memory", "kv-capacity", "compute", "bandwidth", "communication",
                                   // "overhead" or "slo:<metric>.<statistic>" / "slo:attainment"
  std::string binding_detail;      // one sentence
};

CapacityResult find_max_rate(const Scenario& base, const SearchOptions& options);

// The resource a run leaned on: "kv-capacity" when it preempted or filled more
// than 95% of the KV cache, else the largest share of GPU time (RunSummary.
// bound_share): "compute", "bandwidth" (HBM), "communication" or "overhead".
std::string dominant_resource(const RunSummary& s);
// What a failing trial hit first, as {binding, one-sentence detail}: "failures"
// when requests could not be served (too long, above the KV cache); KV capacity
// when it was KV-limited; the dominant resource when the queue grew
// (saturation); else the first SLO it missed ("slo:tpot_ms.p99", "slo:attainment").
std::pair<std::string, std::string> binding_constraint(const Trial& failing);

}  // namespace servesim::planning
