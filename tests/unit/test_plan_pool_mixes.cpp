// `plan` over a heterogeneous fleet's pools (planning/pool_mix_plan.h): mixes of replica
// counts in order of their price per hour, the first sustainable one the answer.
#include <catch2/catch.hpp>

#include "config/yaml_text.h"
#include "planning/pool_mix_plan.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::planning;
using servesim::testing::error_of;

namespace {

// Llama-3.1-8B at `rate` req/s, 1000-token prompts and 200-token answers, two pools: H100
// at $3/hour and L40S at $1/hour a GPU (prices set here, so the costs below are exact).
std::string fleet(double rate, const std::string& extra = "") {
  return "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nparallelism: {tp: 1}\n"
         "engine: {kind: vllm, max_num_seqs: 64}\n"
         "workload: {seed: 5, requests: 1000, arrival: {process: poisson, rate: " +
         std::to_string(rate) +
         "}, input_tokens: {dist: fixed, value: 1000}, output_tokens: {dist: fixed, value: 200}}\n"
         "slo: {ttft_ms: {p99: 1000}, tpot_ms: {p99: 60}}\n"
         "pools: [{name: h100, replicas: 1, price_per_hour: \"3 USD/h\"}, "
         "{name: l40s, gpu: l40s, replicas: 1, price_per_hour: \"1 USD/h\"}]\n" +
         extra;
}

PlanOptions options(int threads = 1, int max_replicas = 4) {
  PlanOptions o;
  o.trial_requests = 200;
  o.threads = threads;
  o.max_replicas = max_replicas;
  return o;
}

}  // namespace

TEST_CASE("plan over pools: mixes cheapest first, the first sustainable one the best", "[planning][pools]") {
  const PoolMixPlan p = plan_pool_mixes(parse_yaml_text(fleet(12)), "t.yaml", options());
  REQUIRE(p.pools.size() == 2);
  CHECK(p.pools[0].usd_per_replica_hour == 3.0);
  CHECK(p.pools[1].usd_per_replica_hour == 1.0);
  // Mixes (h, l) with 0..4 of each, not both 0: 5 x 5 - 1 = 24.
  CHECK(p.mixes_in_ceiling == 24);
  REQUIRE(p.best);
  // Each mix's price is 3 h + 1 l dollars an hour; tried in nondecreasing price, every
  // one before the best failing.
  for (std::size_t i = 0; i < p.tried.size(); ++i) {
    const PoolMix& m = p.tried[i];
    CHECK(m.usd_per_hour == 3.0 * m.replicas[0] + 1.0 * m.replicas[1]);
    CHECK(m.gpus == m.replicas[0] + m.replicas[1]);
    if (i > 0) CHECK(m.usd_per_hour >= p.tried[i - 1].usd_per_hour);
    if (i < *p.best) CHECK(!m.sustainable);
  }
  CHECK(p.best == p.tried.size() - 1);
  const PoolMix& best = p.tried[*p.best];
  CHECK(best.sustainable);
  REQUIRE(best.trial);
  // The trial ran the mix's replicas only: a pool at 0 is removed, not run empty.
  std::size_t pools_run = 0;
  for (int n : best.replicas) pools_run += n > 0 ? 1 : 0;
  CHECK(best.trial->summary.pools.size() == pools_run);
  // 200 output tokens a request at 12 req/s: 2,400 tok/s; $/M = $/hour / (2400 x 3600) x 1e6.
  CHECK(best.usd_per_million_output_tokens == Approx(best.usd_per_hour / (2400.0 * 3600.0) * 1e6));
  CHECK_THAT(pool_mix_plan_table(p), Catch::Contains("<- best"));
  CHECK(pool_mix_plan_json(p)["best"]["usd_per_hour"] == best.usd_per_hour);
}

TEST_CASE("plan over pools: the same answer on one thread and two", "[planning][pools]") {
  const PoolMixPlan a = plan_pool_mixes(parse_yaml_text(fleet(12)), "t.yaml", options(1));
  const PoolMixPlan b = plan_pool_mixes(parse_yaml_text(fleet(12)), "t.yaml", options(2));
  REQUIRE(a.best);
  REQUIRE(b.best);
  CHECK(a.tried.size() == b.tried.size());
  CHECK(pool_mix_plan_csv(a) == pool_mix_plan_csv(b));
}

TEST_CASE("plan over pools: an unreachable target, a GPU budget, no SLO", "[planning][pools]") {
  // 1000 req/s on at most 1 replica per pool: no mix can serve it.
  const PoolMixPlan p = plan_pool_mixes(parse_yaml_text(fleet(1000)), "t.yaml", options(1, 1));
  CHECK(p.mixes_in_ceiling == 3);
  CHECK(!p.best);
  CHECK(p.tried.size() == 3);
  CHECK_THAT(p.note, Catch::Contains("no mix of up to 1 replicas per pool meets the SLOs at 1000 req/s"));
  // A GPU budget of 2 leaves (1,0), (0,1), (2,0), (1,1), (0,2) of the 0..4 grid: 5 mixes.
  PlanOptions o = options();
  o.gpu_budget = 2;
  CHECK(plan_pool_mixes(parse_yaml_text(fleet(1000)), "t.yaml", o).mixes_in_ceiling == 5);
  // No SLO: nothing to plan for.
  std::string no_slo = fleet(12);
  no_slo.replace(no_slo.find("slo: {ttft_ms: {p99: 1000}, tpot_ms: {p99: 60}}\n"),
                 std::string("slo: {ttft_ms: {p99: 1000}, tpot_ms: {p99: 60}}\n").size(), "");
  CHECK_THAT(error_of([&] { plan_pool_mixes(parse_yaml_text(no_slo), "t.yaml", options()); }),
             Catch::Contains("plan needs SLOs"));
}
