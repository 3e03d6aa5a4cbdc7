// Parallel sampling and beam search (workload.sampling, engine/sequence_group.h):
// closed forms for one request alone, the KV blocks step by step, the decode
// aggregate's group arithmetic, whole-group preemption and the refusals.
//
// Notation: prompt P tokens, O output tokens, m sequences (n samples or b beams),
// block size bs = 16, S = floor(P / bs) prompt blocks full at the fork. After decode
// step j (j = 1 .. O-1) each sequence holds L_j = P + j tokens (the prefill's token
// and j - 1 decoded ones written back, the newest sampled one not yet). Blocks:
//   n samples: S + n (ceil(L_j / bs) - S)   (shared full prompt blocks + n suffixes)
//   b beams:   ceil(L_j / bs) + (b - 1)     (shared history + each beam's last block)
//   m = 1:     ceil(L_j / bs)
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/decode_aggregate.h"
#include "engine/engine.h"
#include "engine/sequence_group.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

constexpr std::int64_t kBs = 16;

std::int64_t ceil_blocks(std::int64_t tokens) { return (tokens + kBs - 1) / kBs; }

SamplingSpec samples(std::int64_t n) {
  SamplingSpec s;
  s.n = n;
  return s;
}
SamplingSpec beams(std::int64_t b) {
  SamplingSpec s;
  s.beam_width = b;
  return s;
}

Scenario engine_scenario(const SamplingSpec& s, const std::string& extra = "") {
  Scenario sc = scenario_from("{kind: vllm, block_size: 16, max_num_seqs: 256, max_num_batched_tokens: 8192" +
                              extra + "}");
  sc.workload.sampling = s;
  // These tests are of the engine's sequence groups (vLLM up to v0.6.2, TensorRT-LLM);
  // the loop above the engine that vllm-v1 runs has its own (test_beam_loop.cpp).
  sc.engine.beam_search = BeamSearchImpl::in_engine;
  return sc;
}

// One request alone, step by step, with every step's timeline row.
SimulationResult run_alone(const Scenario& sc, std::int64_t in, std::int64_t out, bool fast_forward = false) {
  VectorSource src({make_request(0.0, in, out)});
  SimulationOptions opt;
  opt.fast_forward = fast_forward;
  opt.timeline_rows = 100000;
  return simulate(sc, src, opt);
}

}  // namespace

TEST_CASE("n samples of one prompt cost one prefill: the same TTFT and prefill tokens as one sample",
          "[sim][sampling]") {
  const std::int64_t in = 1000, out = 200;
  const SimulationResult one = run_alone(engine_scenario(samples(1)), in, out);
  for (std::int64_t n : {2, 4, 8}) {
    INFO("n = " << n);
    const SimulationResult r = run_alone(engine_scenario(samples(n)), in, out);
    REQUIRE(r.summary.completed == 1);
    std::int64_t prefill = 0;
    for (const TimelineRow& row : r.timeline) prefill += row.prefill_tokens;
    CHECK(prefill == in);  // P once, not n P
    // The prefill step is the same step (its last position's logits give every
    // sample's first token), so TTFT is the one-sample TTFT to the nanosecond.
    CHECK(r.summary.ttft_ms.mean == one.summary.ttft_ms.mean);
    // 1 prefill step + O - 1 decode steps, each decoding all n samples.
    CHECK(r.summary.steps == out);
    // Output tokens count every sample: n O.
    CHECK(r.summary.output_tokens == n * out);
  }
}

TEST_CASE("KV blocks: n samples hold the shared prompt blocks plus n private suffixes, b beams one history "
          "plus b last blocks",
          "[sim][sampling][kv]") {
  // P = 1000: S = 62 full blocks and an 8-token partial one (copied on write);
  // P = 1024: S = 64, no partial block (each sequence starts a fresh block).
  for (std::int64_t in : {1000, 1024}) {
    const std::int64_t out = 200, m = 4, S = in / kBs;
    for (bool beam : {false, true}) {
      INFO("P = " << in << (beam ? " beams" : " samples"));
      const SimulationResult r = run_alone(engine_scenario(beam ? beams(m) : samples(m)), in, out);
      REQUIRE(r.summary.completed == 1);
      REQUIRE(r.timeline.size() == static_cast<std::size_t>(out));
      // Row 0 is the prefill: ceil(P / bs) blocks, one copy.
      CHECK(r.timeline[0].kv_used == ceil_blocks(in));
      for (std::int64_t j = 1; j < out; ++j) {
        const std::int64_t len = in + j;
        const std::int64_t want = beam ? ceil_blocks(len) + (m - 1) : S + m * (ceil_blocks(len) - S);
        INFO("decode step " << j);
        REQUIRE(r.timeline[static_cast<std::size_t>(j)].kv_used == want);
        CHECK(r.timeline[static_cast<std::size_t>(j)].decode_tokens == m);
      }
    }
    // At the end (L = P + O - 1 = 1199 or 1223): samples 62 + 4 (75 - 62) = 114 and
    // 64 + 4 (77 - 64) = 116 blocks, beams 75 + 3 = 78 and 77 + 3 = 80, where four
    // separate requests would hold 4 x 75 = 300 and 4 x 77 = 308.
  }
}

TEST_CASE("pruned beams free their blocks: a beam group grows by one block per block boundary, samples by n",
          "[engine][sampling][kv]") {
  const BlockSize bs(16);
  // A group of 4 joining at 1000 tokens (8 into its last block) and decoding 100 steps.
  const SequenceGroupBlocks sampled(bs, samples(4)), beamed(bs, beams(4));
  for (const SequenceGroupBlocks* g : {&sampled, &beamed}) {
    DecodeAggregate dec(bs);
    dec.join(1000, g->sequences(), g->weight(), g->fork_blocks(1000));
    // Step 1: the copies of the shared partial block, 3 either way (both models
    // give each sequence its own last block). Steps 1..8 end at 1008 tokens, the
    // block's end; step 9 crosses into block 64: samples take 4, beams 1 (each beam
    // takes a new block, the 3 pruned copies of the full one are freed).
    CHECK(dec.blocks_needed(1, 1) == 3);
    CHECK(dec.blocks_needed(1, 9) == 3 + g->weight());
    // 100 steps (to 1100 tokens) cross 6 boundaries: 1009, 1025, 1041, 1057, 1073
    // and 1089 are 1 past a block end (1105 is past 1100).
    CHECK(dec.blocks_needed(1, 100) == 3 + 6 * g->weight());
    // held() agrees with the increments: ceil(1100/16) - ceil(1000/16) = 69 - 63 = 6.
    CHECK(g->held(1000, 1100) - bs.blocks_for(1000) == 3 + 6 * g->weight());
    CHECK(dec.count() == 4);          // the batch counts every sequence
    CHECK(dec.kv_tokens(1) == 4 * 1001);  // each attends to its own 1001 tokens
    // Only the first step owes the fork blocks.
    dec.advance(1);
    CHECK(dec.blocks_needed(2, 8) == g->weight());
  }
  CHECK(sampled.weight() == 4);
  CHECK(beamed.weight() == 1);
  // Before any decode step the group holds one copy of the prompt's blocks.
  CHECK(sampled.held(1000, 1000) - sampled.fork_blocks(1000) == bs.blocks_for(1000));
  CHECK(beamed.held(1000, 1000) - beamed.fork_blocks(1000) == bs.blocks_for(1000));
  // A prompt ending on a block boundary has no partial block to copy for samples.
  CHECK(sampled.fork_blocks(1024) == 0);
  CHECK(beamed.fork_blocks(1024) == 3);
  // A recompute prefills the group's distinct tokens. Samples at 1010 tokens each
  // (prompt 1000): 1000 + 4 x 10 = 1040. Beams: the history and 3 other last blocks
  // of 1010 mod 16 = 2 tokens, 1010 + 3 x 2 = 1016; on a boundary (1024) 3 full ones,
  // 1024 + 48 = 1072, i.e. 67 blocks = held (64 + 3).
  CHECK(sampled.distinct_tokens(1000, 1010) == 1040);
  CHECK(beamed.distinct_tokens(1000, 1010) == 1016);
  CHECK(beamed.distinct_tokens(1000, 1024) == 1072);
  CHECK(bs.blocks_for(1072) == beamed.held(1000, 1024));
  // Their blocks never exceed what the group holds after it (what it owes is >= 0).
  for (const SequenceGroupBlocks* g : {&sampled, &beamed})
    for (std::int64_t len = 1001; len <= 1100; ++len) {
      INFO("len " << len);
      CHECK(bs.blocks_for(g->distinct_tokens(1000, len)) <= g->held(1000, len));
    }
}

TEST_CASE("b = 4 beams at batch 1 cost the decode steps of a batch of 4 at the shared context",
          "[sim][sampling][closed_form]") {
  const std::int64_t in = 1000, out = 200, b = 4;
  const Scenario sc = engine_scenario(beams(b));
  const CostModel cost = make_cost_model(sc);
  // Decode step j = 1 .. O-1: 4 sequences, each SeqWork{1, P + j - 1} (its context
  // plus its new token), priced as 4 separate requests of that length would be.
  double sum = 0;
  Nanos decode = 0;
  for (std::int64_t j = 1; j <= out - 1; ++j) {
    const BatchSummary batch = batch_of(b, SeqWork{1, in + j - 1, true});
    sum += step_seconds(cost, sc.engine, batch);
    decode += step_nanos(cost, sc.engine, batch);
  }
  const double tpot_ms = sum / static_cast<double>(out - 1) * 1e3;
  const SimulationResult r = run_alone(sc, in, out);
  REQUIRE(r.summary.completed == 1);
  // TPOT = (E2E - TTFT) / (O - 1); each step rounded to the ns: relative error < 1e-6.
  CHECK(r.summary.tpot_ms.mean == Approx(tpot_ms).epsilon(1e-6));
  CHECK(r.summary.e2e_ms.mean - r.summary.ttft_ms.mean == Approx(static_cast<double>(decode) * 1e-6).margin(1e-6));
  // Every decode step runs 4 sequences.
  CHECK(r.summary.batch_size_max == b);
  // And it is dearer than one sequence: the seeds' "beam search makes it much slower".
  const SimulationResult one = run_alone(engine_scenario(beams(1)), in, out);
  CHECK(r.summary.tpot_ms.mean > one.summary.tpot_ms.mean);
  // Fused decode runs (fast-forward, trapezoid pricing) agree within 1e-4.
  const SimulationResult ff = run_alone(sc, in, out, true);
  CHECK(ff.summary.tpot_ms.mean == Approx(tpot_ms).epsilon(1e-4));
  CHECK(ff.summary.output_tokens == b * out);
}

TEST_CASE("max_num_seqs counts every sequence of a group", "[sim][sampling]") {
  // max_num_seqs 8 and n = 4: two requests run at once; the third waits for one to finish.
  Scenario sc = engine_scenario(samples(4));
  sc.engine.max_num_seqs = 8;
  VectorSource src({make_request(0.0, 500, 50), make_request(0.0, 500, 50), make_request(0.0, 500, 50)});
  SimulationOptions opt;
  opt.request_results = nullptr;
  RequestResults results;
  opt.request_results = &results;
  const SimulationResult r = simulate(sc, src, opt);
  REQUIRE(r.summary.completed == 3);
  CHECK(r.summary.batch_size_max == 8);
  REQUIRE(results.size() == 3);
  double first_e2e = 1e300, third_queue = -1;
  for (const RequestResult& x : results) {
    if (x.id == 2) third_queue = x.queue_ms;
    else first_e2e = std::min(first_e2e, x.e2e_ms);
  }
  // The third is first scheduled once a group finishes (at or after the first E2E).
  CHECK(third_queue >= first_e2e);
}

TEST_CASE("a group is preempted whole exactly when its blocks run out", "[sim][sampling][kv]") {
  // 2 requests of P = 100, O = 60 with n = 4, at t = 0. Each peaks at L = 159:
  // S = 6, ceil(159/16) = 10, so 6 + 4 (10 - 6) = 22 blocks; both need 44.
  const std::int64_t per = 6 + 4 * (ceil_blocks(159) - 6);
  REQUIRE(per == 22);
  for (bool ff : {true, false}) {
    for (std::int64_t blocks : {2 * per, 2 * per - 1}) {
      INFO("blocks " << blocks << " fast_forward " << ff);
      Scenario sc = engine_scenario(samples(4), ", num_gpu_blocks_override: " + std::to_string(blocks));
      VectorSource src({make_request(0.0, 100, 60), make_request(0.0, 100, 60)});
      SimulationOptions opt;
      opt.fast_forward = ff;
      const SimulationResult r = simulate(sc, src, opt);
      CHECK(r.summary.completed == 2);
      CHECK(r.summary.output_tokens == 2 * 4 * 60);
      CHECK(r.summary.kv_utilization_max <= 1.0);
      if (blocks == 2 * per) {
        CHECK(r.summary.preemptions == 0);
      } else {
        // One block short: the newer group is preempted, all 4 sequences at once,
        // and only it. Its recompute prefills its distinct tokens (100 + 4 g), which
        // fit before its 4 suffixes' own blocks do, so vLLM's policy (admission on
        // the blocks of the tokens to compute) readmits it and preempts it again at
        // its next decode step until the older group finishes: at least once.
        CHECK(r.summary.preemptions >= 1);
        CHECK(r.summary.preempted_requests == 1);
      }
    }
  }
  // A group whose own peak exceeds the cache fails (where one sequence, 10 blocks, would fit).
  Scenario sc = engine_scenario(samples(4), ", num_gpu_blocks_override: 21");
  VectorSource src({make_request(0.0, 100, 60)});
  const SimulationResult r = simulate(sc, src, {});
  CHECK(r.summary.failed == 1);
  CHECK(r.summary.failures[static_cast<std::size_t>(FailureReason::exceeds_kv_capacity)] == 1);
}

TEST_CASE("fast-forwarded decode runs with sequence groups match step by step", "[engine][fastpath][sampling]") {
  // A saturated replica with a small KV cache (preemptions happen), samples and beams.
  for (const std::string sampling : {"{n: 3}", "{beam_width: 4}"}) {
    INFO(sampling);
    const Scenario sc = scenario_from("{kind: vllm, num_gpu_blocks_override: 900, beam_search: in_engine}",
                                      "{seed: 4, requests: 300, arrival: {process: poisson, rate: 10}, "
                                      "input_tokens: {dist: lognormal, mean: 1024, stddev: 512, max: 4096}, "
                                      "output_tokens: {dist: uniform, min: 64, max: 512}, sampling: " +
                                          sampling + "}");
    SimulationOptions ff, slow;
    ff.fast_forward = true;
    slow.fast_forward = false;
    const SimulationResult a = simulate(sc, ff);
    const SimulationResult b = simulate(sc, slow);
    REQUIRE(b.summary.queue_length_max > 10);  // saturated
    CHECK(a.summary.completed == b.summary.completed);
    CHECK(a.summary.output_tokens == b.summary.output_tokens);
    CHECK(a.summary.ttft_ms.mean == Approx(b.summary.ttft_ms.mean).epsilon(0.005));
    CHECK(a.summary.e2e_ms.mean == Approx(b.summary.e2e_ms.mean).epsilon(0.005));
    CHECK(a.summary.tpot_ms.mean == Approx(b.summary.tpot_ms.mean).epsilon(0.005));
    CHECK(a.summary.kv_utilization_max <= 1.0);
  }
}

TEST_CASE("workload.sampling: bad settings are refused with the key and the reason", "[sampling][inputs]") {
  const std::string w = "{requests: 10, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: "
                        "100}, output_tokens: {dist: fixed, value: 10}, sampling: ";
  auto refusal = [&](const std::string& engine, const std::string& sampling) -> std::string {
    try {
      scenario_from(engine, w + sampling + "}");
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(refusal("{kind: vllm}", "{n: 2, beam_width: 4}"), Contains("workload.sampling") && Contains("not both"));
  CHECK_THAT(refusal("{kind: vllm}", "{n: 0}"), Contains("workload.sampling.n"));
  CHECK_THAT(refusal("{kind: vllm}", "{beam_width: 2000}"), Contains("workload.sampling.beam_width"));
  CHECK_THAT(refusal("{kind: vllm}", "{m: 2}"), Contains("workload.sampling"));
  CHECK_THAT(refusal("{kind: static}", "{n: 2}"), Contains("workload.sampling") && Contains("static"));
  CHECK_THAT(refusal("{kind: vllm, max_num_seqs: 4}", "{beam_width: 8}"),
             Contains("workload.sampling") && Contains("max_num_seqs = 4"));
  CHECK_THAT(refusal("{kind: vllm, speculative: {method: eagle, num_speculative_tokens: 2, acceptance_rate: 0.7}}",
                     "{n: 2}"),
             Contains("workload.sampling") && Contains("speculative"));
  // Accepted: one of them, or both at 1.
  CHECK(refusal("{kind: vllm}", "{n: 4}").empty());
  CHECK(refusal("{kind: vllm}", "{beam_width: 4, n: 1}").empty());
  CHECK(refusal("{kind: static}", "{n: 1}").empty());
}

namespace {

// Drives one engine directly: every block a group takes must come back. Returns
// the highest used / total seen at a step start; kv_load() must be 0 at the end.
struct Drive {
  double max_load = 0;
  double end_load = -1;
  std::int64_t finished = 0;
  std::int64_t preemptions = 0;
};

// Counts the preemptions of finished requests.
class PreemptionCount final : public RunObserver {
 public:
  void on_step(const StepRecord&) override {}
  void on_itl(double, std::int64_t) override {}
  void on_request_done(const RequestRecord& r) override { preemptions += r.preemptions; }
  std::int64_t preemptions = 0;
};

Drive drive(const Scenario& sc, const std::vector<Request>& reqs, bool fast_forward) {
  const CostModel cost = make_cost_model(sc);
  EngineContext ctx;
  ctx.cost = &cost;
  ctx.config = sc.engine;
  ctx.memory = plan_setup_memory(sc, cost);
  ctx.kv_blocks = sc.engine.num_gpu_blocks_override;
  ctx.fast_forward = fast_forward;
  ctx.sampling = sc.workload.sampling;
  PreemptionCount count;
  ctx.observer = &count;
  const std::unique_ptr<Engine> e = make_engine(ctx);
  Drive d;
  std::vector<Request> done;
  std::size_t next = 0;
  Nanos now = 0;
  while (next < reqs.size() || e->has_work()) {
    while (next < reqs.size() && reqs[next].arrival <= now) e->enqueue(reqs[next++], now);
    if (!e->has_work()) {
      now = reqs[next].arrival;
      continue;
    }
    const Nanos horizon = next < reqs.size() ? reqs[next].arrival : kNever;
    const Nanos end = e->start_step(now, horizon);
    d.max_load = std::max(d.max_load, e->kv_load());
    e->finish_step(end, done);
    now = end;
  }
  d.end_load = e->kv_load();
  d.finished = static_cast<std::int64_t>(done.size());
  d.preemptions = count.preemptions;
  return d;
}

}  // namespace

TEST_CASE("sequence groups give back every block they take, under preemption and with every policy",
          "[engine][sampling][kv]") {
  // 60 requests of 100-900 prompt and 20-300 output tokens arriving every 20 ms into
  // 700 blocks: groups of 4 outgrow the cache and are preempted. Prompts share a
  // 256-token prefix (prefix caching pins and releases shared blocks too).
  std::vector<Request> reqs;
  for (int i = 0; i < 60; ++i) {
    Request r = make_request(0.02 * i, 100 + (i * 137) % 800, 20 + (i * 53) % 280);
    r.id = i;
    r.hash_block_tokens = 16;
    for (int b = 0; b < r.input_tokens / 16; ++b) r.block_hashes.push_back(b < 16 ? 7 + b : 1000 * i + b);
    reqs.push_back(r);
  }
  for (const std::string scheduler : {"vllm_v1", "vllm_v0_prefill_first", "trtllm_no_evict"}) {
    for (const SamplingSpec s : {samples(4), beams(4), samples(1)}) {
      for (bool ff : {true, false}) {
        INFO(scheduler << " n=" << s.n << " beam_width=" << s.beam_width << " fast_forward=" << ff);
        Scenario sc = engine_scenario(s, ", num_gpu_blocks_override: 700, prefix_caching: true, scheduler: " +
                                             scheduler);
        const Drive d = drive(sc, reqs, ff);
        CHECK(d.finished == 60);
        CHECK(d.max_load <= 1.0);
        CHECK(d.end_load == 0.0);  // every private and pinned block released
        // The cache is short enough that vLLM's policy preempts groups (no-evict never does).
        if (scheduler == "vllm_v1" && !s.single()) CHECK(d.preemptions > 0);
        if (scheduler == "trtllm_no_evict") CHECK(d.preemptions == 0);
      }
    }
  }
}
