// Autoscaled prefill/decode pools (disaggregation.{prefill,decode}.autoscale): each pool
// scales on its own signals with the autoscaler of co-located fleets (run/autoscaler.h),
// as NVIDIA Dynamo's planner sizes prefill and decode workers apart. Checked: the start
// delay in closed form, rises only a start delay after a decision tick and never before
// the step in load, drains after it, the GPU-hours and their price, idle energy only
// while GPUs are held, the refusals, and the same bytes run after run.
#include <catch2/catch.hpp>

#include <cmath>

#include "hardware/power_model.h"
#include "planning/economics.h"
#include "run/simulation.h"
#include "scenario/disaggregation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// Llama-3.1-8B bf16 on H100s: up to 4 prefill and 4 decode instances, one of each
// serving at first. 2 req/s for 300 s, then 24 req/s for 300 s, then 2 req/s for 600 s.
// Prompts of 3000 tokens and answers of 300: at 24 req/s one prefill instance computes
// 72k prompt tokens a second (an H100 prefills Llama-3.1-8B at about 25-30k tokens/s),
// and one decode instance with 32 sequences cannot keep 24 x 300 / 1000 x (its ~10 s
// answers) in flight, so both pools must grow.
std::string scenario_text(const std::string& prefill_autoscale, const std::string& decode_autoscale) {
  return "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
         "parallelism: {tp: 1, replicas: 2, router: least_outstanding}\n"
         "engine: {kind: vllm, max_num_seqs: 32}\n"
         "disaggregation:\n"
         "  prefill: {replicas: 4" + (prefill_autoscale.empty() ? "" : ", autoscale: " + prefill_autoscale) + "}\n"
         "  decode: {replicas: 4" + (decode_autoscale.empty() ? "" : ", autoscale: " + decode_autoscale) + "}\n"
         "  transfer: {bandwidth: \"50 GB/s\", latency: \"20 us\"}\n"
         "workload: {arrival: {process: multi_stage, stages: [{process: poisson, rate: 2, duration: \"300 s\"}, "
         "{process: poisson, rate: 24, duration: \"300 s\"}, {process: poisson, rate: 2, duration: \"600 s\"}]}, "
         "input_tokens: {dist: fixed, value: 3000}, output_tokens: {dist: fixed, value: 300}}\n";
}

const char* kPrefillScaling =
    "{min_replicas: 1, interval: \"15 s\", target_queue: 2, provision: \"30 s\", load_bandwidth: \"2 GB/s\", "
    "scale_down_window: \"120 s\"}";
const char* kDecodeScaling =
    "{min_replicas: 1, interval: \"20 s\", target_concurrency: 24, provision: \"30 s\", load_bandwidth: \"4 GB/s\", "
    "scale_down_window: \"120 s\"}";

// Every rise of the serving count comes exactly startup_s after a decision tick (a
// multiple of `interval`), and none from a decision before `step_s`.
void check_rises(const AutoscaleReport& a, double interval, double step_s) {
  for (std::size_t k = 1; k < a.serving_changes.size(); ++k) {
    if (a.serving_changes[k].second <= a.serving_changes[k - 1].second) continue;
    const double decided = a.serving_changes[k].first - a.startup_s;
    INFO("a rise at t = " << a.serving_changes[k].first);
    CHECK(decided >= step_s);
    CHECK(std::abs(decided / interval - std::round(decided / interval)) < 1e-6);
  }
}

}  // namespace

TEST_CASE("autoscaled P/D pools: each grows a start delay after its own decision tick when the load steps up, "
          "drains after it, and holds fewer GPU-hours than the fixed pools",
          "[autoscale][disaggregation][sim]") {
  const Scenario sc = parse_scenario(parse_yaml_text(scenario_text(kPrefillScaling, kDecodeScaling)), "test.yaml", true);
  REQUIRE(sc.disaggregation);
  REQUIRE(sc.disaggregation->prefill_autoscale);
  REQUIRE(sc.disaggregation->decode_autoscale);
  const RunWithCsv run = run_with_csv(sc, nullptr);
  const RunSummary& s = run.result.summary;
  REQUIRE(s.disaggregation);
  CHECK(s.failed == 0);
  CHECK(s.completed == s.load.offered);
  const PoolReport& p = s.disaggregation->prefill;
  const PoolReport& d = s.disaggregation->decode;
  REQUIRE(p.autoscale);
  REQUIRE(d.autoscale);
  // Llama-3.1-8B bf16 on one GPU: 8.03e9 parameters x 2 bytes = 16.06 GB; 30 s to provision,
  // then 16.06 GB / 2 GB/s = 8.03 s to load in the prefill pool, / 4 GB/s = 4.015 s in the decode pool.
  CHECK(p.autoscale->startup_s == Approx(30.0 + 16.06e9 / 2e9).epsilon(0.01));
  CHECK(d.autoscale->startup_s == Approx(30.0 + 16.06e9 / 4e9).epsilon(0.01));
  for (const PoolReport* pool : {&p, &d}) {
    const AutoscaleReport& a = *pool->autoscale;
    INFO((pool == &p ? "prefill" : "decode"));
    CHECK(a.max_replicas == 4);
    CHECK(a.min_serving == 1);
    CHECK(a.max_serving > 1);   // the step at t = 300 s needs more than one instance
    CHECK(a.scale_ups >= 1);
    CHECK(a.scale_downs >= 1);  // 600 s of light load after it, beyond the 120 s window
    CHECK(a.serving_changes.back().second < a.max_serving);
    // GPU-hours: at most the fixed pool's 4 GPUs over the same span, and at least one GPU's.
    CHECK(a.gpu_hours() < a.fixed_gpu_hours());
    CHECK(a.fixed_gpu_hours() == Approx(a.span_s * 4 / 3600.0));
    CHECK(a.gpu_hours() >= a.span_s / 3600.0 - 1e-9);
  }
  check_rises(*p.autoscale, 15.0, 300.0);
  check_rises(*d.autoscale, 20.0, 300.0);
  // The price: each pool's GPUs held on average (GPU-seconds / span) at its GPU's price.
  const planning::Economics e = planning::run_economics(sc, s);
  const double price = sc.disaggregation->prefill.gpu.price_per_hour;
  REQUIRE(price > 0);
  CHECK(e.usd_per_hour == Approx((p.autoscale->gpu_seconds / p.autoscale->span_s +
                                  d.autoscale->gpu_seconds / d.autoscale->span_s) * price));
  CHECK(e.usd_per_hour < 8 * price);  // the fixed 4P4D's
  // Same scenario, same bytes.
  CHECK(run_with_csv(sc, nullptr).csv == run.csv);
}

TEST_CASE("autoscaled P/D pools: a pool's idle energy counts only while it holds its GPUs", "[autoscale][disaggregation][sim]") {
  // A decode pool "autoscaled" between 4 and 4 instances never scales: it serves as the
  // fixed pool does, step for step, and holds its 4 GPUs from t = 0 to the run's last
  // event (span_s). Its energy is the same steps' joules plus idle power over that
  // span instead of over the run's duration (first arrival to last completion):
  //   E(held 4 GPUs) - E(fixed) = 4 x P_idle x (span_s - duration_s).
  const Scenario pinned =
      parse_scenario(parse_yaml_text(scenario_text("", "{min_replicas: 4, target_kv: \"70%\"}")), "test.yaml", true);
  const Scenario fixed = parse_scenario(parse_yaml_text(scenario_text("", "")), "test.yaml", true);
  const RunSummary a = run_with_csv(pinned, nullptr).result.summary;
  const RunSummary b = run_with_csv(fixed, nullptr).result.summary;
  REQUIRE(a.disaggregation);
  REQUIRE(b.disaggregation);
  CHECK_FALSE(a.disaggregation->prefill.autoscale);
  REQUIRE(a.disaggregation->decode.autoscale);
  const AutoscaleReport& r = *a.disaggregation->decode.autoscale;
  CHECK(r.scale_ups == 0);
  CHECK(r.scale_downs == 0);
  CHECK(r.gpu_seconds == Approx(4 * r.span_s));
  CHECK(a.completed == b.completed);
  CHECK(a.tpot_ms.mean == Approx(b.tpot_ms.mean).epsilon(1e-9));
  const double idle_w = PowerModel::of(pinned.disaggregation->decode.gpu).idle_watts;
  REQUIRE(idle_w > 0);
  CHECK(a.disaggregation->decode.energy_j - b.disaggregation->decode.energy_j ==
        Approx(4 * idle_w * (r.span_s - a.duration_s)).epsilon(1e-6));
  // The pool that scales holds fewer GPU-seconds, and its idle energy shrinks with them.
  const Scenario scaled = parse_scenario(parse_yaml_text(scenario_text("", kDecodeScaling)), "test.yaml", true);
  const RunSummary c = run_with_csv(scaled, nullptr).result.summary;
  REQUIRE(c.disaggregation->decode.autoscale);
  CHECK(c.disaggregation->decode.autoscale->gpu_seconds < r.gpu_seconds);
  CHECK(c.disaggregation->decode.energy_j < b.disaggregation->decode.energy_j);
}

TEST_CASE("autoscaled P/D pools: the sections are checked at their keys", "[autoscale][disaggregation][config]") {
  auto err = [&](const std::string& text) {
    return error_of([&] { parse_scenario(parse_yaml_text(text), "test.yaml", true); });
  };
  // The scenario's own autoscale section with disaggregation: each pool scales on its own.
  CHECK_THAT(err(scenario_text("", "") + "autoscale: {target_queue: 4}\n"),
             Catch::Contains("disaggregation.prefill.autoscale"));
  // A pool of one instance cannot scale.
  std::string one = scenario_text(kPrefillScaling, "");
  one.replace(one.find("prefill: {replicas: 4"), 21, "prefill: {replicas: 1");
  CHECK_THAT(err(one), Catch::Contains("disaggregation.prefill.replicas (1) is the most replicas the prefill pool's "
                                       "autoscaler may run"));
  CHECK_THAT(err(scenario_text("", "{min_replicas: 6, target_kv: \"70%\"}")),
             Catch::Contains("min_replicas (6) is above disaggregation.decode.replicas (4)"));
  CHECK_THAT(err(scenario_text("{target_queue: 2, intervall: \"10 s\"}", "")), Catch::Contains("did you mean 'interval'"));
  CHECK_THAT(err(scenario_text("{min_replicas: 1}", "")), Catch::Contains("target_queue"));
}
