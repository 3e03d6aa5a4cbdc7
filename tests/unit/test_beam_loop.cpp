// Beam search above the engine (engine.beam_search: above_engine, run/beam_loop.h):
// vLLM's loop that sends one request of max_tokens 1 per beam per token.
//
// Notation: prompt P tokens, O output tokens, b beams, block size bs = 16, c the
// front end's CPU time per engine request (kBeamRequestCpuSeconds). Round 0 is the
// prompt alone; round j = 1 .. O-1 sends b requests of L = P + j tokens.
//  - engine requests: 1 + (O - 1) b;
//  - with prefix caching each round-j request finds the full blocks of the L - 1
//    tokens the round before computed, bs floor((L - 1) / bs) tokens, and computes
//    the rest (1 to bs tokens);
//  - without, it computes all L;
//  - the front end works c per engine request it builds: c (1 + (O - 1) b).
#include <catch2/catch.hpp>

#include <string>

#include "run/beam_loop.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

constexpr std::int64_t kBs = 16;

SimulationResult run_beams(std::int64_t in, std::int64_t out, std::int64_t b, bool prefix_caching,
                           const std::string& framework = "vllm-v1") {
  Scenario sc = scenario_from("{kind: vllm, framework: " + framework +
                              ", block_size: 16, max_num_seqs: 256, max_num_batched_tokens: 8192, prefix_caching: " +
                              (prefix_caching ? "true" : "false") + "}");
  sc.workload.sampling.beam_width = b;
  VectorSource src({make_request(0.0, in, out)});
  return simulate(sc, src, {});
}

}  // namespace

TEST_CASE("beam search above the engine: one request of max_tokens 1 per beam per token, re-prefilling what the "
          "prefix cache lacks",
          "[sim][sampling][beam_loop]") {
  const std::int64_t P = 1000, O = 20, b = 4;
  const SimulationResult r = run_beams(P, O, b, true);
  REQUIRE(r.summary.completed == 1);
  REQUIRE(r.summary.beam_loop);
  const BeamLoopReport& loop = *r.summary.beam_loop;
  CHECK(loop.requests == 1 + (O - 1) * b);  // 77
  // Recomputed per round-j request, L = 1001 .. 1019: L - 992 for L <= 1008 (9 .. 16,
  // sum 100), L - 1008 after (1 .. 11, sum 66): 166 per beam, 664 for 4.
  std::int64_t want = 0;
  for (std::int64_t L = P + 1; L <= P + O - 1; ++L) want += b * (L - kBs * ((L - 1) / kBs));
  REQUIRE(want == 664);
  CHECK(loop.reprefilled == want);
  // Cached: everything else of the rounds' prompts, 4 x (1001 + ... + 1019) - 664.
  CHECK(loop.cached == b * (O - 1) * (P + O / 2) - want);
  // The front end: c per engine request it builds, 77 of them.
  CHECK(loop.frontend_busy_s == Approx(kBeamRequestCpuSeconds * (1 + (O - 1) * b)).epsilon(1e-9));
  // Round 0 reaches the engine once the front end built it: queue time >= c.
  CHECK(r.summary.queue_ms.min >= 1e3 * kBeamRequestCpuSeconds);
  // One request in the results, its beams' tokens counted: O b.
  CHECK(r.summary.output_tokens == O * b);
  // Each round is a gap of b tokens: (O - 1) rounds after the first, and a gap holds at
  // least the front end's work for the round before (b c) and one step.
  CHECK(r.summary.itl_ms.count == (O - 1) * b);
  CHECK(r.summary.itl_ms.min >= 1e3 * b * kBeamRequestCpuSeconds);
  // The answer comes when the last round ends: E2E = TTFT + the rounds' gaps.
  CHECK(r.summary.e2e_ms.mean == Approx(r.summary.ttft_ms.mean + (O - 1) * r.summary.itl_ms.mean).epsilon(1e-9));
}

TEST_CASE("beam search above the engine without prefix caching re-prefills every round's whole context",
          "[sim][sampling][beam_loop]") {
  const std::int64_t P = 1000, O = 20, b = 4;
  const SimulationResult r = run_beams(P, O, b, false);
  REQUIRE(r.summary.beam_loop);
  // b (sum over j = 1 .. O-1 of P + j) = 4 (19 x 1000 + 190) = 76,760.
  CHECK(r.summary.beam_loop->reprefilled == b * ((O - 1) * P + O * (O - 1) / 2));
  CHECK(r.summary.beam_loop->reprefilled == 76760);
  CHECK(r.summary.beam_loop->cached == 0);
  // And it is slower than with the cache.
  const SimulationResult cached = run_beams(P, O, b, true);
  CHECK(r.summary.e2e_ms.mean > cached.summary.e2e_ms.mean);
}

TEST_CASE("beam search in the engine (vllm-v0) keeps the sequence groups: one prefill, beams decoding in lockstep",
          "[sim][sampling][beam_loop]") {
  const SimulationResult r = run_beams(1000, 20, 4, true, "vllm-v0");
  CHECK_FALSE(r.summary.beam_loop);
  CHECK(r.summary.completed == 1);
  CHECK(r.summary.steps == 20);  // 1 prefill + 19 decode steps of 4 beams
}

TEST_CASE("beam search: frameworks without it and setups the loop cannot run are refused", "[sampling][inputs]") {
  const std::string w = "{requests: 10, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: "
                        "100}, output_tokens: {dist: fixed, value: 10}, sampling: {beam_width: 4}}";
  auto refusal = [&](const std::string& engine, const std::string& parallelism = "{tp: 1}") -> std::string {
    try {
      const Scenario sc = scenario_from(engine, w, "llama-3.1-8b", parallelism);
      simulate(sc);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(refusal("{kind: vllm, framework: sglang}"),
             Contains("workload.sampling") && Contains("sglang has no beam search") && Contains("#903"));
  CHECK_THAT(refusal("{kind: vllm, framework: sglang, beam_search: in_engine}"),
             Contains("engine.beam_search") && Contains("no beam search"));
  CHECK_THAT(refusal("{kind: vllm}", "{tp: 1, replicas: 2}"),
             Contains("beam_width") && Contains("several replicas") && Contains("in_engine"));
  CHECK_THAT(refusal("{kind: vllm, beam_search: sideways}"), Contains("engine.beam_search"));
  // Accepted: the loop on one replica, the engine's groups on two.
  CHECK(refusal("{kind: vllm}").empty());
  CHECK(refusal("{kind: vllm, beam_search: in_engine}", "{tp: 1, replicas: 2}").empty());
}
