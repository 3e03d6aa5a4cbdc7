#pragma once
// Sizing a heterogeneous fleet (the scenario's `pools:`, scenario/fleet_pools.h): how
// many replicas of each pool serve a target rate under the SLOs at the lowest cost.
//
// The search: every mix of replica counts (n_1, ..., n_k), each pool from 0 to its
// ceiling and at least one replica in all, in order of its price per hour
// (sum of n_i x GPUs per replica x the pool's price per GPU-hour; ties: fewer GPUs,
// then the mix that lists more replicas in the earlier pools). Each mix is judged by
// one trial of the whole fleet at the target rate behind the scenario's router (the
// trial of capacity.h: SLOs met and the queue not growing), with `trial_requests`
// requests per replica in the mix. Mixes are tried in that order, `threads` at a
// time; the first sustainable one is the cheapest: every cheaper mix was tried and
// failed. The table lists the mixes tried up to it, so it does not depend on -j.
// A pool left at 0 replicas is removed from the mix's scenario.
//
// Ceilings: a pool's `replicas` in the file is not a ceiling (the plan chooses it);
// each pool goes up to plan.max_replicas (--max-replicas), else kMaxMixReplicas, and
// the mix's GPUs to --gpu-budget when given. At most kMaxMixTrials trials are run; a
// plan that stops there says so.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/config_node.h"
#include "planning/plan.h"

namespace servesim::planning {

inline constexpr int kMaxMixReplicas = 16;
inline constexpr std::size_t kMaxMixTrials = 200;

struct PoolMixPool {
  std::string name, label;      // "h100", "h100-sxm bf16 tp=1"
  int gpus_per_replica = 1;
  double usd_per_replica_hour = 0;
};

struct PoolMix {
  std::vector<int> replicas;    // per pool, in the scenario's order
  int gpus = 0;
  double usd_per_hour = 0;      // closed form: the replicas' GPUs at each pool's price
  std::optional<Trial> trial;   // at the target rate
  bool sustainable = false;
  std::string failure;          // why not ("" when sustainable)
  double usd_per_million_output_tokens = 0;
};

struct PoolMixPlan {
  double target_rate = 0;
  std::vector<PoolMixPool> pools;
  int max_replicas_per_pool = 0;
  std::optional<int> gpu_budget;
  std::size_t mixes_in_ceiling = 0;  // mixes the ceilings allow
  std::vector<PoolMix> tried;        // in cost order, up to the best
  std::optional<std::size_t> best;   // index into tried
  std::string note;                  // why there is no best, when there is none
};

// The mix's name: "h100=2 l40s=0".
std::string mix_label(const PoolMixPlan& p, const PoolMix& m);

// `doc` is the scenario with its pools section. Throws servesim::Error when there is no
// target rate, no SLO, a pool without a price, or a trace workload.
PoolMixPlan plan_pool_mixes(const ConfigNode& doc, const std::string& source, const PlanOptions& options);

std::string pool_mix_plan_table(const PoolMixPlan& p);
nlohmann::ordered_json pool_mix_plan_json(const PoolMixPlan& p);
std::string pool_mix_plan_csv(const PoolMixPlan& p);

}  // namespace servesim::planning
