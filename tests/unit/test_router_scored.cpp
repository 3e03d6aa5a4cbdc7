// The scored router (router: scored, engine/router.h): llm-d's weighted scorers.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "engine/engine.h"
#include "engine/router.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// A replica whose waiting queue and KV use the test sets: the scorers read nothing else.
class FakeReplica final : public Engine {
 public:
  FakeReplica(std::int64_t waiting, double kv) : waiting_(waiting), kv(kv) {}
  bool enqueue(Request, Nanos) override { return true; }
  bool has_work() const override { return false; }
  bool can_start(Nanos) const override { return false; }
  Nanos start_step(Nanos now, Nanos) override { return now; }
  void finish_step(Nanos, std::vector<Request>&) override {}
  std::int64_t outstanding() const override { return waiting_; }
  std::int64_t queued() const override { return waiting_; }
  std::int64_t queued_bytes() const override { return 0; }
  void abort_queued(Nanos, FailureReason, const std::function<void(const Request&)>&) override {}
  double kv_load() const override { return kv; }
  std::int64_t kv_blocks_total() const override { return 100; }

 private:
  std::int64_t waiting_;

 public:
  double kv;  // KV use, set by the test between picks
};

Request with_ids(std::vector<std::uint64_t> ids) {
  Request r = make_request(0, static_cast<std::int64_t>(ids.size()) * 16, 1);
  r.block_hashes = std::move(ids);
  r.hash_block_tokens = 16;
  return r;
}

}  // namespace

TEST_CASE("scored router: the weighted sum of the prefix, queue and KV scores, llm-d's defaults", "[engine][router]") {
  CHECK(parse_router("scored", "x") == RouterKind::scored);
  std::vector<std::unique_ptr<Engine>> replicas;
  replicas.push_back(std::make_unique<FakeReplica>(4, 0.5));  // A
  replicas.push_back(std::make_unique<FakeReplica>(0, 0.9));  // B
  Router router(RouterKind::scored);  // prefix 3, queue 2, kv 2
  router.track(replicas);
  // Nothing routed before: A = 2 x (4 - 4) / (4 - 0) + 2 x (1 - 0.5) = 1.0;
  // B = 2 x (4 - 0) / 4 + 2 x (1 - 0.9) = 2.2 -> B. B now remembers ids 1..4.
  CHECK(router.pick(replicas, with_ids({1, 2, 3, 4})) == 1);
  // A request starting with 1, 2 then two new ids: B's prefix score 2 / 4 -> B = 2.2 + 3 x 0.5 = 3.7.
  CHECK(router.pick(replicas, with_ids({1, 2, 50, 51})) == 1);
  // Prefix weight only: a request none has seen ties at 0 -> the lowest index, A;
  // then its repeat goes to A (3 x 1 against B's 0).
  Router prefix_only(RouterKind::scored, RouterWeights{.prefix = 1, .queue = 0, .kv = 0});
  CHECK(prefix_only.pick(replicas, with_ids({7, 8})) == 0);
  CHECK(prefix_only.pick(replicas, with_ids({7, 8, 9})) == 0);
  // KV only: B's 0.9 use loses to A's 0.5.
  Router kv_only(RouterKind::scored, RouterWeights{.prefix = 0, .queue = 0, .kv = 1});
  CHECK(kv_only.pick(replicas, with_ids({1})) == 0);
  // A replica the autoscaler took out is never picked.
  Router out(RouterKind::scored);
  out.track(replicas);
  out.set_available(1, false, replicas[1]->load());
  CHECK(out.pick(replicas, with_ids({1, 2, 3, 4})) == 0);
}

TEST_CASE("scored router: the prefix memory forgets the oldest ids past prefix_blocks", "[engine][router]") {
  std::vector<std::unique_ptr<Engine>> replicas;
  replicas.push_back(std::make_unique<FakeReplica>(0, 0.0));
  replicas.push_back(std::make_unique<FakeReplica>(0, 0.5));
  auto& r0 = static_cast<FakeReplica&>(*replicas[0]);
  auto& r1 = static_cast<FakeReplica&>(*replicas[1]);
  // Prefix weight 1, KV weight 0.6; two ids remembered per replica.
  Router r(RouterKind::scored, RouterWeights{.prefix = 1, .queue = 0, .kv = 0.6, .prefix_blocks = 2});
  // KV alone: replica 0 scores 0.6 x 1, replica 1 0.6 x 0.5 = 0.3: both requests go to 0,
  // which remembers {1, 2}, then {3, 4} in their place.
  CHECK(r.pick(replicas, with_ids({1, 2})) == 0);
  CHECK(r.pick(replicas, with_ids({3, 4})) == 0);
  // Now replica 0 is the busier (KV score 0.3 against 0.6): a request matching what it
  // remembers goes there (1 + 0.3 = 1.3 > 0.6); one it forgot goes to replica 1 (0.3 < 0.6).
  r0.kv = 0.5;
  r1.kv = 0.0;
  CHECK(r.pick(replicas, with_ids({3, 4})) == 0);
  CHECK(r.pick(replicas, with_ids({1, 2})) == 1);
}

TEST_CASE("scored router: more prefix hits than round robin, with the load still spread", "[engine][router]") {
  // test_engine_router's grouped shared prefixes: 2 replicas, 8 system prompts of 1024 tokens.
  auto run = [](const std::string& router) {
    const Scenario sc = scenario_from(
        "{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 320, max_num_seqs: 64}",
        "{seed: 3, requests: 2000, arrival: {process: poisson, rate: 40}, "
        "input_tokens: {dist: fixed, value: 64}, output_tokens: {dist: fixed, value: 32}, "
        "shared_prefix: {groups: 8, tokens: 1024, assign: random}}",
        "llama-3.1-8b", "{tp: 1, replicas: 2, router: " + router + "}");
    RunWithCsv out = run_with_csv(sc, nullptr);
    return out;
  };
  const RunWithCsv rr = run("round_robin"), scored = run("scored");
  INFO("hit rate: round_robin " << rr.result.summary.prefix_hit_rate << ", scored "
                                << scored.result.summary.prefix_hit_rate);
  CHECK(scored.result.summary.prefix_hit_rate > rr.result.summary.prefix_hit_rate + 0.10);
  std::int64_t on_second = 0;
  for (const RequestResult& r : scored.results) on_second += r.replica == 1;
  CHECK(on_second > 2000 / 4);  // the queue and KV scorers keep both replicas busy
  CHECK(on_second < 3 * 2000 / 4);
}

TEST_CASE("router_weights belong to the scored router", "[engine][router][config]") {
  CHECK_THAT(error_of([] {
               scenario_from("{kind: vllm}", "", "llama-3.1-8b",
                             "{tp: 1, replicas: 2, router: least_outstanding, router_weights: {prefix: 1}}");
             }),
             Catch::Contains("set router: scored"));
  CHECK_THAT(error_of([] {
               scenario_from("{kind: vllm}", "", "llama-3.1-8b",
                             "{tp: 1, replicas: 2, router: scored, router_weights: {prefix: 0, queue: 0, kv: 0}}");
             }),
             Catch::Contains("every weight is 0"));
}

namespace {

// A FakeReplica whose GPU prefix cache holds `cached` of a prompt's `blocks` (Engine::prefix_match).
class FakeCacheReplica final : public Engine {
 public:
  bool enqueue(Request, Nanos) override { return true; }
  bool has_work() const override { return false; }
  bool can_start(Nanos) const override { return false; }
  Nanos start_step(Nanos now, Nanos) override { return now; }
  void finish_step(Nanos, std::vector<Request>&) override {}
  std::int64_t outstanding() const override { return 0; }
  std::int64_t queued() const override { return 0; }
  std::int64_t queued_bytes() const override { return 0; }
  void abort_queued(Nanos, FailureReason, const std::function<void(const Request&)>&) override {}
  double kv_load() const override { return 0; }
  std::int64_t kv_blocks_total() const override { return 100; }
  PrefixMatch prefix_match(const Request&) const override { return match; }
  PrefixMatch match;
};

Request in_session(std::int32_t session, bool last = false) {
  Request r = make_request(0, 64, 1);
  r.session = session;
  r.last_turn = last;
  return r;
}

}  // namespace

TEST_CASE("scored router: the session scorer keeps a session on the replica its last turn went to",
          "[engine][router]") {
  std::vector<std::unique_ptr<Engine>> replicas;
  replicas.push_back(std::make_unique<FakeReplica>(4, 0.5));  // A
  replicas.push_back(std::make_unique<FakeReplica>(0, 0.9));  // B
  auto& a = static_cast<FakeReplica&>(*replicas[0]);
  auto& b = static_cast<FakeReplica&>(*replicas[1]);
  RouterWeights w;
  w.prefix = 0;
  w.session = 5;
  Router router(RouterKind::scored, w);
  // Session 7's first turn: A = 2 x 0 + 2 x (1 - 0.5) = 1.0, B = 2 x 1 + 2 x (1 - 0.9) = 2.2 -> B.
  CHECK(router.pick(replicas, in_session(7)) == 1);
  // B fills up: A = 0 + 2 x 1 = 2, B = 2 x 1 + 2 x 0 = 2, a tie the lowest index (A) would win;
  // session 7 adds 5 to B -> B = 7. Another session (8) has no replica yet -> A.
  a.kv = 0.0;
  b.kv = 1.0;
  CHECK(router.pick(replicas, in_session(7)) == 1);
  CHECK(router.pick(replicas, in_session(8)) == 0);
  // Session 8 now follows A even where B would score higher without it: A = 0 + 2 x 0 + 5 = 5 against B = 2 + 2 = 4
  // once B empties (kv 0) and A fills (kv 1).
  a.kv = 1.0;
  b.kv = 0.0;
  CHECK(router.pick(replicas, in_session(8)) == 0);
  // Session 7's last turn still goes to B (B = 2 + 2 + 5 = 9) and ends its entry: its next request
  // (a new session with the same id) is routed on load alone, A = 0 + 0 = 0 against B = 4 -> B, and
  // with B full again (kv 1: B = 2) and A empty (A = 2: tie) -> A.
  CHECK(router.pick(replicas, in_session(7, true)) == 1);
  a.kv = 0.0;
  b.kv = 1.0;
  CHECK(router.pick(replicas, in_session(7)) == 0);
}

TEST_CASE("scored router: the precise prefix scorer reads what each replica's cache holds now", "[engine][router]") {
  std::vector<std::unique_ptr<Engine>> replicas;
  replicas.push_back(std::make_unique<FakeCacheReplica>());  // A
  replicas.push_back(std::make_unique<FakeCacheReplica>());  // B
  auto& a = static_cast<FakeCacheReplica&>(*replicas[0]);
  auto& b = static_cast<FakeCacheReplica&>(*replicas[1]);
  RouterWeights w;  // prefix 3, queue 2, kv 2: the queue and KV scores tie (2 + 2 each)
  w.precise_prefix = true;
  Router precise(RouterKind::scored, w);
  Router approximate(RouterKind::scored);
  // B holds 3 of the prompt's 4 blocks: B = 4 + 3 x 3/4 = 6.25 against A = 4 -> B, for both scorers
  // (the approximate one has routed nothing yet: both 4, the tie -> A).
  a.match = {0, 4};
  b.match = {3, 4};
  CHECK(precise.pick(replicas, with_ids({1, 2, 3, 4})) == 1);
  CHECK(approximate.pick(replicas, with_ids({1, 2, 3, 4})) == 0);
  // The approximate scorer now remembers ids 1..4 on A and keeps sending the prompt there
  // whatever A's cache has since evicted; the precise one follows the caches: B evicted the
  // blocks and A computed all 4 -> A = 4 + 3 = 7 against B = 4.
  a.match = {4, 4};
  b.match = {0, 4};
  CHECK(precise.pick(replicas, with_ids({1, 2, 3, 4})) == 0);
  a.match = {0, 4};
  b.match = {4, 4};
  CHECK(precise.pick(replicas, with_ids({1, 2, 3, 4})) == 1);
  CHECK(approximate.pick(replicas, with_ids({1, 2, 3, 4})) == 0);
}

TEST_CASE("scored router end to end: the precise prefix scorer and the session scorer raise prefix hits",
          "[engine][router]") {
  // Grouped shared prefixes on 2 replicas with a small KV cache (320 blocks): evictions happen.
  auto prefixes = [](const std::string& weights) {
    const Scenario sc = scenario_from(
        "{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 320, max_num_seqs: 64}",
        "{seed: 3, requests: 2000, arrival: {process: poisson, rate: 40}, "
        "input_tokens: {dist: fixed, value: 64}, output_tokens: {dist: fixed, value: 32}, "
        "shared_prefix: {groups: 8, tokens: 1024, assign: random}}",
        "llama-3.1-8b", "{tp: 1, replicas: 2, router: scored, router_weights: " + weights + "}");
    return simulate(sc).summary.prefix_hit_rate;
  };
  const double load_only = prefixes("{prefix: 0}");
  const double precise = prefixes("{prefix_scorer: precise}");
  INFO("hit rate: load only " << load_only << ", precise prefix " << precise << ", approximate "
                              << prefixes("{prefix_scorer: approximate}"));
  CHECK(precise > load_only + 0.10);
  // Multi-turn conversations (each turn's prompt extends the last): without a prefix scorer,
  // the session scorer alone keeps a conversation's turns where its context is cached.
  auto turns = [](const std::string& weights) {
    const Scenario sc = scenario_from(
        "{kind: vllm, prefix_caching: true, max_num_seqs: 64}",
        "{seed: 5, arrival: {process: multi_stage, stages: [{process: poisson, rate: 20, requests: 200}]}, input_tokens: {dist: fixed, value: 256}, "
        "output_tokens: {dist: fixed, value: 32}, multi_turn: {turns: 6, loop: closed, think_time: \"0.5 s\"}}",
        "llama-3.1-8b", "{tp: 1, replicas: 4, router: scored, router_weights: " + weights + "}");
    return simulate(sc).summary.prefix_hit_rate;
  };
  const double without = turns("{prefix: 0}"), with = turns("{prefix: 0, session: 10}");
  INFO("multi-turn hit rate: load only " << without << ", with the session scorer " << with);
  CHECK(with > without + 0.10);
}
