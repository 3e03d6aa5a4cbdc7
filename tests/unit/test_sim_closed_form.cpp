// End-to-end simulations whose answer has a closed form in the step-cost model:
// concurrency 1 (TTFT / TPOT / E2E), the saturated-throughput bound, the exact
// point where the KV cache runs out (preemption), and static batching.
//
// Step wall time, as both engines charge it:
//   t(batch) = cost.totals(batch).time + step_cpu_overhead + per_seq_cpu_overhead * seqs
// and the clock advances by max(1, to_nanos(t)) per step (integer nanoseconds), so
// sums of per-step times are compared with a tolerance of ~1 ns per step.
#include <catch2/catch.hpp>

#include <cmath>

#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// Closed-form latencies of one request alone on a vLLM replica.
struct Alone {
  Nanos ttft = 0;          // all prefill steps
  Nanos e2e = 0;           // ttft + every decode step
  double tpot_s = 0;       // mean of the decode step times (unrounded seconds)
};

Alone alone(const Scenario& sc, std::int64_t in, std::int64_t out) {
  const CostModel cost = make_cost_model(sc);
  const EngineConfig& cfg = sc.engine;
  Alone a;
  // Prefill in chunks of at most max_num_batched_tokens; only the last samples.
  for (std::int64_t done = 0; done < in;) {
    const std::int64_t chunk = std::min(in - done, cfg.max_num_batched_tokens);
    a.ttft += step_nanos(cost, cfg, batch_of(1, SeqWork{chunk, done, done + chunk == in}));
    done += chunk;
  }
  // Decode step j = 1 .. out-1 reads in+j-1 cached tokens and appends one:
  // SeqWork{1, in+j-1} (BatchSummary counts ctx+1 = in+j KV tokens).
  Nanos decode = 0;
  double sum = 0;
  for (std::int64_t j = 1; j <= out - 1; ++j) {
    const BatchSummary b = batch_of(1, SeqWork{1, in + j - 1, true});
    sum += step_seconds(cost, cfg, b);
    decode += step_nanos(cost, cfg, b);
  }
  a.e2e = a.ttft + decode;
  a.tpot_s = out > 1 ? sum / static_cast<double>(out - 1) : 0.0;
  return a;
}

constexpr double kNsInMs = 1e-6;  // 1 ns in milliseconds

}  // namespace

TEST_CASE("concurrency 1: TTFT is the prefill step, TPOT the mean decode step, E2E = TTFT + (out-1)*TPOT",
          "[sim][closed_form]") {
  const Scenario sc = scenario_from("{kind: vllm, max_num_seqs: 256, max_num_batched_tokens: 8192}");
  const std::int64_t in = 1000, out = 200;
  const Alone want = alone(sc, in, out);
  // Sanity of the closed form itself: an 8B bf16 decode step on an H100 streams
  // ~16 GB of weights at ~3.35 TB/s, i.e. a few ms; the prefill of 1000 tokens is
  // ~16 TFLOP, tens of ms at most.
  REQUIRE(want.tpot_s > 1e-3);
  REQUIRE(want.tpot_s < 20e-3);

  SECTION("step by step (fast_forward = false): exact to the nanosecond") {
    VectorSource src({make_request(0.0, in, out)});
    SimulationOptions opt;
    opt.fast_forward = false;
    const SimulationResult r = simulate(sc, src, opt);
    REQUIRE(r.summary.completed == 1);
    REQUIRE(r.summary.failed == 0);
    CHECK(r.summary.preemptions == 0);
    // TTFT = to_nanos(prefill step), reported in ms: 1 ns = 1e-6 ms.
    CHECK(r.summary.ttft_ms.mean == Approx(static_cast<double>(want.ttft) * kNsInMs).margin(kNsInMs));
    // TPOT = (E2E - TTFT)/(out-1); each of the out-1 steps is rounded to the ns
    // (<= 0.5 ns error on ~5e6 ns), so relative error < 1e-7: 1e-6 holds.
    CHECK(r.summary.tpot_ms.mean == Approx(want.tpot_s * 1e3).epsilon(1e-6));
    // E2E = TTFT + sum of the rounded decode steps, to the ns.
    CHECK(r.summary.e2e_ms.mean == Approx(static_cast<double>(want.e2e) * kNsInMs).margin(kNsInMs));
    // And the identity E2E = TTFT + (out-1) * TPOT.
    CHECK(r.summary.e2e_ms.mean ==
          Approx(r.summary.ttft_ms.mean + static_cast<double>(out - 1) * r.summary.tpot_ms.mean).margin(kNsInMs));
    CHECK(r.summary.queue_ms.mean == Approx(0.0).margin(kNsInMs));
    // One prefill step + out-1 decode steps.
    CHECK(r.summary.steps == out);
  }

  SECTION("fast-forwarded: the fused decode run matches within 1e-4") {
    // The fused run is priced by the trapezoid rule over the affine (memory-bound)
    // decode-step time, so it agrees closely but not to the ns.
    VectorSource src({make_request(0.0, in, out)});
    const SimulationResult r = simulate(sc, src, {});
    REQUIRE(r.summary.completed == 1);
    CHECK(r.summary.ttft_ms.mean == Approx(static_cast<double>(want.ttft) * kNsInMs).margin(kNsInMs));
    CHECK(r.summary.tpot_ms.mean == Approx(want.tpot_s * 1e3).epsilon(1e-4));
    CHECK(r.summary.e2e_ms.mean == Approx(static_cast<double>(want.e2e) * kNsInMs).epsilon(1e-4));
    CHECK(r.summary.steps == out);  // fused steps still count one each
  }
}

TEST_CASE("concurrency 1: requests spaced far apart each see the closed form, chunked prefill included",
          "[sim][closed_form]") {
  const Scenario sc = scenario_from("{kind: vllm, max_num_seqs: 256, max_num_batched_tokens: 8192}");
  // (arrival, in, out); each finishes in well under 20 s (<= 300 steps of < 20 ms
  // plus < 1 s prefill), so no two overlap. in = 10000 > 8192 is prefilled in two
  // chunks: SeqWork{8192, 0, no sample} then SeqWork{1808, 8192, sample}.
  struct Case {
    double at;
    std::int64_t in, out;
  };
  const std::vector<Case> cases = {{0.0, 512, 128}, {20.0, 2048, 64}, {40.0, 100, 300}, {60.0, 10000, 32},
                                   {80.0, 7, 1}};
  std::vector<Request> reqs;
  for (const auto& c : cases) reqs.push_back(make_request(c.at, c.in, c.out));
  VectorSource src(reqs);
  const RunWithCsv run = run_with_csv(sc, &src, /*fast_forward=*/false);
  REQUIRE(run.result.summary.completed == static_cast<std::int64_t>(cases.size()));
  REQUIRE(run.rows.size() == cases.size());
  for (const auto& row : run.rows) {
    const Case& c = cases[static_cast<std::size_t>(row.id)];
    const Alone want = alone(sc, c.in, c.out);
    INFO("request " << row.id << ": in=" << c.in << " out=" << c.out);
    // requests.csv prints ms with 3 decimals: +-0.0005 ms of formatting.
    CHECK(row.queue_ms == Approx(0.0).margin(0.001));
    CHECK(row.ttft_ms == Approx(static_cast<double>(want.ttft) * kNsInMs).margin(0.001));
    CHECK(row.e2e_ms == Approx(static_cast<double>(want.e2e) * kNsInMs).margin(0.001));
    if (c.out > 1) CHECK(row.tpot_ms == Approx(want.tpot_s * 1e3).margin(0.001));
    CHECK(row.preemptions == 0);
  }
}

TEST_CASE("saturated throughput approaches max_num_seqs / (full-batch decode step time) and never exceeds it",
          "[sim][closed_form][throughput]") {
  // S = max_num_seqs = 64 sequences decode together; in = 32, out = 256, all at t = 0.
  const std::int64_t S = 64, in = 32, out = 256;
  const Scenario base = scenario_from("{kind: vllm, max_num_seqs: 64, max_num_batched_tokens: 8192}",
                                      "{requests: 256, arrival: {process: all_at_once}, "
                                      "input_tokens: {dist: fixed, value: 32}, output_tokens: {dist: fixed, value: 256}}");
  const CostModel cost = make_cost_model(base);
  // Bound: a step emits at most S tokens (one per running sequence). Every step that
  // emits s tokens costs at least the full-batch decode step at the smallest context,
  // t_min = t(S x SeqWork{1, in}), scaled by s/S (per-token cost falls with batch size:
  // weights are streamed once per step), and KV reads only grow with context. So
  //   output tokens/s <= U = S / t_min.
  const double t_min = step_seconds(cost, base.engine, batch_of(S, SeqWork{1, in, true}));
  const double U = static_cast<double>(S) / t_min;
  // Where it lands: a wave of S requests is one prefill step (S*32 = 2048 tokens,
  // ~50 ms of compute) plus out-1 = 255 decode steps at contexts 32..286, mean ~160:
  // the KV read grows from 0.27 GB to ~1.3 GB on top of ~16 GB of weights (+6%), and
  // the prefill adds ~3%: about 0.90 U. Check [0.85 U, U].
  double wave = step_seconds(cost, base.engine, batch_of(S, SeqWork{in, 0, true}));
  for (std::int64_t j = 1; j < out; ++j) wave += step_seconds(cost, base.engine, batch_of(S, SeqWork{1, in + j - 1, true}));
  const double ideal = static_cast<double>(S * out) / wave;  // back-to-back identical waves
  INFO("U = " << U << " tok/s, ideal waves = " << ideal << " tok/s");
  REQUIRE(ideal <= U);

  for (bool ff : {true, false}) {
    INFO("fast_forward = " << ff);
    SimulationOptions opt;
    opt.fast_forward = ff;
    const SimulationResult r = simulate(base, opt);
    REQUIRE(r.summary.completed == 256);
    REQUIRE(r.summary.output_tokens == 256 * out);
    const double tput = r.summary.output_tokens_per_s;
    INFO("simulated " << tput << " tok/s = " << tput / U << " U");
    CHECK(tput <= U);
    CHECK(tput >= 0.85 * U);
    CHECK(r.summary.batch_size_max == S);
  }

  SECTION("a single wave (N = S) pays its prefill and stays below the bound too") {
    Scenario one = base;
    one.workload.requests = S;
    const SimulationResult r = simulate(one, {});
    REQUIRE(r.summary.completed == S);
    CHECK(r.summary.output_tokens_per_s <= U);
  }
}

TEST_CASE("preemption happens exactly when the KV blocks run out", "[sim][closed_form][kv]") {
  // k requests, all at t = 0, block_size 16. A request's KV holds prompt + all
  // generated tokens but the last (the last sampled token is never written back):
  // in + out - 1 tokens at its end, so it needs ceil((in+out-1)/16) blocks.
  struct Shape {
    std::int64_t in, out;
  };
  const std::int64_t k = 4;
  // 100+60: 159 KV tokens -> 10 blocks (= ceil(160/16) too).
  // 97+64: 160 KV tokens -> 10 blocks, though ceil((in+out)/16) = ceil(161/16) = 11.
  for (const Shape sh : {Shape{100, 60}, Shape{97, 64}}) {
    const std::int64_t per_request = (sh.in + sh.out - 1 + 15) / 16;
    REQUIRE(per_request == 10);
    const std::int64_t need = k * per_request;  // 40 blocks with all k running to the end
    for (bool ff : {true, false}) {
      for (std::int64_t blocks : {need, need - 1}) {
        INFO("in=" << sh.in << " out=" << sh.out << " blocks=" << blocks << " fast_forward=" << ff);
        const Scenario sc = scenario_from(
            "{kind: vllm, block_size: 16, max_num_seqs: 16, num_gpu_blocks_override: " + std::to_string(blocks) + "}");
        std::vector<Request> reqs;
        for (std::int64_t i = 0; i < k; ++i) reqs.push_back(make_request(0.0, sh.in, sh.out));
        VectorSource src(reqs);
        SimulationOptions opt;
        opt.fast_forward = ff;
        const SimulationResult r = simulate(sc, src, opt);
        CHECK(r.kv_blocks_per_replica == blocks);
        // Every request completes either way.
        CHECK(r.summary.completed == k);
        CHECK(r.summary.failed == 0);
        if (blocks >= need) {
          CHECK(r.summary.preemptions == 0);
          CHECK(r.summary.kv_utilization_max <= 1.0);
        } else {
          // One block short: the last request admitted is preempted once, when the
          // others cross their 10th block; its recompute runs after one finishes.
          CHECK(r.summary.preemptions == 1);
          CHECK(r.summary.preempted_requests == 1);
        }
      }
    }
  }
}

TEST_CASE("static engine: a full batch's E2E is one batched prefill plus out-1 full-batch decode steps",
          "[sim][closed_form][static]") {
  // N = max_num_seqs = 8 identical requests at t = 0: one batch; with 2N, the second
  // batch starts when the first ends (same length), so its E2E is twice as long.
  const std::int64_t S = 8, in = 256, out = 64;
  for (std::int64_t n : {S, 2 * S}) {
    INFO("N = " << n);
    const Scenario sc = scenario_from("{kind: static, max_num_seqs: 8}",
                                      "{requests: " + std::to_string(n) +
                                          ", arrival: {process: all_at_once}, "
                                          "input_tokens: {dist: fixed, value: 256}, output_tokens: {dist: fixed, value: 64}}");
    const CostModel cost = make_cost_model(sc);
    // prefill = t(S x SeqWork{in, 0}); decode step d = 0..out-2 = t(S x SeqWork{1, in + d}).
    const Nanos prefill = step_nanos(cost, sc.engine, batch_of(S, SeqWork{in, 0, true}));
    Nanos batch = prefill;
    for (std::int64_t d = 0; d <= out - 2; ++d) batch += step_nanos(cost, sc.engine, batch_of(S, SeqWork{1, in + d, true}));
    const RunWithCsv run = run_with_csv(sc, nullptr);
    REQUIRE(run.result.summary.completed == n);
    REQUIRE(run.rows.size() == static_cast<std::size_t>(n));
    for (const auto& row : run.rows) {
      INFO("request " << row.id);
      const std::int64_t wave = row.id / S;  // 0 for the first batch, 1 for the second
      const Nanos start = wave * batch;
      // ms with 3 decimals in the CSV.
      CHECK(row.ttft_ms == Approx(static_cast<double>(start + prefill) * kNsInMs).margin(0.001));
      CHECK(row.e2e_ms == Approx(static_cast<double>(start + batch) * kNsInMs).margin(0.001));
    }
    CHECK(run.result.summary.batch_size_max == S);
    CHECK(run.result.summary.steps == (n / S) * out);
  }
}

TEST_CASE("vLLM: requests arriving at the same instant share the step that starts then",
          "[sim][closed_form][arrivals]") {
  // k = 8 identical requests at t = 0 (in = 256, out = 32): 8 x 256 = 2048 prompt
  // tokens fit the 8192-token budget, so the first step prefills all 8 together:
  //   TTFT = t(8 x SeqWork{256, 0}),  E2E = TTFT + sum_{j=1}^{31} t(8 x SeqWork{1, 256 + j - 1}).
  const std::int64_t k = 8, in = 256, out = 32;
  const Scenario sc = scenario_from("{kind: vllm, max_num_seqs: 64, max_num_batched_tokens: 8192}",
                                    "{requests: 8, arrival: {process: all_at_once}, "
                                    "input_tokens: {dist: fixed, value: 256}, output_tokens: {dist: fixed, value: 32}}");
  const CostModel cost = make_cost_model(sc);
  const Nanos prefill = step_nanos(cost, sc.engine, batch_of(k, SeqWork{in, 0, true}));
  Nanos e2e = prefill;
  for (std::int64_t j = 1; j < out; ++j) e2e += step_nanos(cost, sc.engine, batch_of(k, SeqWork{1, in + j - 1, true}));
  const RunWithCsv run = run_with_csv(sc, nullptr, /*fast_forward=*/false);
  REQUIRE(run.rows.size() == static_cast<std::size_t>(k));
  for (const auto& row : run.rows) {
    INFO("request " << row.id);
    CHECK(row.ttft_ms == Approx(static_cast<double>(prefill) * kNsInMs).margin(0.001));
    CHECK(row.e2e_ms == Approx(static_cast<double>(e2e) * kNsInMs).margin(0.001));
  }
  CHECK(run.result.summary.steps == out);  // 1 prefill + 31 decode steps, no straggler step
}
