// `plan` on an autoscaled scenario (planning/fleet_comparison.h): the target is the
// peak stage of a multi-stage workload, candidates are sized without the autoscale
// section, and the best candidate's fleet runs the whole workload fixed and
// autoscaled; a heterogeneous fleet is refused.
#include <catch2/catch.hpp>

#include "config/yaml_text.h"
#include "planning/plan.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::planning;
using servesim::testing::error_of;

namespace {

// Llama-3.1-8B on H100: 3 req/s for 10 min, 24 req/s for 10 min, 3 req/s for 20 min.
std::string day(const std::string& extra) {
  return "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nparallelism: {tp: 1, replicas: 8}\n"
         "engine: {kind: vllm, max_num_seqs: 64}\n"
         "workload: {seed: 3, arrival: {process: multi_stage, stages: [{process: poisson, rate: 3, duration: \"10 min\"}, "
         "{process: poisson, rate: 24, duration: \"10 min\"}, {process: poisson, rate: 3, duration: \"20 min\"}]}, "
         "input_tokens: {dist: fixed, value: 1000}, output_tokens: {dist: fixed, value: 300}}\n"
         "slo: {ttft_ms: {p99: 1000}, tpot_ms: {p99: 20}}\n" + extra;
}

}  // namespace

TEST_CASE("plan on an autoscaled day: sized for the peak stage, then the fleet run fixed and autoscaled",
          "[planning][autoscale]") {
  PlanOptions o;
  o.search.trial.requests = 300;
  const PlanResult p = plan(parse_yaml_text(day("autoscale: {min_replicas: 1, interval: \"15 s\", target_queue: 2, "
                                                "provision: \"60 s\", scale_down_window: \"120 s\"}\n")),
                            "t.yaml", o);
  REQUIRE(p.target_rate);
  CHECK(*p.target_rate == 24.0);  // the busiest stage
  CHECK(p.target_note == "the peak of the workload's stages");
  const Candidate& best = p.candidates.front();
  REQUIRE(best.rank == 1);
  // The replicas the plan sized: ceil(24 / max rate per replica).
  CHECK(best.replicas == static_cast<int>(std::ceil(24.0 / best.capacity.max_rate - 1e-9)));
  REQUIRE(best.replicas >= 2);
  REQUIRE(p.fleet);
  const FleetRun& f = p.fleet->fixed;
  const FleetRun& a = p.fleet->autoscaled;
  CHECK(f.max_replicas == best.replicas);
  CHECK(a.max_replicas == best.replicas);
  // Fixed: every replica's GPU over the run: replicas x 1 GPU x duration / 3600, at $2.99 (h100-sxm.yaml).
  CHECK(f.gpu_hours == Approx(best.replicas * f.duration_s / 3600.0));
  CHECK(f.usd == Approx(f.gpu_hours * 2.99));
  CHECK(f.mean_serving == best.replicas);
  // Both fleets serve the same offered requests; the autoscaled one serves fewer replicas on
  // average (3 req/s for 30 of the 40 minutes) and holds fewer GPU-hours.
  CHECK(f.completed + f.failed == a.completed + a.failed);
  CHECK(a.mean_serving < f.mean_serving);
  CHECK(a.gpu_hours < f.gpu_hours);
  CHECK_THAT(plan_table(p), Catch::Contains("fixed vs autoscaled fleet over the whole workload"));
  CHECK(plan_json(p).contains("fleet_comparison"));
}

TEST_CASE("plan refuses a heterogeneous fleet", "[planning][pools]") {
  PlanOptions o;
  const std::string text =
      "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nparallelism: {tp: 1}\nengine: {kind: vllm}\n"
      "workload: {requests: 10, arrival: {process: poisson, rate: 4}, input_tokens: {dist: fixed, value: 100}, output_tokens: "
      "{dist: fixed, value: 10}}\nslo: {ttft_ms: {p99: 500}}\npools: [{name: a, replicas: 1}, {name: b, gpu: "
      "a100-sxm4-80gb, replicas: 1}]\n";
  CHECK_THAT(error_of([&] { plan(parse_yaml_text(text), "t.yaml", o); }), Catch::Contains("heterogeneous fleet (pools)"));
}
