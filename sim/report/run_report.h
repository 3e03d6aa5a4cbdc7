#pragma once
// The summary a finished run reports (`run --json`, `--out DIR/summary.json`, the
// Python module's Result.summary): the metrics, the resolved configuration that
// produced them, and the uncertainty bands of the closest measured runs, widened by
// the simulation's own spread across seeds.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "run/simulation.h"
#include "scenario/scenario.h"

namespace servesim {

nlohmann::json run_report_json(const Scenario& scenario, const SimulationResult& result);

// Replicate seeds when the caller does not say how many: this many, for runs of at most
// kAutoReplicateRequests requests (a 1M-request benchmark is not re-run).
constexpr int kAutoReplicates = 4;
constexpr std::int64_t kAutoReplicateRequests = 50000;

// Replays the scenario with `replicates` more seeds (seed+1 ... seed+N) and widens the
// report's bands by their spread (uncertainty/bands.h, widen_by_seed_spread). replicates
// < 0: automatic — kAutoReplicates where a band exists and the run has at most
// kAutoReplicateRequests requests (a few thousand requests at moderate load already
// spread a p99 by tens of percent across seeds, and replaying them costs a fraction of a
// second), else none. The CLI (`run --seed-replicates`) and Python (`seed_replicates=`)
// share this, so their summaries are the same bytes.
void add_seed_spread(nlohmann::json& report, const Scenario& scenario, const SimulationResult& result,
                     int replicates, bool fast_forward);

}  // namespace servesim
