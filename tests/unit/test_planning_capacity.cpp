// Capacity planning: the maximum sustainable rate really is the edge (95% of it
// meets the SLOs, 110% does not), the saturation test, Pareto fronts, plan
// errors, and sanity properties of the models planning relies on: more HBM
// bandwidth never slows decode, fp8 KV never lowers KV capacity, cost scales
// with GPU count.
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include "cost/memory_plan.h"
#include "cost/batch.h"
#include "planning/capacity.h"
#include "planning/economics.h"
#include "planning/plan.h"
#include "planning/whatif.h"
#include "scenario/setup.h"
#include "util/error.h"
#include "config/plan_reader.h"
#include "config/scenario_reader.h"

using namespace servesim;
using namespace servesim::planning;

namespace {

// Llama-3.1-8B bf16 on one H100-SXM, chat-like lengths, tight SLOs.
std::string small_text(const std::string& extra = "") {
  return "hardware: {gpu: h100-sxm}\n"
         "model: {name: llama-3.1-8b, weights: bf16, activations: bf16, kv_cache: bf16}\n"
         "parallelism: {tp: 1}\n"
         "engine: {max_num_seqs: 128}\n"
         "workload:\n"
         "  seed: 7\n"
         "  requests: 400\n"
         "  arrival: {process: poisson, rate: 4}\n"
         "  input_tokens: {dist: lognormal, mean: 512, stddev: 256, max: 2048}\n"
         "  output_tokens: {dist: uniform, min: 32, max: 128}\n"
         "slo: {ttft_ms: {p99: 200}, tpot_ms: {p99: 25}}\n" +
         extra;
}

Scenario small(const std::string& extra = "") { return parse_scenario(parse_yaml_text(small_text(extra)), "t.yaml"); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("plan: the maximum rate is the edge of the SLOs", "[planning]") {
  const Scenario sc = small();
  SearchOptions opt;
  opt.trial.requests = 400;
  const CapacityResult c = find_max_rate(sc, opt);
  REQUIRE(c.fits);
  REQUIRE(c.max_rate > 0);
  REQUIRE(c.at_max);
  REQUIRE(c.above_max);
  CHECK(c.saturation_rps > c.max_rate * 0.5);
  // The final bracket is within the tolerance.
  CHECK((c.above_max->rate - c.max_rate) / c.max_rate <= opt.tolerance + 1e-12);
  const Trial below = run_trial(sc, 0.95 * c.max_rate, opt.trial);
  const Trial above = run_trial(sc, 1.10 * c.max_rate, opt.trial);
  CHECK(below.summary.slo_met);
  CHECK(below.sustainable());
  CHECK_FALSE(above.sustainable());
  CHECK_FALSE(above.summary.slo_met);
  // Deterministic: the same search gives the same answer.
  CHECK(find_max_rate(sc, opt).max_rate == c.max_rate);
  CHECK_FALSE(c.binding.empty());
}

TEST_CASE("plan: saturation is a queue delay that grows through the run", "[planning]") {
  TrialOptions o;
  std::vector<std::pair<double, double>> steady, growing;
  for (int i = 0; i < 100; ++i) {
    steady.emplace_back(i * 0.1, 5.0 + (i % 3));        // flat, jittery
    growing.emplace_back(i * 0.1, 10.0 + 20.0 * i);      // backlog grows linearly
  }
  double mid = 0, last = 0;
  CHECK_FALSE(queue_grows(steady, o, &mid, &last));
  CHECK(queue_grows(growing, o, &mid, &last));
  CHECK(last > 1.5 * mid);
  // Tiny absolute delays never count as growth (the floor).
  std::vector<std::pair<double, double>> tiny;
  for (int i = 0; i < 100; ++i) tiny.emplace_back(i, i < 80 ? 0.1 : 2.0);
  CHECK_FALSE(queue_grows(tiny, o, nullptr, nullptr));
}

TEST_CASE("plan: Pareto front keeps the undominated points", "[planning]") {
  const auto f = pareto_front({{100, 10}, {200, 5}, {150, 4}, {50, 20}, {100, 10}});
  CHECK(f == std::vector<bool>{true, true, false, true, true});
}

TEST_CASE("plan: more HBM bandwidth never slows decode", "[planning]") {
  const Scenario sc = small();
  Scenario faster = sc;
  faster.gpu.memory_bandwidth *= 1.5;
  const CostModel a = make_cost_model(sc), b = make_cost_model(faster);
  for (std::int64_t batch : {1, 8, 64, 256})
    for (std::int64_t ctx : {128, 2048, 16384}) {
      BatchSummary s;
      for (std::int64_t i = 0; i < batch; ++i) s.add(SeqWork{1, ctx, true});
      CHECK(b.step_time(s) <= a.step_time(s));
    }
  // And the simulated TPOT at low load follows.
  const Trial slow = run_trial(sc, 1.0, TrialOptions{100});
  const Trial fast = run_trial(faster, 1.0, TrialOptions{100});
  CHECK(fast.summary.tpot_ms.mean <= slow.summary.tpot_ms.mean);
  CHECK(fast.summary.tpot_ms.mean < 0.95 * slow.summary.tpot_ms.mean);  // decode is bandwidth-bound here
}

TEST_CASE("plan: fp8 KV cache never lowers KV capacity", "[planning]") {
  for (const std::string gpu : {"h100-sxm", "a100-sxm4-80gb", "mi300x"})
    for (const std::string model : {"llama-3.1-8b", "mistral-7b", "qwen2.5-7b"})
      for (const std::string weights : {"bf16", "fp8", "int4"}) {
        auto doc = [&](const std::string& kv) {
          return parse_yaml_text("hardware: {gpu: " + gpu + "}\nmodel: {name: " + model + ", weights: " + weights +
                            ", kv_cache: " + kv + "}\nparallelism: {tp: 1}\n");
        };
        const Scenario a = parse_scenario(doc("bf16"), "t.yaml", false);
        const Scenario b = parse_scenario(doc("fp8"), "t.yaml", false);
        const MemoryPlan pa = plan_memory(make_cost_model(a), a.engine.memory_config());
        const MemoryPlan pb = plan_memory(make_cost_model(b), b.engine.memory_config());
        INFO(gpu << " " << model << " " << weights);
        CHECK(pb.kv_blocks >= pa.kv_blocks);
        if (pa.kv_blocks > 0) CHECK(pb.kv_blocks >= 2 * pa.kv_blocks - 1);  // half the bytes per token
      }
}

TEST_CASE("plan: cost scales with GPU count", "[planning]") {
  const Scenario sc = small();
  RunSummary one;
  one.gpus = 1;
  one.output_tokens_per_s = 1000;
  one.power_w_per_gpu = 300;
  RunSummary two = one;
  two.gpus = 2;
  two.output_tokens_per_s = 2000;
  const Economics e1 = economics(sc.gpu, one), e2 = economics(sc.gpu, two);
  CHECK(e2.usd_per_hour == Approx(2 * e1.usd_per_hour));
  CHECK(e1.usd_per_hour == Approx(sc.gpu.price_per_hour));
  CHECK(e2.usd_per_million_output_tokens == Approx(e1.usd_per_million_output_tokens));
  CHECK(e2.joules_per_output_token == Approx(e1.joules_per_output_token));
  // Power is the run's average per GPU: 300 W for 1000 tok/s is 0.3 J/token.
  CHECK(e1.power_watts == Approx(300));
  CHECK(e1.joules_per_output_token == Approx(0.3));
  // A simulated two-replica run reports twice the GPUs, so twice the cost per hour.
  Scenario pair = sc;
  pair.parallelism.replicas = 2;
  const Trial t1 = run_trial(sc, 2.0, TrialOptions{100});
  const Trial t2 = run_trial(pair, 2.0, TrialOptions{100});
  CHECK(economics(pair.gpu, t2.summary).usd_per_hour == Approx(2 * economics(sc.gpu, t1.summary).usd_per_hour));
}

TEST_CASE("plan: budget and input errors are clear", "[planning]") {
  PlanOptions o;
  o.tps = {2, 4};
  o.gpu_budget = 1;
  o.search.trial.requests = 100;
  CHECK_THAT(error_of([&] { plan(parse_yaml_text(small_text()), "t.yaml", o); }),
             Catch::Contains("no candidate fits a budget of 1 GPU"));
  // No SLOs: nothing to plan for.
  PlanOptions p;
  CHECK_THAT(error_of([&] {
               plan(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nworkload: {requests: 10, "
                               "arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: 10}, "
                               "output_tokens: {dist: fixed, value: 10}}\n"),
                    "t.yaml", p);
             }),
             Catch::Contains("plan needs SLOs"));
  // A plan section is read strictly.
  ConfigNode doc = parse_yaml_text(small_text("plan: {target_rate: 10, candidates: {tp: [1, 2], gpus: [h100-sxm]}}\n"));
  PlanOptions q;
  CHECK_THAT(error_of([&] { read_plan_section(doc, ConfigNode(), "t.yaml", q); }), Catch::Contains("unknown key 'gpus'"));
  ConfigNode ok = parse_yaml_text(small_text("plan: {target_rate: 10, candidates: {tp: [1, 2]}}\n"));
  PlanOptions r;
  read_plan_section(ok, ConfigNode(), "t.yaml", r);
  CHECK(r.tps == std::vector<int>{1, 2});
  REQUIRE(r.target_rate);
  CHECK(*r.target_rate == 10);
  CHECK_FALSE(ok.find("plan"));  // removed before the scenario is parsed
}

TEST_CASE("whatif: fp8 KV doubles the KV capacity and says so", "[planning]") {
  SweepOptions o;
  const std::vector<SweepAxis> axes = {parse_vary("model.kv_cache=bf16,fp8")};
  ConfigNode doc = parse_yaml_text(small_text());
  set_number(doc, "workload.requests", 60);
  const auto pts = run_sweep(doc, "t.yaml", axes, o);
  const auto rows = whatif_rows(pts, axes);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].kv_blocks >= 2 * rows[0].kv_blocks - 1);
  const auto lines = whatif_explanations(rows);
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith("fp8 (vs bf16): KV capacity doubles"));
}
