// The fleet's autoscaler (the scenario's autoscale section, run/autoscaler.h): the
// HPA rule, the start delay, the scale-down window, draining, GPU-hours, and its
// reaction to a step in load end to end.
#include <catch2/catch.hpp>

#include <cmath>

#include "run/autoscaler.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

AutoscaleSpec queue_spec() {
  AutoscaleSpec a;
  a.min_replicas = 1;
  a.initial_replicas = 2;
  a.interval_s = 15;
  a.target_queue = 4;
  a.provision_s = 60;
  a.load_bandwidth = 2e9;
  a.scale_down_window_s = 300;
  return a;
}

std::vector<ReplicaSignal> waiting(std::vector<std::int64_t> w) {
  std::vector<ReplicaSignal> out;
  for (auto x : w) out.push_back(ReplicaSignal{x, x, 0.0});
  return out;
}

}  // namespace

TEST_CASE("autoscaler: the HPA rule, ceil(serving x metric / target), within a tolerance", "[autoscale]") {
  Autoscaler a(queue_spec(), 8, 1, 16e9);
  // Replicas 0 and 1 serve. Waiting 6 and 10: mean 8 = 2 x target 4 -> ceil(2 x 2) = 4.
  CHECK(a.desired(waiting({6, 10, 0, 0, 0, 0, 0, 0})) == 4);
  // Mean 4.5: ratio 1.125, outside the 10% tolerance -> ceil(2 x 1.125) = 3.
  CHECK(a.desired(waiting({4, 5, 0, 0, 0, 0, 0, 0})) == 3);
  // Mean 4: ratio 1 -> keep 2. Mean 0.5: ratio 0.125 -> ceil(0.25) = 1.
  CHECK(a.desired(waiting({4, 4, 0, 0, 0, 0, 0, 0})) == 2);
  CHECK(a.desired(waiting({1, 0, 0, 0, 0, 0, 0, 0})) == 1);
  // Waiting on replicas that are not serving is not read.
  CHECK(a.desired(waiting({0, 0, 50, 50, 0, 0, 0, 0})) == 0);
  // Within the tolerance: target 10, waiting 10 and 11, mean 10.5: ratio 1.05 <= 1.1 -> keep 2
  // (ceil(2 x 1.05) would be 3).
  AutoscaleSpec ten = queue_spec();
  ten.target_queue = 10;
  CHECK(Autoscaler(ten, 8, 1, 0).desired(waiting({10, 11, 0, 0, 0, 0, 0, 0})) == 2);
  // The KV signal: mean use 0.9 against 0.6 -> ceil(2 x 1.5) = 3; the larger of two signals wins.
  AutoscaleSpec kv = queue_spec();
  kv.target_kv = 0.6;
  Autoscaler b(kv, 8, 1, 16e9);
  std::vector<ReplicaSignal> s = waiting({1, 1, 0, 0, 0, 0, 0, 0});
  s[0].kv_load = s[1].kv_load = 0.9;
  CHECK(b.desired(s) == 3);
  // Concurrency: 30 and 42 requests in the two replicas against 12 -> ceil(2 x 36 / 12) = 6.
  AutoscaleSpec conc = queue_spec();
  conc.target_queue = 0;
  conc.target_concurrency = 12;
  std::vector<ReplicaSignal> c = waiting({0, 0, 0, 0, 0, 0, 0, 0});
  c[0].outstanding = 30;
  c[1].outstanding = 42;
  CHECK(Autoscaler(conc, 8, 1, 0).desired(c) == 6);
}

TEST_CASE("autoscaler: a start serves provision + weights per GPU / load bandwidth after the decision",
          "[autoscale]") {
  // 60 s to provision, 16 GB per GPU at 2 GB/s = 8 s to load: 68 s.
  Autoscaler a(queue_spec(), 8, 1, 16e9);
  CHECK(a.startup_s() == Approx(68.0));
  const Nanos t = to_nanos(30.0);
  const Autoscaler::Decision d = a.decide(t, waiting({6, 10, 0, 0, 0, 0, 0, 0}));
  REQUIRE(d.start == std::vector<int>{2, 3});  // 4 wanted, 2 serving: the two lowest replicas off
  CHECK(d.drain.empty());
  CHECK(a.ready_at(2) == t + to_nanos(68.0));
  // While they start they count toward the fleet: the same load asks for nothing more.
  CHECK(a.decide(t + to_nanos(15.0), waiting({6, 10, 0, 0, 0, 0, 0, 0})).start.empty());
  a.ready(2, a.ready_at(2));
  a.ready(3, a.ready_at(3));
  CHECK(a.state(2) == Autoscaler::State::serving);
}

TEST_CASE("autoscaler: a scale-down waits for the window's largest recommendation and drains the least loaded",
          "[autoscale]") {
  Autoscaler a(queue_spec(), 4, 1, 0);
  // Decisions every 15 s. At t = 0..90 the load wants 2; from t = 105 on it wants 1
  // (mean waiting 1 against 4: ceil(2 x 0.25) = 1). The window holds 300 s of
  // recommendations, so the first decision without a 2 in it is at t = 90 + 300 + 15 = 405
  // (at t = 390 the recommendation of t = 90 is still in the window: it spans [90, 390]).
  for (int k = 0; k <= 6; ++k)
    CHECK(a.decide(to_nanos(15.0 * k), waiting({4, 4, 0, 0})).drain.empty());
  for (int k = 7; k < 27; ++k) {
    INFO("t = " << 15 * k);
    CHECK(a.decide(to_nanos(15.0 * k), waiting({1, 1, 0, 0})).drain.empty());
  }
  // t = 405: replica 1 has fewer outstanding requests (0 against 2): it drains.
  std::vector<ReplicaSignal> s = waiting({2, 0, 0, 0});
  const Autoscaler::Decision d = a.decide(to_nanos(405.0), s);
  REQUIRE(d.drain == std::vector<int>{1});
  a.stopped(1, to_nanos(420.0));
  // GPU-hours: replica 0 for 600 s, replica 1 from 0 to its stop at 420 s: 1020 replica-seconds.
  const AutoscaleReport r = a.finish(to_nanos(600.0));
  CHECK(r.replica_seconds == Approx(1020.0));
  CHECK(r.scale_downs == 1);
  CHECK(r.min_serving == 1);
  // Serving: 2 until the drain decision at 405 s, then 1: (2 x 405 + 1 x 195) / 600.
  CHECK(r.mean_serving == Approx((2 * 405.0 + 195.0) / 600.0));
}

TEST_CASE("autoscaler: max_step caps a decision's starts and drains, and hold_while_changing waits for a change to end",
          "[autoscale]") {
  // 4 replicas, 1 serving; queue_spec(): target 4 waiting, 60 s to start, decisions every 15 s.
  // Replica 0 with 20 waiting asks for ceil(1 x 20 / 4) = 5, clamped to 4: 3 more.
  AutoscaleSpec spec = queue_spec();
  spec.initial_replicas = 1;
  spec.scale_down_window_s = 0;
  spec.max_step = 1;
  {
    Autoscaler a(spec, 4, 1, 0);
    // One start a decision (the HPA rule would start all 3 at t = 0): replica 1 at 0 s,
    // replica 2 at 15 s (the fleet of 1 serving + 1 starting still wants 4), replica 3 at 30 s.
    CHECK(a.decide(0, waiting({20, 0, 0, 0})).start == std::vector<int>{1});
    CHECK(a.decide(to_nanos(15.0), waiting({20, 0, 0, 0})).start == std::vector<int>{2});
    CHECK(a.decide(to_nanos(30.0), waiting({20, 0, 0, 0})).start == std::vector<int>{3});
    CHECK(a.decide(to_nanos(45.0), waiting({20, 0, 0, 0})).start.empty());  // all 4 held
    a.ready(1, to_nanos(60.0));
    a.ready(2, to_nanos(75.0));
    a.ready(3, to_nanos(90.0));
    // Idle: the load wants 1 (min_replicas); one drain a decision, the least loaded last index first.
    CHECK(a.decide(to_nanos(105.0), waiting({0, 0, 0, 0})).drain == std::vector<int>{3});
    CHECK(a.decide(to_nanos(120.0), waiting({0, 0, 0, 0})).drain == std::vector<int>{2});
  }
  spec.hold_while_changing = true;
  {
    Autoscaler a(spec, 4, 1, 0);
    CHECK(a.decide(0, waiting({20, 0, 0, 0})).start == std::vector<int>{1});
    // Replica 1 starts until t = 60 s: the decisions at 15, 30 and 45 s are held.
    for (double t : {15.0, 30.0, 45.0}) {
      INFO("t = " << t);
      const Autoscaler::Decision d = a.decide(to_nanos(t), waiting({20, 0, 0, 0}));
      CHECK(d.start.empty());
      CHECK(d.drain.empty());
    }
    a.ready(1, to_nanos(60.0));
    // Two serving, 40 waiting in all: ceil(2 x 20 / 4) = 10, clamped to 4; one more.
    CHECK(a.decide(to_nanos(75.0), waiting({20, 20, 0, 0})).start == std::vector<int>{2});
    a.ready(2, to_nanos(135.0));
    // Idle: one drain, then nothing until it has stopped.
    CHECK(a.decide(to_nanos(150.0), waiting({0, 0, 0, 0})).drain == std::vector<int>{2});
    CHECK(a.decide(to_nanos(165.0), waiting({0, 0, 0, 0})).drain.empty());
    a.stopped(2, to_nanos(170.0));
    CHECK(a.decide(to_nanos(180.0), waiting({0, 0, 0, 0})).drain == std::vector<int>{1});
  }
}

TEST_CASE("an autoscaled fleet reacts to a step in load: replicas serve a start delay after a decision tick, "
          "never before, and hold fewer GPU-hours than the fixed fleet",
          "[autoscale][sim]") {
  // Up to 4 replicas of Llama-3.1-8B, 1 serving at first. 2 req/s for 300 s, then 40 req/s
  // for 300 s (more than one replica serves), then 2 req/s for 600 s.
  const std::string workload =
      "{arrival: {process: multi_stage, stages: [{process: poisson, rate: 2, duration: \"300 s\"}, {process: poisson, "
      "rate: 40, duration: \"300 s\"}, {process: poisson, rate: 2, duration: \"600 s\"}]}, input_tokens: {dist: "
      "fixed, value: 2000}, output_tokens: {dist: fixed, value: 400}}";
  std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                     "parallelism: {tp: 1, replicas: 4, router: least_outstanding}\n"
                     "engine: {kind: vllm, max_num_seqs: 32}\nworkload: " + workload + "\n"
                     "autoscale: {min_replicas: 1, interval: \"15 s\", target_queue: 2, provision: \"30 s\", "
                     "load_bandwidth: \"2 GB/s\", scale_down_window: \"120 s\"}\n";
  const Scenario sc = parse_scenario(parse_yaml_text(text), "test.yaml", true);
  const RunWithCsv run = run_with_csv(sc, nullptr);
  const RunSummary& s = run.result.summary;
  REQUIRE(s.autoscale);
  const AutoscaleReport& a = *s.autoscale;
  // Llama-3.1-8B bf16: 8.03e9 parameters x 2 bytes = 16.06 GB on one GPU, 8.03 s at 2 GB/s; + 30 s.
  CHECK(a.startup_s == Approx(30.0 + 16.06e9 / 2e9).epsilon(0.01));
  CHECK(a.max_serving > 1);
  CHECK(a.min_serving == 1);
  CHECK(a.scale_ups >= 1);
  CHECK(a.scale_downs >= 1);  // the load falls back for 600 s, beyond the 120 s window
  // Every rise in serving replicas comes exactly startup_s after a decision tick (a multiple of 15 s),
  // and none before the step at t = 300 s.
  for (std::size_t k = 1; k < a.serving_changes.size(); ++k) {
    if (a.serving_changes[k].second <= a.serving_changes[k - 1].second) continue;
    const double decided = a.serving_changes[k].first - a.startup_s;
    INFO("a rise at t = " << a.serving_changes[k].first);
    CHECK(decided >= 300.0);
    CHECK(std::abs(decided / 15.0 - std::round(decided / 15.0)) < 1e-6);
  }
  // No request went to a replica before it first served: replica r > 0 serves no earlier
  // than the first rise. (The router sees a request when it reaches the engine: its
  // arrival, when the user sent it, plus the front-end latency.)
  double first_rise = 1e300;
  for (std::size_t k = 1; k < a.serving_changes.size(); ++k)
    if (a.serving_changes[k].second > a.serving_changes[k - 1].second) {
      first_rise = a.serving_changes[k].first;
      break;
    }
  for (const RequestResult& r : run.results)
    if (r.replica > 0) CHECK(r.arrival_s + sc.engine.frontend_latency >= first_rise - 1e-9);
  // Fewer GPU-hours than 4 replicas over the same span.
  CHECK(a.gpu_hours() < a.fixed_gpu_hours());
  CHECK(a.fixed_gpu_hours() == Approx(a.span_s * 4 / 3600.0));
  // Same scenario, same bytes.
  CHECK(run_with_csv(sc, nullptr).csv == run.csv);
}

TEST_CASE("autoscale: bad sections are refused at the key", "[autoscale][config]") {
  auto err = [&](const std::string& replicas, const std::string& autoscale) {
    return error_of([&] {
      std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nparallelism: {tp: 1, replicas: " +
                         replicas + "}\nengine: {kind: vllm}\nworkload: {requests: 10, arrival: {process: poisson, "
                         "rate: 1}, input_tokens: {dist: fixed, value: 10}, output_tokens: {dist: fixed, value: 10}}\n"
                         "autoscale: " + autoscale + "\n";
      parse_scenario(parse_yaml_text(text), "test.yaml", true);
    });
  };
  CHECK_THAT(err("4", "{min_replicas: 1}"), Catch::Contains("target_queue"));
  CHECK_THAT(err("1", "{target_queue: 4}"), Catch::Contains("needs at least 2"));
  CHECK_THAT(err("4", "{min_replicas: 6, target_queue: 4}"), Catch::Contains("min_replicas (6) is above"));
  CHECK_THAT(err("4", "{target_queue: 4, intervall: \"10 s\"}"), Catch::Contains("did you mean 'interval'"));
  CHECK_THAT(err("4", "{target_queue: 4, max_step: 0}"), Catch::Contains("autoscale.max_step"));
  CHECK_THAT(err("4", "{target_queue: 4, max_steps: 1}"), Catch::Contains("did you mean 'max_step'"));
  CHECK_THAT(err("4", "{target_queue: 4, hold_while_changing: 3}"), Catch::Contains("hold_while_changing"));
}

TEST_CASE("autoscaler: requests a gateway holds count as waiting, and the TTFT signal follows the HPA rule",
          "[autoscale]") {
  Autoscaler a(queue_spec(), 8, 1, 0);
  // Replicas 0 and 1 serve with 2 waiting each, and the gateway holds 12: mean waiting
  // (2 + 2 + 12) / 2 = 8 against 4 -> ceil(2 x 2) = 4. Without the held ones: mean 2 -> ceil(2 x 0.5) = 1.
  CHECK(a.desired(waiting({2, 2, 0, 0, 0, 0, 0, 0}), FleetSignal{12, -1}) == 4);
  CHECK(a.desired(waiting({2, 2, 0, 0, 0, 0, 0, 0})) == 1);
  // TTFT alone (target 500 ms): 1.2 s -> ceil(2 x 2.4) = 5; 520 ms is within the 10% tolerance -> keep 2;
  // 200 ms -> ceil(2 x 0.4) = 1; no finished request in the interval (< 0) -> no reading, keep 2.
  AutoscaleSpec t = queue_spec();
  t.target_queue = 0;
  t.target_ttft_s = 0.5;
  Autoscaler b(t, 8, 1, 0);
  const std::vector<ReplicaSignal> idle = waiting({0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(b.desired(idle, FleetSignal{0, 1.2}) == 5);
  CHECK(b.desired(idle, FleetSignal{0, 0.52}) == 2);
  CHECK(b.desired(idle, FleetSignal{0, 0.2}) == 1);
  CHECK(b.desired(idle, FleetSignal{0, -1}) == 2);
}

namespace {
// Llama-3.1-8B on up to 4 H100 replicas (1 at first); 2 req/s for 120 s, then 40 req/s for 300 s.
std::string step_load_fleet(const std::string& autoscale, const std::string& extra = "") {
  return "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
         "parallelism: {tp: 1, replicas: 4, router: least_outstanding}\n"
         "engine: {kind: vllm, max_num_seqs: 32}\n"
         "workload: {arrival: {process: multi_stage, stages: [{process: poisson, rate: 2, duration: \"120 s\"}, "
         "{process: poisson, rate: 40, duration: \"300 s\"}]}, input_tokens: {dist: fixed, value: 2000}, "
         "output_tokens: {dist: fixed, value: 400}}\n"
         "autoscale: " + autoscale + "\n" + extra;
}
}  // namespace

TEST_CASE("autoscale on TTFT: the fleet grows when the interval's TTFT p90 passes its target, not before the step",
          "[autoscale][sim]") {
  const Scenario sc = parse_scenario(
      parse_yaml_text(step_load_fleet("{min_replicas: 1, interval: \"15 s\", target_ttft: \"1 s\", provision: \"30 s\", "
                                      "scale_down_window: \"600 s\"}")),
      "test.yaml", true);
  const RunSummary s = simulate(sc).summary;
  REQUIRE(s.autoscale);
  const AutoscaleReport& a = *s.autoscale;
  CHECK(a.max_serving > 1);
  // At 2 req/s one replica answers in well under 1 s: no start is decided before the step at
  // 120 s, so none serves before 120 + 30 s.
  for (std::size_t k = 1; k < a.serving_changes.size(); ++k)
    if (a.serving_changes[k].second > a.serving_changes[k - 1].second) CHECK(a.serving_changes[k].first >= 150.0);
}

TEST_CASE("autoscale behind a gateway: the requests it holds are the queue the fleet scales on", "[autoscale][sim]") {
  // The gateway holds requests once every replica has 5 waiting (queue_threshold), so no
  // replica's own queue passes 5. With target_queue 10 the replicas' queues alone (at most 5
  // each: ratio <= 0.5) would never ask for more replicas; the held requests do.
  const Scenario sc = parse_scenario(
      parse_yaml_text(step_load_fleet("{min_replicas: 1, interval: \"15 s\", target_queue: 10, provision: \"30 s\"}",
                                      "gateway: {queue_threshold: 5}\n")),
      "test.yaml", true);
  const RunSummary s = simulate(sc).summary;
  REQUIRE(s.autoscale);
  CHECK(s.autoscale->max_serving > 1);
  CHECK(s.completed + s.failed == s.load.offered);
}

TEST_CASE("an autoscaled fleet draws idle power only while a replica holds its GPUs", "[autoscale][sim][energy]") {
  // A fleet "autoscaled" between 4 and 4 replicas never scales: it serves as the fixed
  // fleet does, step for step, and holds its 4 GPUs from t = 0 to the run's last event
  // (span_s) instead of over the run's duration (first arrival to last completion):
  //   E(held) - E(fixed) = 4 x P_idle x (span_s - duration_s).
  // A fleet that scales holds fewer GPU-seconds, and its idle energy shrinks with them:
  //   E = steps' joules + P_idle x (GPU-seconds held - GPU-seconds stepping).
  const std::string base = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                           "parallelism: {tp: 1, replicas: 4, router: least_outstanding}\n"
                           "engine: {kind: vllm, max_num_seqs: 32}\n"
                           "workload: {arrival: {process: multi_stage, stages: [{process: poisson, rate: 2, duration: "
                           "\"300 s\"}, {process: poisson, rate: 30, duration: \"200 s\"}, {process: poisson, rate: 1, "
                           "duration: \"600 s\"}]}, input_tokens: {dist: fixed, value: 2000}, output_tokens: {dist: "
                           "fixed, value: 400}}\n";
  const std::string scaling = "autoscale: {min_replicas: 1, interval: \"15 s\", target_queue: 2, provision: \"30 s\", "
                              "load_bandwidth: \"2 GB/s\", scale_down_window: \"60 s\"}\n";
  const std::string pinned = "autoscale: {min_replicas: 4, interval: \"15 s\", target_queue: 2}\n";
  auto scenario = [](const std::string& text) { return parse_scenario(parse_yaml_text(text), "test.yaml", true); };
  auto run = [&](const std::string& text) { return run_with_csv(scenario(text), nullptr).result.summary; };
  const RunSummary fixed = run(base), held = run(base + pinned), scaled = run(base + scaling);
  const double idle_w = PowerModel::of(scenario(base).gpu).idle_watts;
  REQUIRE(idle_w > 0);

  REQUIRE(held.autoscale);
  const AutoscaleReport& h = *held.autoscale;
  CHECK(h.scale_ups == 0);
  CHECK(h.scale_downs == 0);
  CHECK(h.gpu_seconds == Approx(4 * h.span_s));
  CHECK(held.completed == fixed.completed);
  CHECK(held.tpot_ms.mean == Approx(fixed.tpot_ms.mean).epsilon(1e-9));
  CHECK(held.energy_j - fixed.energy_j == Approx(4 * idle_w * (h.span_s - held.duration_s)).epsilon(1e-6));

  REQUIRE(scaled.autoscale);
  const AutoscaleReport& a = *scaled.autoscale;
  REQUIRE(a.gpu_seconds < 0.8 * h.gpu_seconds);  // it scaled: the closed form below is not the fixed fleet's
  const double busy_gpu_s = scaled.busy_fraction * scaled.duration_s * 4;
  CHECK(scaled.energy_j ==
        Approx(scaled.busy_power_w_per_gpu * busy_gpu_s + idle_w * (a.gpu_seconds - busy_gpu_s)).epsilon(1e-9));
  CHECK(scaled.energy_j < fixed.energy_j);
  // What is read from the energy follows it.
  CHECK(scaled.joules_per_request == Approx(scaled.energy_j / static_cast<double>(scaled.completed)));
  CHECK(scaled.power_w_per_gpu == Approx(scaled.energy_j / (scaled.duration_s * 4)));
}
