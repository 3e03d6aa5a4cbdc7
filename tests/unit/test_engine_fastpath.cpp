// The simulator's fast paths must not change answers beyond stated tolerances:
// the collector's histogram mode (flat memory past a cap), the memoised step
// costs, and fast-forward while requests wait that cannot be admitted.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/rng.h"
#include "run/simulation.h"
#include "engine/step_cost_cache.h"
#include "engine/step_pricing.h"
#include "metrics/collector.h"
#include "metrics/log_histogram.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// A lognormal-ish synthetic sample spanning several decades (0.1 ms .. 100 s), from
// a fixed-seed generator: no clocks, no platform-dependent draws.
std::vector<double> sample(std::size_t n) {
  std::vector<double> v;
  std::uint64_t x = 0x12345678abcdefULL;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    v.push_back(std::pow(10.0, -1.0 + 6.0 * u * u));                            // 0.1 .. 1e5 ms, skewed low
  }
  return v;
}

void check_close(const Distribution& got, const Distribution& want, double rel) {
  CHECK(got.count == want.count);
  CHECK(got.min == want.min);
  CHECK(got.max == want.max);
  CHECK(got.mean == Approx(want.mean).epsilon(1e-12));
  CHECK(std::abs(got.p50 - want.p50) <= rel * want.p50);
  CHECK(std::abs(got.p90 - want.p90) <= rel * want.p90);
  CHECK(std::abs(got.p95 - want.p95) <= rel * want.p95);
  CHECK(std::abs(got.p99 - want.p99) <= rel * want.p99);
}

}  // namespace

TEST_CASE("log histogram buckets are at most 0.1% wide and report their midpoint", "[engine][collector]") {
  // Bucket [lo, hi) of the power of two [2^e, 2^(e+1)): lo = 2^e (1 + k/1024),
  // hi = 2^e (1 + (k+1)/1024), so hi / lo - 1 = 1 / (1024 + k) <= 1/1024 = 0.098%,
  // and the midpoint is within half of that, 0.049%, of any value in the bucket.
  for (double v : {1e-6, 0.37, 1.0, 1.0009765625, 16.36, 4763.49, 5.7e6}) {
    const int b = LogHistogram::bucket_of(v);
    CHECK(std::abs(LogHistogram::midpoint(b) - v) <= v / 2048.0 + 1e-300);
  }
  CHECK(LogHistogram::bucket_of(1.0) + 1 == LogHistogram::bucket_of(1.0 + 1.0 / 1024.0));
}

TEST_CASE("collector percentiles in histogram mode are within 0.1% of exact", "[engine][collector]") {
  const std::vector<double> values = sample(50000);
  std::vector<double> sorted = values;
  const Distribution exact = summarize_values(sorted);

  SECTION("a LogHistogram on the sample") {
    LogHistogram h;
    for (double v : values) h.add(v);
    check_close(h.summarize(), exact, 1e-3);
    // The bound is 0.049% (both interpolated order statistics are); check it too.
    check_close(h.summarize(), exact, 0.5e-3);
  }

  SECTION("the collector past its cap: TTFT, E2E, queue, TPOT and ITL") {
    // One request per value v: arrival 0, first scheduled at v/2, first token at v,
    // finish at 2v, 2 output tokens: queue = v/2, TTFT = v, E2E = 2v, TPOT = v.
    // Times are whole nanoseconds, so the exact reference rounds the same way.
    Collector below(1e15, 3e12, 1, 1);
    Collector past(1e15, 3e12, 1, 1);
    past.set_exact_cap(1000);
    std::vector<double> ttft, e2e, queue, tpot;
    std::vector<std::pair<double, std::int64_t>> itl;
    std::int64_t id = 0;
    for (double v : values) {
      RequestRecord r;
      r.id = id++;
      r.arrival = 0;
      const Nanos t = to_nanos(v * 1e-3);
      r.first_scheduled = t / 2;
      r.first_token = t;
      r.finish = 2 * t;
      r.input_tokens = 10;
      r.output_tokens = 2;
      below.on_request_done(r);
      past.on_request_done(r);
      below.on_itl(v * 1e-3, 3);
      past.on_itl(v * 1e-3, 3);
      const double tt = to_seconds(t) * 1e3, ee = to_seconds(2 * t) * 1e3;
      ttft.push_back(tt);
      e2e.push_back(ee);
      queue.push_back(to_seconds(t / 2) * 1e3);
      tpot.push_back((ee - tt) / 1.0);
      itl.emplace_back(v * 1e-3 * 1e3, 3);
    }
    const RunSummary a = below.summarize();
    const RunSummary b = past.summarize();
    // Below the cap (200k): exactly the exact statistics, bit for bit.
    CHECK(a.ttft_ms.p99 == summarize_values(ttft).p99);
    CHECK(a.e2e_ms.p50 == summarize_values(e2e).p50);
    CHECK(a.itl_ms.p90 == summarize_weighted(itl).p90);
    // Past a cap of 1000: within 0.1%.
    check_close(b.ttft_ms, a.ttft_ms, 1e-3);
    check_close(b.e2e_ms, a.e2e_ms, 1e-3);
    check_close(b.queue_ms, a.queue_ms, 1e-3);
    check_close(b.tpot_ms, a.tpot_ms, 1e-3);
    check_close(b.itl_ms, a.itl_ms, 1e-3);
    CHECK(b.completed == a.completed);
  }
}

TEST_CASE("SLO attainment is counted online, the same below and past the cap", "[engine][collector]") {
  // TTFT limit 100 ms p99 and attainment: a request meets it when its TTFT <= 100.
  SloSpec slo;
  slo.targets.push_back({"ttft_ms", "p99", 100.0});
  Collector below(1e15, 3e12, 1, 1, slo);
  Collector past(1e15, 3e12, 1, 1, slo);
  past.set_exact_cap(10);
  std::int64_t good = 0;
  for (int i = 0; i < 1000; ++i) {
    RequestRecord r;
    r.id = i;
    r.first_scheduled = 0;
    r.first_token = to_nanos(0.2e-3 * i);  // 0 .. 199.8 ms
    r.finish = r.first_token + to_nanos(1.0);
    r.output_tokens = 5;
    good += 0.2 * i <= 100.0 ? 1 : 0;
    below.on_request_done(r);
    past.on_request_done(r);
  }
  REQUIRE(good == 501);  // i = 0 .. 500
  CHECK(below.summarize().slo_attainment == Approx(0.501));
  CHECK(past.summarize().slo_attainment == Approx(0.501));
}

TEST_CASE("memoised step costs equal the model's bit for bit", "[engine][fastpath]") {
  // The cache tabulates the token and sampling parts of a step and prices attention
  // each time; CostModel::totals combines the very same parts, so every total must
  // be identical, not merely close. Decode-only batches on a grid of (n, K) and
  // mixed batches with prefill chunks, including MLA (DeepSeek-V3), MoE, TP and PP;
  // each batch is priced twice (the second from the tables).
  const std::vector<std::pair<std::string, std::string>> setups = {
      {"llama-3.1-8b", "{tp: 1}"}, {"llama-3.1-8b", "{tp: 2, pp: 2}"}, {"mixtral-8x7b", "{tp: 2}"},
      {"deepseek-v3", "{tp: 8}"}};
  auto same = [](const StepTotals& got, const StepTotals& want) {
    CHECK(got.time == want.time);
    CHECK(got.stage_time == want.stage_time);
    CHECK(got.flops == want.flops);
    CHECK(got.bytes == want.bytes);
    for (std::size_t i = 0; i < got.time_by_bound.size(); ++i) CHECK(got.time_by_bound[i] == want.time_by_bound[i]);
  };
  for (const auto& [model, par] : setups) {
    INFO(model << " " << par);
    const Scenario sc = scenario_from("{kind: vllm}", "", model, par);
    const CostModel cost = make_cost_model(sc);
    StepCostCache cache(cost);
    for (int pass = 0; pass < 2; ++pass) {
      for (std::int64_t n : {1, 2, 7, 64, 255}) {
        for (std::int64_t per : {1, 17, 300, 1000, 4097, 30000}) {
          const std::int64_t kv = n * per + 5;
          BatchSummary b;
          b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
          b.decode_kv_tokens = static_cast<double>(kv);
          same(cache.decode(n, kv), cost.totals(b));
          // The same decoders with a prefill chunk of 512 tokens at context `per`.
          BatchSummary mixed = b;
          mixed.add(SeqWork{512, per, pass == 0});
          same(cache.totals(mixed), cost.totals(mixed));
        }
      }
    }
    // Token parts: n and n + 512 for the 5 values of n (10); sample parts: n, and n + 1
    // (the chunk samples in the first pass): {1,2,7,64,255} and {2,3,8,65,256}, 9
    // distinct. Everything else came from the tables.
    CHECK(cache.parts_computed() == 10 + 9);
  }
}

TEST_CASE("replicas of one model share their step-cost tables", "[engine][fastpath]") {
  // simulate() hands every replica the same StepCostCache. A second pricer of the
  // same model prices from the first one's entries (nothing recomputed) and gets
  // the model's totals bit for bit; a pricer of another model ignores the tables.
  const CostModel cost = make_cost_model(scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 1}"));
  const CostModel other = make_cost_model(scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 2}"));
  StepCostCache shared(cost);
  const CpuOverheads cpu{};
  StepPricer first(cost, cpu, 0.0, true, &shared), second(cost, cpu, 0.0, true, &shared);
  StepPricer foreign(other, cpu, 0.0, true, &shared);
  BatchSummary b;
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = 100;
  b.decode_kv_tokens = 100.0 * 1000;
  StepTotals t1, t2, t3;
  first.seconds(b, &t1);
  CHECK(shared.parts_computed() == 2);  // the token part of 100 tokens and the sample part of 100
  second.seconds(b, &t2);
  CHECK(shared.parts_computed() == 2);  // both from the first pricer's entries
  CHECK(t2.time == cost.totals(b).time);
  CHECK(t1.time == t2.time);
  foreign.seconds(b, &t3);
  CHECK(shared.parts_computed() == 2);  // tp 2 priced from its own tables
  CHECK(t3.time == other.totals(b).time);
  CHECK(t3.time != t1.time);  // tp 2 splits the work: a different step time
}

TEST_CASE("fast-forward past waiting requests that cannot be admitted matches step by step",
          "[engine][fastpath]") {
  // A saturated replica: 600 blocks of KV (9600 tokens) for ~1k-token prompts, so
  // the queue's head usually waits for blocks while the running requests decode.
  // Those decode runs are fused (admission cannot succeed before an event: free
  // blocks only shrink while decoders grow). Same completions, means within 0.5%.
  // Block size 16 (a power of two: masks and shifts) and 12 (division), with the KV
  // of 600 blocks of 16 tokens either way. Scenarios accept only vLLM's block sizes
  // (powers of two), so 12 is set on the parsed config to reach the division path.
  const bool pow2 = GENERATE(true, false);
  INFO("block size " << (pow2 ? 16 : 12));
  Scenario sc = scenario_from(pow2 ? "{kind: vllm, num_gpu_blocks_override: 600}"
                                   : "{kind: vllm, num_gpu_blocks_override: 800}",
                                    "{seed: 4, requests: 400, arrival: {process: poisson, rate: 20}, "
                                    "input_tokens: {dist: lognormal, mean: 1024, stddev: 512, max: 4096}, "
                                    "output_tokens: {dist: uniform, min: 64, max: 512}}");
  if (!pow2) sc.engine.block_size = 12;
  SimulationOptions ff, slow;
  ff.fast_forward = true;
  slow.fast_forward = false;
  const SimulationResult a = simulate(sc, ff);
  const SimulationResult b = simulate(sc, slow);
  REQUIRE(b.summary.queue_length_max > 10);  // it is saturated
  CHECK(a.summary.completed == b.summary.completed);
  CHECK(a.summary.output_tokens == b.summary.output_tokens);
  CHECK(a.summary.ttft_ms.mean == Approx(b.summary.ttft_ms.mean).epsilon(0.005));
  CHECK(a.summary.e2e_ms.mean == Approx(b.summary.e2e_ms.mean).epsilon(0.005));
  CHECK(a.summary.tpot_ms.mean == Approx(b.summary.tpot_ms.mean).epsilon(0.005));
}
