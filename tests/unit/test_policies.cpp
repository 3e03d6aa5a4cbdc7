// Scheduling policies other than vLLM v1's (engine.scheduler), against closed forms
// in the step-cost model:
//   t(batch) = cost.totals(batch).time + step_cpu_overhead + per_seq_cpu_overhead * seqs,
// the clock advancing by max(1, to_nanos(t)) per step (test_sim_helpers.h).
#include <catch2/catch.hpp>

#include "engine/framework_preset.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

constexpr double kNsInMs = 1e-6;  // 1 ns in milliseconds

SimulationResult run(const Scenario& sc, const std::vector<Request>& reqs, bool fast_forward = true) {
  VectorSource src(reqs);
  SimulationOptions opt;
  opt.fast_forward = fast_forward;
  return simulate(sc, src, opt);
}

}  // namespace

TEST_CASE("engine.scheduler defaults to the framework's and may be set", "[policies][config]") {
  CHECK(scenario_from("{kind: vllm}").engine.scheduler == "vllm_v1");
  CHECK(scenario_from("{kind: vllm, framework: vllm-v0}").engine.scheduler == "vllm_v0_prefill_first");
  CHECK(scenario_from("{kind: vllm, framework: vllm-2023-eager}").engine.scheduler == "vllm_v0_prefill_first");
  CHECK(scenario_from("{kind: vllm, framework: trtllm}").engine.scheduler == "trtllm_no_evict");
  CHECK(scenario_from("{kind: vllm, framework: sglang}").engine.scheduler == "vllm_v1");
  CHECK(scenario_from("{kind: vllm, framework: lmdeploy-turbomind}").engine.scheduler == "vllm_v1");
  CHECK(scenario_from("{kind: vllm, framework: trtllm, scheduler: trtllm_max_utilization}").engine.scheduler ==
        "trtllm_max_utilization");
  CHECK(scenario_from("{kind: vllm, scheduler: trtllm_no_evict}").engine.scheduler == "trtllm_no_evict");
  CHECK_THROWS_WITH(scenario_from("{kind: vllm, scheduler: fcfs}"), Catch::Contains("unknown scheduler 'fcfs'"));
  // A preset's policy is now modelled: its note no longer says it is not.
  for (const auto& p : framework_presets()) {
    INFO(p.name);
    CHECK(std::string(p.policy_note).find("servesim mixes them") == std::string::npos);
    CHECK(std::string(p.policy_note).find("servesim preempts as vLLM does") == std::string::npos);
  }
}

TEST_CASE("trtllm_no_evict: with KV for exactly N whole requests the (N+1)th waits for a finish, none is preempted",
          "[policies][no_evict]") {
  // block_size 16; in = 256, out = 256: a request's KV peaks at in + out - 1 = 511
  // tokens = ceil(511/16) = 32 blocks. KV = N * 32 blocks with N = 3, and N + 1 = 4
  // requests at t = 0 (prompts 4 * 16 = 64 blocks fit at once, which is what vLLM
  // admits on).
  const std::int64_t in = 256, out = 256, n = 3, per_request = (in + out - 1 + 15) / 16;
  REQUIRE(per_request == 32);
  const std::string blocks = std::to_string(n * per_request);
  std::vector<Request> reqs;
  for (std::int64_t i = 0; i <= n; ++i) reqs.push_back(make_request(0.0, in, out));

  for (bool ff : {true, false}) {
    INFO("fast_forward=" << ff);
    SECTION(std::string("no-evict") + (ff ? " fused" : " step by step")) {
      const Scenario sc = scenario_from("{kind: vllm, scheduler: trtllm_no_evict, block_size: 16, max_num_seqs: 16, "
                                        "num_gpu_blocks_override: " + blocks + "}");
      VectorSource src(reqs);
      const RunWithCsv r = run_with_csv(sc, &src, ff);
      REQUIRE(r.result.summary.completed == n + 1);
      CHECK(r.result.summary.preemptions == 0);
      CHECK(r.result.summary.kv_utilization_max <= 1.0);
      REQUIRE(r.rows.size() == static_cast<std::size_t>(n + 1));
      // The first N start at once and, alike, finish together at E; the (N+1)th
      // is admitted by the step starting at E (its reservation is freed at the end
      // of the step that finishes them), so its queueing time is E - 0 = E.
      double e = 0;
      for (const auto& row : r.rows)
        if (row.id < n) {
          CHECK(row.queue_ms == Approx(0.0).margin(0.001));
          e = std::max(e, row.e2e_ms);
        }
      for (const auto& row : r.rows)
        if (row.id == n) CHECK(row.queue_ms == Approx(e).margin(0.002));  // 3-decimal csv
    }
  }
  SECTION("vllm_v1 on the same workload admits all four and preempts") {
    const Scenario sc = scenario_from(
        "{kind: vllm, block_size: 16, max_num_seqs: 16, num_gpu_blocks_override: " + blocks + "}");
    const SimulationResult r = run(sc, reqs);
    CHECK(r.summary.completed == n + 1);
    CHECK(r.summary.preemptions > 0);
  }
  SECTION("trtllm_max_utilization is vLLM's pausing policy") {
    const Scenario sc = scenario_from("{kind: vllm, scheduler: trtllm_max_utilization, block_size: 16, "
                                      "max_num_seqs: 16, num_gpu_blocks_override: " + blocks + "}");
    CHECK(run(sc, reqs).summary.preemptions > 0);
  }
}

TEST_CASE("trtllm_no_evict: one block fewer than N whole requests admits N - 1 at a time", "[policies][no_evict]") {
  // 3 * 32 - 1 = 95 blocks: after two reservations (64) the third's 32 do not fit
  // (64 + 32 = 96 > 95), so the third waits for the first two to finish (at E) and
  // the fourth starts with it.
  const Scenario sc = scenario_from("{kind: vllm, scheduler: trtllm_no_evict, block_size: 16, max_num_seqs: 16, "
                                    "num_gpu_blocks_override: 95}");
  std::vector<Request> reqs;
  for (int i = 0; i < 4; ++i) reqs.push_back(make_request(0.0, 256, 256));
  VectorSource src(reqs);
  const RunWithCsv r = run_with_csv(sc, &src, true);
  REQUIRE(r.result.summary.completed == 4);
  CHECK(r.result.summary.preemptions == 0);
  const double e = std::max(r.rows[0].e2e_ms, r.rows[1].e2e_ms);
  for (const auto& row : r.rows) {
    INFO("request " << row.id);
    if (row.id < 2) CHECK(row.queue_ms == Approx(0.0).margin(0.001));
    else CHECK(row.queue_ms == Approx(e).margin(0.002));
  }
}

TEST_CASE("vllm_v0_prefill_first: a lone request's TTFT is its prefill step", "[policies][prefill_first]") {
  const Scenario sc = scenario_from("{kind: vllm, scheduler: vllm_v0_prefill_first, async_scheduling: false}");
  const CostModel cost = make_cost_model(sc);
  const std::int64_t in = 3000, out = 20;
  // One prefill step of the whole prompt, SeqWork{in, 0, samples}; the first prompt
  // of a step may exceed max_num_batched_tokens, so no chunking.
  const Nanos p = step_nanos(cost, sc.engine, batch_of(1, SeqWork{in, 0, true}));
  for (bool ff : {true, false}) {
    const SimulationResult r = run(sc, {make_request(0.0, in, out)}, ff);
    REQUIRE(r.summary.completed == 1);
    CHECK(r.summary.ttft_ms.mean == Approx(static_cast<double>(p) * kNsInMs).margin(kNsInMs));
  }
  // A prompt longer than the token budget still runs whole, in one step.
  const Scenario small = scenario_from(
      "{kind: vllm, scheduler: vllm_v0_prefill_first, async_scheduling: false, max_num_batched_tokens: 2048}");
  const SimulationResult r = run(small, {make_request(0.0, in, out)});
  CHECK(r.summary.ttft_ms.mean == Approx(static_cast<double>(p) * kNsInMs).margin(kNsInMs));
}

TEST_CASE("vllm_v0_prefill_first: a decoder's inter-token gap includes exactly the prefill step that paused it",
          "[policies][prefill_first]") {
  // r1 (in1, out1) at t = 0; r2 (in2, out 1) arrives while r1 decodes. r2 samples its
  // only token in its prefill step P2 = t(SeqWork{in2, 0, samples}), during which r1
  // does not decode. So, with D(c) = t(SeqWork{1, c, samples}) r1's decode step at
  // KV context c:
  //   TTFT1 = P1 = t(SeqWork{in1, 0, samples})
  //   E2E1  = P1 + sum_{j=1}^{out1-1} D(in1 + j - 1) + P2
  //   r1's gaps: out1 - 1 of them, summing to E2E1 - TTFT1; the one spanning r2's
  //   prefill is P2 + D(in1 + m - 1), m the first decode step starting after r2 arrives.
  // r2's TTFT = (start of P2) - arrival + P2, P2 starting at the end of the decode
  // step running when r2 arrives (synchronous scheduling: it is seen then).
  const Scenario sc = scenario_from("{kind: vllm, scheduler: vllm_v0_prefill_first, async_scheduling: false}");
  const CostModel cost = make_cost_model(sc);
  const EngineConfig& cfg = sc.engine;
  const std::int64_t in1 = 512, out1 = 40, in2 = 2000;
  const Nanos p1 = step_nanos(cost, cfg, batch_of(1, SeqWork{in1, 0, true}));
  const Nanos p2 = step_nanos(cost, cfg, batch_of(1, SeqWork{in2, 0, true}));
  auto d = [&](std::int64_t j) { return step_nanos(cost, cfg, batch_of(1, SeqWork{1, in1 + j - 1, true})); };
  // r2 arrives 10.5 decode steps into r1's decode.
  Nanos arrival = p1;
  for (std::int64_t j = 1; j <= 10; ++j) arrival += d(j);
  arrival += d(11) / 2;
  // Closed form: walk r1's steps; P2 runs at the first step boundary at or after the arrival.
  Nanos t = p1, e2e1 = 0, p2_start = -1;
  Nanos decode_sum = 0, gap_with_p2 = 0;
  for (std::int64_t j = 1; j <= out1 - 1; ++j) {
    Nanos gap = 0;
    if (p2_start < 0 && t >= arrival) {
      p2_start = t;
      t += p2;
      gap += p2;
    }
    t += d(j);
    gap += d(j);
    decode_sum += d(j);
    if (gap > d(j)) gap_with_p2 = gap;
  }
  e2e1 = t;
  REQUIRE(p2_start > 0);
  REQUIRE(e2e1 == p1 + decode_sum + p2);

  for (bool ff : {true, false}) {
    INFO("fast_forward=" << ff);
    std::vector<Request> reqs = {make_request(0.0, in1, out1), make_request(0.0, in2, 1)};
    reqs[1].arrival = arrival;
    VectorSource src(reqs);
    const RunWithCsv r = run_with_csv(sc, &src, ff);
    REQUIRE(r.result.summary.completed == 2);
    REQUIRE(r.rows.size() == 2);
    for (const auto& row : r.rows) {
      if (row.id == 0) {
        CHECK(row.ttft_ms == Approx(static_cast<double>(p1) * kNsInMs).margin(0.001));
        CHECK(row.e2e_ms == Approx(static_cast<double>(e2e1) * kNsInMs).margin(0.001));
        // TPOT = (E2E - TTFT) / (out1 - 1) includes P2 once.
        CHECK(row.tpot_ms == Approx(static_cast<double>(decode_sum + p2) * kNsInMs / (out1 - 1)).margin(0.001));
      } else {
        CHECK(row.ttft_ms == Approx(static_cast<double>(p2_start + p2 - arrival) * kNsInMs).margin(0.001));
      }
    }
    // Inter-token gaps: only r1 has any (r2 samples one token); they sum to E2E1 - TTFT1.
    const Distribution& itl = r.result.summary.itl_ms;
    CHECK(itl.count == out1 - 1);
    CHECK(itl.mean * static_cast<double>(itl.count) ==
          Approx(static_cast<double>(decode_sum + p2) * kNsInMs).epsilon(1e-6));
    CHECK(itl.max == Approx(static_cast<double>(gap_with_p2) * kNsInMs).epsilon(1e-4));
  }
}

TEST_CASE("vllm_v0_prefill_first: a step runs prompts or decodes, never both", "[policies][prefill_first]") {
  // Every request at t = 0 with max_num_seqs 4: 4 prompts in the first step (all
  // fit the budget: 4 * 500 <= 8192), then decode steps until the first four finish
  // together, then the next four prompts alone. No step mixes: the step count is
  // 2 prefill steps + 2 * (out - 1) decode steps.
  const Scenario sc =
      scenario_from("{kind: vllm, scheduler: vllm_v0_prefill_first, async_scheduling: false, max_num_seqs: 4}");
  const std::int64_t out = 30;
  std::vector<Request> reqs;
  for (int i = 0; i < 8; ++i) reqs.push_back(make_request(0.0, 500, out));
  for (bool ff : {true, false}) {
    const SimulationResult r = run(sc, reqs, ff);
    REQUIRE(r.summary.completed == 8);
    CHECK(r.summary.steps == 2 + 2 * (out - 1));
    CHECK(r.summary.preemptions == 0);
  }
}

TEST_CASE("vllm_v0_prefill_first: inter-token gaps add up to each request's E2E - TTFT, pipeline stages included",
          "[policies][prefill_first]") {
  // Every gap between a request's consecutive tokens is one ITL sample, so over a
  // run without preemption: count = sum(out - 1) and sum = sum(E2E - TTFT). A gap
  // that spans prefill-only steps must carry them (the property fails by their
  // total if it does not). Poisson arrivals, ample KV: decoders are paused often.
  for (const std::string par : {"{tp: 1}", "{tp: 1, pp: 2}"}) {
    for (bool ff : {true, false}) {
      INFO("parallelism " << par << " fast_forward=" << ff);
      const Scenario sc = scenario_from("{kind: vllm, scheduler: vllm_v0_prefill_first}", "", "llama-3.1-8b", par);
      std::vector<Request> reqs;
      double t = 0;
      for (int i = 0; i < 60; ++i) {
        t += 0.05 + 0.01 * (i % 7);
        reqs.push_back(make_request(t, 200 + 37 * (i % 11), 20 + 13 * (i % 5)));
      }
      VectorSource src(reqs);
      const RunWithCsv r = run_with_csv(sc, &src, ff);
      REQUIRE(r.result.summary.completed == 60);
      REQUIRE(r.result.summary.preemptions == 0);
      std::int64_t gaps = 0;
      double sum_ms = 0;
      for (const auto& row : r.rows) {
        gaps += row.output_tokens - 1;
        sum_ms += row.e2e_ms - row.ttft_ms;
      }
      const Distribution& itl = r.result.summary.itl_ms;
      CHECK(itl.count == gaps);
      // requests.csv rounds each ms figure to 3 decimals: 60 * 2 * 0.0005 ms.
      CHECK(itl.mean * static_cast<double>(itl.count) == Approx(sum_ms).margin(0.06 + 1e-6 * sum_ms));
    }
  }
}
