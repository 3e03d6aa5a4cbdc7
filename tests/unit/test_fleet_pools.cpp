// A heterogeneous fleet (the scenario's `pools:`, scenario/fleet_pools.h): each
// pool's setup, its replicas behind the one router, per-pool reports, the fleet's
// price, and the autoscaler's pool order and per-pool GPU-hours.
#include <catch2/catch.hpp>

#include "config/edits.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "planning/economics.h"
#include "run/autoscaler.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// Requests 10 s apart (constant arrivals), far longer than one takes: each meets an idle replica.
const std::string kSpaced =
    "{requests: 40, arrival: {process: constant, rate: 0.1}, input_tokens: {dist: fixed, value: 1000}, "
    "output_tokens: {dist: fixed, value: 100}}";

Scenario fleet(const std::string& pools, const std::string& parallelism = "{tp: 1, router: round_robin}",
               const std::string& workload = kSpaced, const std::string& extra = "") {
  std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nparallelism: " + parallelism +
                     "\nengine: {kind: vllm}\nworkload: " + workload + "\npools: " + pools + "\n" + extra;
  ConfigNode doc = parse_yaml_text(text);
  set_number(doc, "engine.frontend_latency", 0.0);
  return parse_scenario(doc, "test.yaml", true);
}

// The same scenario on one replica of `gpu` (tp, weights), no pools.
Scenario single(const std::string& gpu, int tp, const std::string& weights) {
  std::string text = "hardware: {gpu: " + gpu + "}\nmodel: {name: llama-3.1-8b, weights: " + weights +
                     "}\nparallelism: {tp: " + std::to_string(tp) + ", replicas: 1}\nengine: {kind: vllm}\nworkload: " +
                     kSpaced + "\n";
  ConfigNode doc = parse_yaml_text(text);
  set_number(doc, "engine.frontend_latency", 0.0);
  return parse_scenario(doc, "test.yaml", true);
}

}  // namespace

TEST_CASE("pools: each pool is the scenario's setup with its own gpu, tp, weights, replicas and price",
          "[pools][config]") {
  const Scenario sc = fleet(
      "[{name: a100, gpu: a100-sxm4-80gb, replicas: 2}, {name: h100, tp: 2, weights: fp8, replicas: 1, "
      "price_per_hour: \"4 USD/h\"}]");
  REQUIRE(sc.pools.size() == 2);
  const Setup& a = sc.pools[0].setup;
  const Setup& h = sc.pools[1].setup;
  CHECK(sc.pools[0].name == "a100");
  CHECK(a.gpu.name == "a100-sxm4-80gb");
  CHECK(a.parallelism.replicas == 2);
  CHECK(a.parallelism.tp == 1);
  CHECK(a.gpu.price_per_hour == Approx(1.79));  // hardware/a100-sxm4-80gb.yaml cost.on_demand
  CHECK(h.gpu.name == "h100-sxm");
  CHECK(h.parallelism.tp == 2);
  CHECK(h.resolved.weights == DType::fp8);
  CHECK(h.gpu.price_per_hour == Approx(4.0));
  CHECK(sc.parallelism.replicas == 3);  // the fleet: 2 + 1
}

TEST_CASE("pools: bad lists are refused with the pool's key path", "[pools][config]") {
  auto err = [](const std::string& pools, const std::string& parallelism = "{tp: 1}", const std::string& extra = "") {
    return error_of([&] { fleet(pools, parallelism, kSpaced, extra); });
  };
  CHECK_THAT(err("[{name: a, replicas: 1}]", "{tp: 1, replicas: 4}"),
             Catch::Contains("parallelism.replicas and pools both size the fleet"));
  CHECK_THAT(err("[{name: a, replicas: 1}, {name: a, replicas: 2}]"), Catch::Contains("a second pool named 'a'"));
  CHECK_THAT(err("[]"), Catch::Contains("a non-empty list of pools"));
  CHECK_THAT(err("[{name: a, replica: 1}]"), Catch::Contains("replicas"));
  CHECK_THAT(err("[{name: a, replicas: 0}]"), Catch::Contains("pools[0].replicas"));
  CHECK_THAT(err("[{name: a, replicas: 1, gpu: h1000}]"), Catch::Contains("pools[0]"));
  CHECK_THAT(err("[{name: 'a b', replicas: 1}]"), Catch::Contains("not a pool name"));
  // A 70B model does not fit one 80 GB GPU: the pool that cannot hold it is named when the run starts.
  const Scenario big = [] {
    std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-70b}\nparallelism: {tp: 4}\n"
                       "engine: {kind: vllm}\nworkload: " + kSpaced + "\npools: [{name: wide, replicas: 1}, "
                       "{name: narrow, tp: 1, replicas: 1}]\n";
    return parse_scenario(parse_yaml_text(text), "test.yaml", true);
  }();
  CHECK_THAT(error_of([&] { simulate(big); }), Catch::Contains("pools[1] (narrow)"));
}

TEST_CASE("pools: a pool's replicas serve as a fleet of that pool alone would", "[pools][sim]") {
  // One A100 replica (bf16) and one H100 replica (fp8) behind round-robin: requests alternate
  // 0, 1, 0, 1... and each meets an idle replica (10 s apart), so every request of a pool takes
  // exactly what it takes on a lone replica of that pool's setup.
  const Scenario sc = fleet("[{name: a100, gpu: a100-sxm4-80gb, replicas: 1}, {name: h100, weights: fp8, replicas: 1}]");
  const RunWithCsv run = run_with_csv(sc, nullptr);
  const RunSummary& s = run.result.summary;
  REQUIRE(s.pools.size() == 2);
  CHECK(s.completed == 40);
  CHECK(s.pools[0].completed == 20);
  CHECK(s.pools[1].completed == 20);
  const RunSummary a = simulate(single("a100-sxm4-80gb", 1, "bf16")).summary;
  const RunSummary h = simulate(single("h100-sxm", 1, "fp8")).summary;
  CHECK(s.pools[0].ttft_ms.p50 == Approx(a.ttft_ms.p50).epsilon(1e-9));
  CHECK(s.pools[0].tpot_ms.p50 == Approx(a.tpot_ms.p50).epsilon(1e-9));
  CHECK(s.pools[1].ttft_ms.p50 == Approx(h.ttft_ms.p50).epsilon(1e-9));
  CHECK(s.pools[1].e2e_ms.max == Approx(h.e2e_ms.max).epsilon(1e-9));
  CHECK(s.pools[0].ttft_ms.p50 > s.pools[1].ttft_ms.p50);  // the A100 prefills slower
  // The requests.csv rows agree: replica 0 (the a100 pool) serves the even request ids.
  for (const RequestResult& r : run.results) CHECK(r.replica == r.id % 2);
  // The run's GPUs and energy are the pools' sums.
  CHECK(s.gpus == 2);
  CHECK(s.energy_j == Approx(s.pools[0].hardware.energy_j + s.pools[1].hardware.energy_j));
  // Same scenario, same bytes.
  CHECK(run_with_csv(sc, nullptr).csv == run.csv);
}

TEST_CASE("pools: the fleet's price is each pool's GPUs at its own price", "[pools][cost]") {
  // 1 A100 at $1.79 (its GPU file) + 1 replica of 2 H100s at $4.00: 1.79 + 2 x 4 = $9.79 per hour.
  const Scenario sc = fleet(
      "[{name: a100, gpu: a100-sxm4-80gb, replicas: 1}, {name: h100, tp: 2, replicas: 1, price_per_hour: \"4 "
      "USD/h\"}]");
  const SimulationResult r = simulate(sc);
  CHECK(r.summary.gpus == 3);
  const planning::Economics e = planning::run_economics(sc, r.summary);
  CHECK(e.usd_per_hour == Approx(9.79));
  // A pool without a price gives no fleet price rather than a cheaper one.
  const Scenario unpriced =
      fleet("[{name: a100, gpu: a100-sxm4-80gb, replicas: 1}, {name: h100, replicas: 1, price_per_hour: \"0 USD/h\"}]");
  const SimulationResult u = simulate(unpriced);
  CHECK(planning::run_economics(unpriced, u.summary).usd_per_hour == 0.0);
  CHECK_THAT(planning::cost_text(unpriced, u.summary), Catch::Contains("no price for pool 'h100'"));
}

TEST_CASE("autoscaler: a heterogeneous fleet starts from the first pool, drains from the last, and counts each "
          "pool's GPU-hours",
          "[pools][autoscale]") {
  AutoscaleSpec spec;
  spec.min_replicas = 1;
  spec.initial_replicas = 1;
  spec.interval_s = 15;
  spec.target_queue = 4;
  spec.provision_s = 60;
  spec.load_bandwidth = 2e9;
  spec.scale_down_window_s = 0;
  // Replicas 0, 1: pool 0, one GPU loading 16 GB; replicas 2, 3: pool 1, two GPUs loading 8 GB each.
  Autoscaler a(spec, {{1, 16e9, 0}, {1, 16e9, 0}, {2, 8e9, 1}, {2, 8e9, 1}});
  CHECK(a.startup_s(0) == Approx(68.0));  // 60 + 16e9 / 2e9
  CHECK(a.startup_s(2) == Approx(64.0));  // 60 + 8e9 / 2e9
  // Replica 0 serves with 12 waiting: ceil(1 x 12 / 4) = 3 -> start 2 more: 1 (pool 0) first, then 2 (pool 1).
  std::vector<ReplicaSignal> s(4);
  s[0] = ReplicaSignal{12, 12, 0};
  const Autoscaler::Decision up = a.decide(0, s);
  REQUIRE(up.start == std::vector<int>{1, 2});
  CHECK(a.ready_at(2) == to_nanos(64.0));
  a.ready(1, to_nanos(68.0));
  a.ready(2, to_nanos(64.0));
  // At 100 s the load asks for 1 (mean waiting 0.33 against 4): two drain. Pool 1's replica 2
  // goes first though it holds the most requests, then pool 0's least loaded (replica 1).
  s[0] = ReplicaSignal{1, 1, 0};
  s[1] = ReplicaSignal{0, 0, 0};
  s[2] = ReplicaSignal{0, 9, 0};
  const Autoscaler::Decision down = a.decide(to_nanos(100.0), s);
  REQUIRE(down.drain == std::vector<int>{2, 1});
  a.stopped(2, to_nanos(130.0));
  a.stopped(1, to_nanos(110.0));
  const AutoscaleReport r = a.finish(to_nanos(200.0));
  // Pool 0: replica 0 for 200 s + replica 1 from 0 to 110 s, one GPU each = 310 GPU-s.
  // Pool 1: replica 2 from 0 to 130 s on two GPUs = 260 GPU-s.
  REQUIRE(r.pool_gpu_seconds.size() == 2);
  CHECK(r.pool_gpu_seconds[0] == Approx(310.0));
  CHECK(r.pool_gpu_seconds[1] == Approx(260.0));
  CHECK(r.gpu_hours() == Approx(570.0 / 3600.0));
  CHECK(r.max_gpus == 6);
  CHECK(r.fixed_gpu_hours() == Approx(200.0 * 6 / 3600.0));
  CHECK(r.startup_s_min == Approx(64.0));
  CHECK(r.startup_s_max == Approx(68.0));
}

TEST_CASE("pools: an autoscaled heterogeneous fleet prices each pool's held GPU-hours", "[pools][autoscale][sim]") {
  // 2 req/s for 300 s, then 30 req/s for 300 s, then 1 req/s for 600 s; a100 pool first.
  const std::string workload =
      "{arrival: {process: multi_stage, stages: [{process: poisson, rate: 2, duration: \"300 s\"}, {process: "
      "poisson, rate: 30, duration: \"300 s\"}, {process: poisson, rate: 1, duration: \"600 s\"}]}, input_tokens: "
      "{dist: fixed, value: 2000}, output_tokens: {dist: fixed, value: 400}}";
  const Scenario sc = fleet("[{name: a100, gpu: a100-sxm4-80gb, replicas: 2}, {name: h100, replicas: 2}]",
                            "{tp: 1, router: least_outstanding}", workload,
                            "autoscale: {min_replicas: 1, interval: \"15 s\", target_queue: 2, provision: \"30 s\", "
                            "scale_down_window: \"60 s\"}\n");
  const RunSummary s = simulate(sc).summary;
  REQUIRE(s.autoscale);
  REQUIRE(s.pools.size() == 2);
  CHECK(s.autoscale->max_serving >= 3);  // the H100 pool served at the peak
  CHECK(s.pools[1].completed > 0);
  // Each pool's GPU-hours are what the autoscaler counted; their sum is the fleet's.
  CHECK(s.pools[0].gpu_hours + s.pools[1].gpu_hours == Approx(s.autoscale->gpu_hours()));
  CHECK(s.pools[0].gpu_hours > s.pools[1].gpu_hours);  // the first pool serves all day, the second at the peak
  // $/hour: each pool's held GPU-hours at its price, over the span.
  const double usd = s.pools[0].gpu_hours * 1.79 + s.pools[1].gpu_hours * 2.99;
  CHECK(planning::run_economics(sc, s).usd_per_hour == Approx(usd / (s.autoscale->span_s / 3600.0)));
}

TEST_CASE("pools: an autoscaled heterogeneous fleet draws each pool's idle power only while it holds its GPUs",
          "[pools][autoscale][sim][energy]") {
  // Pinned between 4 and 4 replicas the fleet never scales: it serves as the fixed fleet
  // does, and each pool holds its GPUs from t = 0 to the run's last event (span_s)
  // instead of over the run's duration (first arrival to last completion):
  //   E(held) - E(fixed) = sum over pools of GPUs x P_idle(pool's GPU) x (span_s - duration_s)
  //                      = (2 x P_idle(a100) + 2 x P_idle(h100)) x (span_s - duration_s).
  // Scaling, the h100 pool is off outside the peak, and the fleet draws less than the
  // fixed fleet that idles all of it.
  const std::string workload =
      "{arrival: {process: multi_stage, stages: [{process: poisson, rate: 2, duration: \"300 s\"}, {process: "
      "poisson, rate: 30, duration: \"300 s\"}, {process: poisson, rate: 1, duration: \"600 s\"}]}, input_tokens: "
      "{dist: fixed, value: 2000}, output_tokens: {dist: fixed, value: 400}}";
  const std::string pools = "[{name: a100, gpu: a100-sxm4-80gb, replicas: 2}, {name: h100, replicas: 2}]";
  const std::string par = "{tp: 1, router: least_outstanding}";
  const Scenario fixed_sc = fleet(pools, par, workload);
  const RunSummary f = simulate(fixed_sc).summary;
  const RunSummary held =
      simulate(fleet(pools, par, workload, "autoscale: {min_replicas: 4, interval: \"15 s\", target_queue: 2}\n")).summary;
  const RunSummary scaled =
      simulate(fleet(pools, par, workload,
                     "autoscale: {min_replicas: 1, interval: \"15 s\", target_queue: 2, provision: \"30 s\", "
                     "scale_down_window: \"60 s\"}\n"))
          .summary;
  const double idle_a100 = PowerModel::of(fixed_sc.pools[0].setup.gpu).idle_watts;
  const double idle_h100 = PowerModel::of(fixed_sc.pools[1].setup.gpu).idle_watts;
  REQUIRE(idle_a100 > 0);
  REQUIRE(idle_h100 > 0);
  REQUIRE(held.autoscale);
  CHECK(held.autoscale->scale_ups == 0);
  CHECK(held.completed == f.completed);
  const double extra_s = held.autoscale->span_s - held.duration_s;
  CHECK(held.pools[0].hardware.energy_j - f.pools[0].hardware.energy_j == Approx(2 * idle_a100 * extra_s).epsilon(1e-6));
  CHECK(held.pools[1].hardware.energy_j - f.pools[1].hardware.energy_j == Approx(2 * idle_h100 * extra_s).epsilon(1e-6));
  CHECK(held.energy_j - f.energy_j == Approx((2 * idle_a100 + 2 * idle_h100) * extra_s).epsilon(1e-6));
  REQUIRE(scaled.autoscale);
  CHECK(scaled.pools[1].gpu_hours < 0.5 * held.pools[1].gpu_hours);
  CHECK(scaled.energy_j == Approx(scaled.pools[0].hardware.energy_j + scaled.pools[1].hardware.energy_j));
  CHECK(scaled.energy_j < f.energy_j);
}
