// NVIDIA Dynamo's throughput-based SLA planner (autoscale.planner: sla; run/sla_planner.h):
// its replica counts in closed form on a profile given here, the correction factors, an
// ITL no batch meets, no decision before a reading, and the planner on disaggregated pools
// end to end (the step in load, the report, the refusals).
#include <catch2/catch.hpp>

#include <cmath>

#include "run/simulation.h"
#include "run/sla_planner.h"
#include "run/sla_profile.h"
#include "scenario/disaggregation.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// A prompt of isl tokens alone: 10 ms + isl / 50,000 tokens/s. A decode step of b sequences
// at context c: 5 ms + b x (0.1 ms + c x 10 ns). At most 256 sequences.
SlaProfile toy_profile() {
  SlaProfile p;
  p.prefill_s = [](double isl) { return 0.010 + isl / 50000.0; };
  p.decode_step_s = [](int b, double c) { return 0.005 + b * (1e-4 + c * 1e-8); };
  p.max_batch = [](double) { return 256; };
  return p;
}

// A 60 s interval: `requests` arrived; those finished had ISL 1000 and OSL 200.
SlaInterval interval(double requests, double ttft_s, double itl_s, double duration_s = 5) {
  SlaInterval m;
  m.interval_s = 60;
  m.requests = requests;
  m.finished = static_cast<int>(requests);
  m.isl = 1000;
  m.osl = 200;
  m.ttft_s = ttft_s;
  m.itl_s = itl_s;
  m.duration_s = duration_s;
  return m;
}

}  // namespace

TEST_CASE("SLA planner: prefill instances are the prompt tokens/s over one instance's, the TTFT factor only lowering it",
          "[autoscale][sla_planner]") {
  // One prompt of 1000 tokens alone: 10 + 20 = 30 ms, so 1000 / 0.03 = 33,333 tokens/s an
  // instance. 3000 requests of 1000 tokens in 60 s: 50,000 tokens/s.
  SlaPlanner queued(toy_profile(), 0.02, true);
  // Measured TTFT 60 ms: factor 2 (queueing), min(1, 2) = 1: ceil(50,000 / 33,333) = ceil(1.5) = 2.
  SlaPlan p = queued.plan_prefill(interval(3000, 0.060, 0.02));
  CHECK(p.instances == 2);
  CHECK(p.correction == Approx(1.0));
  CHECK(p.per_instance == Approx(1000 / 0.030));
  // Measured TTFT 15 ms (prefix-cache hits): factor 0.5, 25,000 tokens/s: ceil(0.75) = 1.
  SlaPlanner cached(toy_profile(), 0.02, true);
  p = cached.plan_prefill(interval(3000, 0.015, 0.02));
  CHECK(p.correction == Approx(0.5));
  CHECK(p.instances == 1);
  // Without correction the profile alone: 2.
  SlaPlanner plain(toy_profile(), 0.02, false);
  CHECK(plain.plan_prefill(interval(3000, 0.015, 0.02)).instances == 2);
  // 7000 requests: 116,667 tokens/s, ceil(3.5) = 4.
  CHECK(plain.plan_prefill(interval(7000, 0.015, 0.02)).instances == 4);
}

TEST_CASE("SLA planner: decode instances are the output tokens/s over the best an instance does within the ITL",
          "[autoscale][sla_planner]") {
  // Context 1000 + 200 / 2 = 1100: a step of b is 5 ms + b x (0.1 + 0.011) ms = 5 + 0.111 b ms.
  // ITL 20 ms: b <= 15 / 0.111 = 135.1, so 135 sequences, a step of 19.985 ms, 6,755.07
  // tokens/s. 6000 requests x 200 tokens / 60 s = 20,000 tokens/s: ceil(2.961) = 3.
  SlaPlanner plain(toy_profile(), 0.020, false);
  SlaPlan p = plain.plan_decode(interval(6000, 0.05, 0.04), 2);
  CHECK(p.batch == 135);
  CHECK(p.per_instance == Approx(135 / 0.019985));
  CHECK(p.instances == 3);
  // With correction: concurrency per instance = 6000 / 2 x 5 s / 60 s = 250; expected ITL
  // at 250: 5 + 27.75 = 32.75 ms; measured 39.3 ms: factor 1.2, corrected ITL 16.667 ms:
  // b <= 11.667 / 0.111 = 105.1, so 105, a step of 16.655 ms, 6,304.4 tokens/s: ceil(3.172) = 4.
  SlaPlanner corrected(toy_profile(), 0.020, true);
  p = corrected.plan_decode(interval(6000, 0.05, 0.0393), 2);
  CHECK(p.correction == Approx(1.2));
  CHECK(p.batch == 105);
  CHECK(p.instances == 4);
  // A loose ITL: the batch stops at the most an instance holds (256).
  SlaPlanner loose(toy_profile(), 1.0, false);
  CHECK(loose.plan_decode(interval(6000, 0.05, 0.02), 2).batch == 256);
}

TEST_CASE("SLA planner: an ITL no batch meets plans one sequence a step and says so, and no reading gives no decision",
          "[autoscale][sla_planner]") {
  // A step of one sequence is 5.111 ms > 4 ms: planned at one, 195.66 tokens/s an
  // instance: ceil(20,000 / 195.66) = ceil(102.2) = 103.
  SlaPlanner tight(toy_profile(), 0.004, false);
  const SlaPlan p = tight.plan_decode(interval(6000, 0.05, 0.02), 2);
  CHECK(p.itl_unreachable);
  CHECK(p.batch == 1);
  CHECK(p.instances == 103);
  // Nothing finished yet: no ISL, OSL or latency to plan from.
  SlaPlanner fresh(toy_profile(), 0.02, true);
  SlaInterval none;
  none.interval_s = 60;
  none.requests = 100;
  CHECK(fresh.plan_prefill(none).instances == -1);
  CHECK(fresh.plan_decode(none, 1).instances == -1);
  // After a reading, an interval with arrivals but no completion keeps the last means and
  // factors and plans from its own arrivals: 1500 requests, 25,000 tokens/s, ceil(0.75) = 1.
  CHECK(fresh.plan_prefill(interval(3000, 0.060, 0.02)).instances == 2);
  SlaInterval quiet = none;
  quiet.requests = 1500;
  CHECK(fresh.plan_prefill(quiet).instances == 1);
}

namespace {

// Llama-3.1-8B bf16 on H100s, up to 4 prefill and 4 decode instances, one of each serving
// first; requests at a constant 2 req/s for 300 s, then 16 req/s for 300 s, then 2 req/s
// for 300 s; prompts of 3000 tokens, answers of 300.
std::string pd_scenario(const std::string& prefill, const std::string& decode) {
  return "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
         "parallelism: {tp: 1, replicas: 2, router: least_outstanding}\n"
         "engine: {kind: vllm, max_num_seqs: 256}\n"
         "disaggregation:\n"
         "  prefill: {replicas: 4, autoscale: " + prefill + "}\n"
         "  decode: {replicas: 4, autoscale: " + decode + "}\n"
         "  transfer: {bandwidth: \"50 GB/s\", latency: \"20 us\"}\n"
         "workload: {arrival: {process: multi_stage, stages: [{process: constant, rate: 2, duration: \"300 s\"}, "
         "{process: constant, rate: 16, duration: \"300 s\"}, {process: constant, rate: 2, duration: \"300 s\"}]}, "
         "input_tokens: {dist: fixed, value: 3000}, output_tokens: {dist: fixed, value: 300}}\n";
}

const char* kSlaPrefill = "{planner: sla, min_replicas: 1, interval: \"60 s\", scale_down_window: \"0 s\"}";
const char* kSlaDecode =
    "{planner: sla, target_itl: \"15 ms\", min_replicas: 1, interval: \"60 s\", scale_down_window: \"0 s\"}";

// The planner's count for an interval of `requests` of 3000 / 300 tokens in 60 s, on a
// pool's profile, without correction.
int planned(const ServingPool& pool, double requests, bool prefill, double itl_s) {
  SlaPlanner planner(sla_profile(pool), itl_s, false);
  SlaInterval m;
  m.interval_s = 60;
  m.requests = requests;
  m.finished = 1;
  m.isl = 3000;
  m.osl = 300;
  return prefill ? planner.plan_prefill(m).instances : planner.plan_decode(m, 1).instances;
}

}  // namespace

TEST_CASE("SLA planner on P/D pools: each pool reaches the planner's count for the interval's load and comes back",
          "[autoscale][sla_planner][disaggregation][sim]") {
  const std::string no_correction = ", correction: false}";
  auto without_correction = [&](std::string a) { return a.substr(0, a.size() - 1) + no_correction; };
  const Scenario sc = parse_scenario(
      parse_yaml_text(pd_scenario(without_correction(kSlaPrefill), without_correction(kSlaDecode))), "test.yaml", true);
  REQUIRE(sc.disaggregation);
  const DisaggregationSpec& spec = *sc.disaggregation;
  const ServingPool prefill_pool(spec.prefill, "disaggregation.prefill", false);
  const ServingPool decode_pool(spec.decode, "disaggregation.decode", false);
  // An interval of 16 req/s holds 960 requests (one more or less at its edges, which
  // must not change the count for the check below to be exact), one of 2 req/s 120.
  const int p16 = planned(prefill_pool, 960, true, 0), d16 = planned(decode_pool, 960, false, 0.015);
  REQUIRE(planned(prefill_pool, 959, true, 0) == p16);
  REQUIRE(planned(prefill_pool, 961, true, 0) == p16);
  REQUIRE(planned(decode_pool, 959, false, 0.015) == d16);
  REQUIRE(planned(decode_pool, 961, false, 0.015) == d16);
  const int p2 = planned(prefill_pool, 120, true, 0), d2 = planned(decode_pool, 120, false, 0.015);
  INFO("prefill: " << p2 << " at 2 req/s, " << p16 << " at 16; decode: " << d2 << ", " << d16);
  // The load steps up enough to need more of each.
  REQUIRE(std::max(1, p2) < std::min(4, p16));
  REQUIRE(std::max(1, d2) < std::min(4, d16));

  const RunWithCsv run = run_with_csv(sc, nullptr);
  const RunSummary& s = run.result.summary;
  REQUIRE(s.disaggregation);
  CHECK(s.failed == 0);
  const AutoscaleReport& p = *s.disaggregation->prefill.autoscale;
  const AutoscaleReport& d = *s.disaggregation->decode.autoscale;
  REQUIRE(p.sla);
  REQUIRE(d.sla);
  // A decision every 60 s while requests arrive (900 s): at least 15 readings a pool.
  CHECK(p.sla->decisions >= 15);
  CHECK(d.sla->decisions >= 15);
  CHECK(d.sla->itl_unreachable == 0);
  // Each pool grows to the count of a 16 req/s interval (its most: 4) and, after the
  // load falls, comes back to that of a 2 req/s one (its least: min_replicas 1).
  CHECK(p.max_serving == std::min(4, p16));
  CHECK(d.max_serving == std::min(4, d16));
  // Serving at 290 s (the first stage's planning, started) and at 890 s (the last stage's:
  // the decision at 720 s read 660-720 s, 2 req/s, and drained the rest).
  auto serving_at = [](const AutoscaleReport& a, double t) {
    int n = -1;
    for (const auto& [when, count] : a.serving_changes)
      if (when <= t) n = count;
    return n;
  };
  CHECK(serving_at(p, 290) == std::max(1, p2));
  CHECK(serving_at(d, 290) == std::max(1, d2));
  CHECK(serving_at(p, 890) == std::max(1, p2));
  CHECK(serving_at(d, 890) == std::max(1, d2));
  // Same scenario, same bytes.
  CHECK(run_with_csv(sc, nullptr).csv == run.csv);
}

TEST_CASE("SLA planner: misplaced and missing keys are refused at the key", "[autoscale][sla_planner][config]") {
  auto fails = [](const std::string& prefill, const std::string& decode, const std::string& what) {
    INFO(prefill << " / " << decode);
    CHECK_THROWS_WITH(parse_scenario(parse_yaml_text(pd_scenario(prefill, decode)), "test.yaml", true),
                      Catch::Contains(what));
  };
  fails(kSlaPrefill, "{planner: sla, min_replicas: 1}", "give target_itl");
  fails("{planner: sla, target_itl: \"20 ms\"}", kSlaDecode, "target_itl sizes the decode pool");
  fails("{planner: sla, target_queue: 4}", kSlaDecode, "target_queue is a signal of the hpa planner");
  fails("{target_queue: 4, target_itl: \"20 ms\"}", kSlaDecode, "read by planner: sla only");
  fails("{planner: slaa}", kSlaDecode, "sla");
  const std::string colocated =
      "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nparallelism: {tp: 1, replicas: 4}\n"
      "autoscale: {planner: sla, min_replicas: 1}\n"
      "workload: {requests: 10, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: 100}, "
      "output_tokens: {dist: fixed, value: 10}}\n";
  CHECK_THROWS_WITH(parse_scenario(parse_yaml_text(colocated), "test.yaml", true),
                    Catch::Contains("sizes the prefill and decode pools of a disaggregated deployment apart"));
}
