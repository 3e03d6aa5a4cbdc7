// Decode instances' prefix caches with prefill/decode disaggregation (engine/
// decode_prefix_cache.h, decode_only_engine.h, run/disaggregated_simulation.h),
// against closed forms:
//   a request finds cached on its decode instance the full blocks of the earlier
//   turns' prompts and answers (prompt + output - 1 tokens), at most (prompt - 1) / 16
//   blocks; its transfer sends (prompt - cached) x KV bytes per token;
//   the P/D decider keeps it on the decode instance when prompt - cached <= threshold,
//   and its TTFT is then that instance's step of SeqWork{prompt - cached, cached};
//   evictions take the least recently released blocks, a sequence's last block first.
#include <catch2/catch.hpp>

#include "engine/decode_only_engine.h"
#include "metrics/disaggregation_json.h"
#include "run/disaggregated_simulation.h"
#include "scenario/disaggregation.h"
#include "test_sim_helpers.h"
#include "workload/prefix_hash.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

constexpr const char* kCachingEngine =
    "{kind: vllm, max_num_seqs: 256, max_num_batched_tokens: 8192, block_size: 16, prefix_caching: true}";
constexpr const char* kPlainEngine =
    "{kind: vllm, max_num_seqs: 256, max_num_batched_tokens: 8192, block_size: 16, prefix_caching: false}";

// Llama-3.1-8B bf16 on H100s, 1P1D, frontend latency 0.
Scenario pd_scenario(const std::string& engine, std::int64_t threshold = 0) {
  const std::string text = "hardware: {gpu: h100-sxm}\n"
                           "model: {name: llama-3.1-8b}\n"
                           "parallelism: {tp: 1, replicas: 1}\n"
                           "engine: " + engine + "\n"
                           "disaggregation: {prefill: {replicas: 1}, decode: {replicas: 1}, "
                           "transfer: {bandwidth: \"50 GB/s\", latency: \"20 us\"}, decider_threshold: " +
                           std::to_string(threshold) + "}\n";
  ConfigNode doc = parse_yaml_text(text);
  set_number(doc, "engine.frontend_latency", 0.0);
  return parse_scenario(doc, "test.yaml", false);
}

// 32 layers x (K and V) x 8 KV heads x 128 head dim x 2 bytes = 131072 bytes per token.
constexpr double kKvBytes = 32.0 * 2 * 8 * 128 * 2;
constexpr double kNsInMs = 1e-6;

// A turn of conversation `owner`: its prompt's ids (16-token id blocks) are the
// conversation's id j at position j, as the synthetic session workloads make them,
// and its next turn starts with this prompt and answer (extended_later).
Request turn(double at_s, std::int64_t in, std::int64_t out, std::uint64_t owner) {
  Request r = make_request(at_s, in, out);
  const std::uint64_t base = prefix_owner_base(HashOwner::session, owner);
  for (std::int64_t j = 0; j < in / 16; ++j) r.block_hashes.push_back(prefix_owner_id(base, static_cast<std::uint64_t>(j)));
  r.hash_block_tokens = 16;
  r.unique_hashes_from = 0;
  r.extended_later = true;
  return r;
}

// Turn 1: 512 prompt tokens, 33 output tokens: its KV is 512 + 33 - 1 = 544 tokens,
// 34 full blocks. Turn 2, 10 s later (turn 1 long done): 544 + 96 = 640 tokens.
constexpr std::int64_t kIn1 = 512, kOut1 = 33, kIn2 = 640, kOut2 = 20;
constexpr std::int64_t kCached2 = 34 * 16;  // 544: turn 1's 34 blocks (<= (640 - 1) / 16 = 39)

std::vector<Request> two_turns() { return {turn(0.0, kIn1, kOut1, 7), turn(10.0, kIn2, kOut2, 7)}; }

}  // namespace

TEST_CASE("pd prefix cache: the second turn's transfer sends only what its decode instance has not cached",
          "[pd-prefix]") {
  VectorSource src(two_turns());
  const SimulationResult r = simulate(pd_scenario(kCachingEngine), src, {});
  REQUIRE(r.summary.completed == 2);
  REQUIRE(r.summary.disaggregation);
  const DisaggregationReport& d = *r.summary.disaggregation;
  CHECK(d.transfers == 2);
  // Turn 1 sends its whole prompt; turn 2 sends 640 - 544 = 96 tokens.
  CHECK(d.transfer_bytes == (kIn1 + (kIn2 - kCached2)) * kKvBytes);
  REQUIRE(d.decode_prefix_caching);
  CHECK(d.decode_prompt_tokens == kIn1 + kIn2);  // 512 + 640 = 1152
  CHECK(d.decode_cached_tokens == kCached2);     // 544 of them: a hit rate of 544 / 1152
  CHECK(d.decode_evicted_blocks == 0);

  // Without prefix caching: every prompt is sent whole, and nothing is reported of a cache.
  VectorSource plain_src(two_turns());
  const SimulationResult p = simulate(pd_scenario(kPlainEngine), plain_src, {});
  REQUIRE(p.summary.disaggregation);
  CHECK(p.summary.disaggregation->transfer_bytes == (kIn1 + kIn2) * kKvBytes);
  CHECK_FALSE(p.summary.disaggregation->decode_prefix_caching);
  CHECK(p.summary.disaggregation->decode_cached_tokens == 0);
}

TEST_CASE("pd prefix cache: the P/D decider prefills the uncached part on the decode instance", "[pd-prefix]") {
  SECTION("threshold 100 >= 96 uncached: turn 2 stays on its decode instance") {
    const Scenario sc = pd_scenario(kCachingEngine, 100);
    VectorSource src(two_turns());
    RequestResults results;
    SimulationOptions opt;
    opt.request_results = &results;
    const SimulationResult r = simulate(sc, src, opt);
    REQUIRE(r.summary.completed == 2);
    const DisaggregationReport& d = *r.summary.disaggregation;
    CHECK(d.local_prefills == 1);
    CHECK(d.transfers == 1);                        // turn 1 only (512 > 100)
    CHECK(d.transfer_bytes == kIn1 * kKvBytes);
    CHECK(d.decode_cached_tokens == kCached2);
    // The run's prefix cache hit: turn 2's 544 tokens not computed (turn 1 found nothing).
    CHECK(r.summary.cached_tokens == kCached2);
    // Turn 2 alone on the instance: its TTFT is the step that computes 640 - 544 = 96
    // tokens reading the 544 cached ones, SeqWork{96, 544}.
    const Nanos step = step_nanos(make_cost_model(sc), sc.engine, batch_of(1, SeqWork{kIn2 - kCached2, kCached2, true}));
    REQUIRE(results.size() == 2);
    const RequestResult& t2 = results[0].id == 1 ? results[0] : results[1];
    CHECK(t2.ttft_ms == Approx(static_cast<double>(step) * kNsInMs).margin(kNsInMs));
    // Less than the step of the whole prompt, SeqWork{640, 0}.
    CHECK(step < step_nanos(make_cost_model(sc), sc.engine, batch_of(1, SeqWork{kIn2, 0, true})));
  }
  SECTION("threshold 95 < 96 uncached: turn 2 is disaggregated, and sends 96 tokens") {
    VectorSource src(two_turns());
    const SimulationResult r = simulate(pd_scenario(kCachingEngine, 95), src, {});
    const DisaggregationReport& d = *r.summary.disaggregation;
    CHECK(d.local_prefills == 0);
    CHECK(d.transfers == 2);
    CHECK(d.transfer_bytes == (kIn1 + kIn2 - kCached2) * kKvBytes);
  }
  SECTION("without prefix caching the decider sees the whole prompt: 640 > 100, disaggregated") {
    VectorSource src(two_turns());
    const SimulationResult r = simulate(pd_scenario(kPlainEngine, 100), src, {});
    const DisaggregationReport& d = *r.summary.disaggregation;
    CHECK(d.local_prefills == 0);
    CHECK(d.transfer_bytes == (kIn1 + kIn2) * kKvBytes);
  }
}

TEST_CASE("pd prefix cache: a grant evicts the least recently released blocks, a sequence's last first",
          "[pd-prefix]") {
  const Scenario sc = pd_scenario(kCachingEngine);
  const CostModel cost = make_cost_model(sc);
  EngineContext ctx;
  ctx.cost = &cost;
  ctx.config = sc.disaggregation->decode.engine;
  REQUIRE(ctx.config.prefix_caching);
  ctx.kv_blocks = 100;  // 1600 tokens
  ctx.memory = plan_setup_memory(sc, cost);
  DecodeOnlyEngine e(ctx);
  std::vector<Request> granted, done;
  Nanos now = 0;
  const auto serve = [&](Request r) {
    REQUIRE(e.accept(r, arrival_record(r, 0), now));
    granted.clear();
    e.grant(granted);
    REQUIRE(granted.size() == 1);
    const std::int64_t cached = e.cached_tokens(r.id);
    e.kv_arrived(r.id, now);
    while (e.has_work()) {
      now = e.start_step(now, kNever);
      e.finish_step(now, done);
    }
    return cached;
  };
  // A: turn 1 (512 + 33): 34 blocks cached once it is done, none held.
  Request a1 = turn(0, kIn1, kOut1, 7);
  a1.id = 0;
  CHECK(serve(a1) == 0);
  CHECK(e.evictable() == 34);
  CHECK(e.pinned() == 0);
  CHECK(e.reserved_blocks() == 0);
  CHECK(e.used_blocks() == 0);
  // B, with no prefix information (nothing of it is cached): 1200 + 81 tokens, a peak
  // of (1200 + 81 - 1) / 16 = 80 blocks. Granted, it leaves 100 - 80 = 20 for the
  // cache: 34 - 20 = 14 of A's blocks are evicted, its last 14 (released first).
  Request b = make_request(0, 1200, 81);
  b.id = 1;
  REQUIRE(e.accept(b, arrival_record(b, 0), now));
  granted.clear();
  e.grant(granted);
  REQUIRE(granted.size() == 1);
  CHECK(e.reserved_blocks() == 80);
  CHECK(e.evictable() == 20);
  CHECK(e.prefix_cache()->cache().evictions() == 14);
  e.kv_arrived(1, now);
  while (e.has_work()) {
    now = e.start_step(now, kNever);
    e.finish_step(now, done);
  }
  // A's turn 2 (640 tokens) finds A's first 20 blocks: 320 tokens.
  Request a2 = turn(0, kIn2, kOut2, 7);
  a2.id = 2;
  CHECK(serve(a2) == 20 * 16);
  CHECK(e.granted_prompt_tokens() == kIn1 + 1200 + kIn2);
  CHECK(e.hit_tokens() == 320);
  CHECK(e.reserved_blocks() == 0);
  CHECK(e.used_blocks() == 0);
}

TEST_CASE("pd prefix cache: the run reports the decode instances' hits (text and JSON)", "[pd-prefix]") {
  VectorSource src(two_turns());
  const SimulationResult r = simulate(pd_scenario(kCachingEngine, 100), src, {});
  const DisaggregationReport& d = *r.summary.disaggregation;
  const std::string text = disaggregation_text(d);
  CHECK_THAT(text, Catch::Contains("decode prefix cache: 544 of 1152 prompt tokens"));
  CHECK_THAT(text, Catch::Contains("P/D decider: 1 requests of at most 100 uncached prompt tokens"));
  const nlohmann::json j = disaggregation_json(d);
  REQUIRE(j.contains("decode_prefix_cache"));
  CHECK(j["decode_prefix_cache"]["cached_tokens"] == 544);
  CHECK(j["decode_prefix_cache"]["hit_rate"].get<double>() == Approx(544.0 / 1152.0));
  // Without prefix caching neither the line nor the key appears (the output is as before).
  VectorSource plain_src(two_turns());
  const SimulationResult plain = simulate(pd_scenario(kPlainEngine, 100), plain_src, {});
  const DisaggregationReport& p = *plain.summary.disaggregation;
  CHECK_FALSE(disaggregation_json(p).contains("decode_prefix_cache"));
  CHECK_THAT(disaggregation_text(p), !Catch::Contains("decode prefix cache"));
  CHECK_THAT(disaggregation_text(p), Catch::Contains("of at most 100 prompt tokens"));
}

TEST_CASE("pd prefix cache: closed-loop sessions run with disaggregation, each turn sending what is new",
          "[pd-prefix][sessions]") {
  // One closed-loop session of 3 turns: 256-token questions, 32-token answers, 1 s of
  // thought. Prompts: 256; 256 + 32 + 256 = 544; 544 + 32 + 256 = 832 (each the
  // previous prompt, its answer, the next question). Cached on the decode instance
  // when the next turn is granted: the previous turn's KV (prompt + 31 tokens) in
  // full 16-token blocks: 287 -> 17 blocks = 272 tokens; 575 -> 35 blocks = 560 tokens.
  // Sent: 256 + (544 - 272) + (832 - 560) = 800 tokens.
  const auto run = [](const std::string& engine) {
    std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nparallelism: {tp: 1, replicas: 1}\n"
                       "engine: " + engine + "\n"
                       "disaggregation: {prefill: {replicas: 1}, decode: {replicas: 1}, "
                       "transfer: {bandwidth: \"50 GB/s\", latency: \"20 us\"}}\n"
                       "workload: {seed: 3, arrival: {process: multi_stage, stages: [{process: poisson, rate: 1, "
                       "requests: 1}]}, input_tokens: {dist: fixed, value: 256}, output_tokens: {dist: fixed, "
                       "value: 32}, multi_turn: {turns: 3, loop: closed, think_time: \"1 s\", conversation_metrics: true}}\n";
    ConfigNode doc = parse_yaml_text(text);
    set_number(doc, "engine.frontend_latency", 0.0);
    return simulate(parse_scenario(doc, "test.yaml", true));
  };
  const SimulationResult r = run(kCachingEngine);
  REQUIRE(r.summary.completed == 3);
  REQUIRE(r.summary.failed == 0);
  CHECK(r.summary.conversations.completed == 1);
  const DisaggregationReport& d = *r.summary.disaggregation;
  CHECK(d.transfers == 3);
  CHECK(d.transfer_bytes == 800 * kKvBytes);
  CHECK(d.decode_prompt_tokens == 256 + 544 + 832);
  CHECK(d.decode_cached_tokens == 272 + 560);
  // Without prefix caching every prompt is sent whole: 256 + 544 + 832 = 1632 tokens.
  const SimulationResult p = run(kPlainEngine);
  REQUIRE(p.summary.completed == 3);
  CHECK(p.summary.disaggregation->transfer_bytes == 1632 * kKvBytes);
  // The closed loop: 3 turns, each sent 1 s after the previous answer, so the run lasts
  // at least 2 s of thought; the same seed gives the same run.
  CHECK(r.summary.duration_s > 2.0);
  const SimulationResult again = run(kCachingEngine);
  CHECK(again.summary.e2e_ms.mean == r.summary.e2e_ms.mean);
  CHECK(again.summary.duration_s == r.summary.duration_s);
}

TEST_CASE("pd prefix cache: a prefix-aware decode-pool router keeps a conversation where its context is cached",
          "[pd-prefix][router]") {
  // 1P2D, the two turns above. Round robin sends turn 2 to the other decode instance,
  // which has cached nothing: 512 + 640 tokens sent. prefix_affinity (the first
  // prompt id: the conversation's) and scored with the precise prefix scorer (which
  // reads each decode instance's cache, Engine::prefix_match: 34 of turn 2's 40 prompt
  // blocks on the first, none on the other) send it to the first: 512 + 96 sent.
  const auto sent = [](const std::string& decode_router) {
    // router_weights belong to the scored router only (the pools read the scenario's).
    const std::string parallelism = decode_router == "scored"
                                        ? "{tp: 1, replicas: 1, router: scored, router_weights: {prefix_scorer: precise}}"
                                        : "{tp: 1, replicas: 1}";
    const std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                             "parallelism: " + parallelism + "\n"
                             "engine: " + std::string(kCachingEngine) + "\n"
                             "disaggregation: {prefill: {replicas: 1}, decode: {replicas: 2, router: " + decode_router +
                             "}, transfer: {bandwidth: \"50 GB/s\", latency: \"20 us\"}}\n";
    ConfigNode doc = parse_yaml_text(text);
    set_number(doc, "engine.frontend_latency", 0.0);
    VectorSource src(two_turns());
    const SimulationResult r = simulate(parse_scenario(doc, "test.yaml", false), src, {});
    REQUIRE(r.summary.completed == 2);
    return r.summary.disaggregation->transfer_bytes / kKvBytes;
  };
  CHECK(sent("round_robin") == kIn1 + kIn2);
  CHECK(sent("prefix_affinity") == kIn1 + kIn2 - kCached2);
  CHECK(sent("scored") == kIn1 + kIn2 - kCached2);
}
