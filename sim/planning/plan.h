#pragma once
// Capacity planning: for each candidate configuration (GPU x weight precision x
// TP x PP), the maximum sustainable request rate per replica under the
// scenario's SLOs (capacity.h), the replicas and GPUs a target rate needs, what
// they cost per hour, per million output tokens and in joules per token
// (economics.h), the binding constraint, and the Pareto frontier of output
// throughput per GPU against per-user generation speed.
//
// Candidates come from the scenario's optional plan section (a `plan:` key of a
// second YAML document after `---`, which `run` and `inspect` never read, or a
// top-level `plan:` key, removed before the scenario is parsed; other commands
// check it and leave it), read by config/plan_reader.h:
//   plan:
//     target_rate: 50                    # req/s in total (default: the workload's arrival rate)
//     gpu_budget: 64                     # instead of (or as well as) a target
//     max_replicas: 64
//     trial_requests: 600                # requests per trial
//     tolerance: 0.025                   # relative precision of the rate search
//     candidates: {gpu: [h100-sxm, h200-sxm], weights: [bf16, fp8], tp: [2, 4, 8], pp: [1]}
// and command-line flags override them. A missing candidate list means the
// scenario's own value. Weight precisions set model.weights and the matching
// compute precision (16-bit weights compute in themselves, fp8 in fp8 where the
// GPU supports it, anything narrower in bf16: weight-only quantisation); the KV
// cache precision stays the scenario's.
#include "config/config_node.h"
#include "config/plan_section.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "planning/capacity.h"
#include "planning/economics.h"
#include "planning/fleet_comparison.h"

namespace servesim::planning {

// The plan section's fields (target, budget, candidate lists, trial size,
// tolerance: config/plan_section.h), then what only flags set.
struct PlanOptions : PlanSection {
  SearchOptions search;               // trial.requests and tolerance come from the two above
  int threads = 1;
  std::function<void(std::size_t, std::size_t)> progress;  // (candidates done, total)
};

struct Candidate {
  std::string gpu, weights;
  int tp = 1, pp = 1;
  Parallelism layout;      // tp, attention_dp, ep, redundant experts, pp of one replica
  std::string label;       // "h100-sxm bf16 tp=4"
  std::string precision;   // resolved, e.g. "W8A8 (fp8 weights, fp8 compute), bf16 KV"
  std::string error;       // why it cannot run at all (loader error, does not fit, SLO unreachable)
  std::optional<Scenario> scenario;  // one replica
  CapacityResult capacity;
  int gpus_per_replica = 1;
  // Filled for candidates that can serve (capacity.max_rate > 0):
  double tokens_per_gpu = 0;    // output tokens/s per GPU at the maximum rate
  double tokens_per_user = 0;   // output tokens/s per request = 1000 / mean TPOT at the maximum rate
  int replicas = 0;             // needed for the target, or that fit in the budget
  int gpus = 0;
  double total_rate = 0;        // req/s the replicas sustain (replicas * max_rate)
  std::optional<Trial> operating;  // one replica at its share of the target (or at max rate)
  Economics economics;          // at the operating point, for all `gpus`
  std::string status = "ok";    // ok | infeasible | over-budget | too-many-replicas
  bool pareto = false;
  int rank = 0;                 // 1 = best; 0 = not ranked
};

struct PlanResult {
  std::string model, source;
  std::optional<double> target_rate;
  std::optional<int> gpu_budget;
  int max_replicas = 0;
  SloSpec slo;
  SearchOptions search;
  std::vector<Candidate> candidates;  // ranked first, then the rest in candidate order
  // Why the best candidate won, against the best of every other layout (plan_explanation).
  std::string explanation;
  std::string target_note;  // where the target rate came from, when not given ("the peak of the workload's stages")
  // A scenario with an autoscale section: the best candidate's fleet over the whole
  // workload, fixed and autoscaled (fleet_comparison.h); why not, when it could not be.
  std::optional<FleetComparison> fleet;
  std::string fleet_note;
};

// With a candidate of DP attention or expert parallelism: one line per layout the best beat: what it gains or loses against it
// (cost, output per GPU, speed per user, KV capacity, what binds each), from the plan's
// own numbers; "" without a ranked candidate of another layout.
std::string plan_explanation(const PlanResult& p);

// Evaluates every candidate. Throws servesim::Error when there is no SLO, no
// target and no budget, or when no candidate can serve / fits the budget.
PlanResult plan(const ConfigNode& doc, const std::string& source, const PlanOptions& options);

std::string plan_table(const PlanResult& p);
nlohmann::ordered_json plan_json(const PlanResult& p);
std::string plan_csv(const PlanResult& p);

// Indices of the Pareto-optimal points among (x, y), both to maximise.
std::vector<bool> pareto_front(const std::vector<std::pair<double, double>>& points);

}  // namespace servesim::planning
