// Routers, prefix_affinity in particular: requests that share a first prompt block
// (a system prompt) go to the replica that served it last, so its prefix cache hits.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/rng.h"

#include "engine/engine.h"
#include "run/simulation.h"
#include "engine/router.h"
#include "workload/workload_spec.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using namespace servesim::testing;

TEST_CASE("the router registry names prefix_affinity and rejects unknown routers", "[engine][router]") {
  CHECK(parse_router("prefix_affinity", "x") == RouterKind::prefix_affinity);
  CHECK(parse_router("round_robin", "x") == RouterKind::round_robin);
  bool listed = false;
  for (const auto& [name, _] : router_registry()) listed = listed || name == "prefix_affinity";
  CHECK(listed);
  CHECK_THROWS_AS(parse_router("prefix_afinity", "x"), Error);
}

TEST_CASE("prefix_affinity beats round_robin on prefix hits with grouped shared prefixes", "[engine][router]") {
  // 2 replicas, 8 system prompts of 1024 tokens (64 blocks each: 512 blocks for
  // all 8), each request = one of them (drawn at random) + a 64-token question,
  // 32 output tokens. Each replica has 320 KV blocks: room for the prefixes of
  // about 4 groups next to the running requests, not 8.
  //  - round_robin sends every group to both replicas: each replica's cache
  //    cycles through all 8 prefixes and keeps evicting them;
  //  - prefix_affinity keeps a group on the replica that served it last, so each
  //    replica serves about 4 groups, whose prefixes stay cached.
  // Hit rate = cached prompt tokens / prompt tokens; the ceiling is 1024 / 1088
  // = 94% (the question is never cached; the first request of a group misses).
  auto run = [](const std::string& router) {
    const Scenario sc = scenario_from(
        "{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 320, max_num_seqs: 64}",
        "{seed: 3, requests: 2000, arrival: {process: poisson, rate: 40}, "
        "input_tokens: {dist: fixed, value: 64}, output_tokens: {dist: fixed, value: 32}, "
        "shared_prefix: {groups: 8, tokens: 1024, assign: random}}",
        "llama-3.1-8b", "{tp: 1, replicas: 2, router: " + router + "}");
    return simulate(sc, {}).summary;
  };
  const RunSummary rr = run("round_robin");
  const RunSummary pa = run("prefix_affinity");
  const RunSummary lo = run("least_outstanding");
  INFO("hit rate: round_robin " << rr.prefix_hit_rate << ", least_outstanding " << lo.prefix_hit_rate
                                << ", prefix_affinity " << pa.prefix_hit_rate);
  REQUIRE(rr.completed == 2000);
  REQUIRE(pa.completed == 2000);
  CHECK(pa.prefix_hit_rate > rr.prefix_hit_rate + 0.10);
  CHECK(pa.prefix_hit_rate > lo.prefix_hit_rate + 0.10);
  CHECK(pa.prefix_hit_rate <= 1024.0 / 1088.0);
  // Fewer prompt tokens computed means a shorter mean TTFT at the same load.
  CHECK(pa.ttft_ms.mean < rr.ttft_ms.mean);
}

TEST_CASE("prefix_affinity falls back to the least-loaded replica", "[engine][router]") {
  // Requests without prefix information are routed like least_outstanding: with
  // everything identical, the two policies give the same run.
  const std::string wl =
      "{seed: 5, requests: 300, arrival: {process: poisson, rate: 20}, "
      "input_tokens: {dist: fixed, value: 256}, output_tokens: {dist: fixed, value: 64}}";
  auto run = [&](const std::string& router) {
    const Scenario sc = scenario_from("{kind: vllm}", wl, "llama-3.1-8b", "{tp: 1, replicas: 2, router: " + router + "}");
    return run_with_csv(sc, nullptr).csv;
  };
  CHECK(run("prefix_affinity") == run("least_outstanding"));
}

namespace {
// Counts the preemptions of finished requests.
class Preemptions final : public RunObserver {
 public:
  void on_step(const StepRecord&) override {}
  void on_itl(double, std::int64_t) override {}
  void on_request_done(const RequestRecord& r) override { count += r.preemptions; }
  std::int64_t count = 0;
};
}  // namespace

TEST_CASE("a replica's load() gives its four load figures, step by step", "[engine][router]") {
  // The simulation reads a replica's outstanding requests, never-scheduled queue,
  // that queue's bytes and KV use through one load() call (engine.h); each engine
  // must give what the four separate calls give, at every point of a run: while
  // requests queue (600 arrive at once), run, are preempted (400 KV blocks for
  // ~1,100-token prompts with a shared 512-token prefix) and finish.
  for (const std::string engine : {"{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 400}",
                                   "{kind: static, num_gpu_blocks_override: 400}"}) {
    const Scenario sc = scenario_from(engine,
                                      "{seed: 2, requests: 600, arrival: {process: all_at_once}, "
                                      "input_tokens: {dist: uniform, min: 200, max: 1200}, "
                                      "output_tokens: {dist: uniform, min: 16, max: 256}, "
                                      "shared_prefix: {groups: 4, tokens: 512}}");
    const CostModel cost = make_cost_model(sc);
    EngineContext ctx;
    ctx.cost = &cost;
    ctx.config = sc.engine;
    ctx.memory = plan_setup_memory(sc, cost);
    ctx.kv_blocks = sc.engine.num_gpu_blocks_override;
    Preemptions preemptions;
    ctx.observer = &preemptions;
    const std::unique_ptr<Engine> e = make_engine(ctx);
    std::int64_t checks = 0, queued_seen = 0;
    auto same = [&] {
      const ReplicaLoad l = e->load();
      REQUIRE(l.outstanding == e->outstanding());
      REQUIRE(l.queued == e->queued());
      REQUIRE(l.queued_bytes == e->queued_bytes());
      REQUIRE(l.kv_load == e->kv_load());
      queued_seen = std::max(queued_seen, l.queued);
      ++checks;
    };
    const std::unique_ptr<RequestSource> src = make_request_source(sc.workload);
    while (auto r = src->next()) {
      e->enqueue(std::move(*r), 0);
      same();
    }
    std::vector<Request> done;
    // The engine sees a request frontend_latency after it arrives (simulation.cpp).
    Nanos now = to_nanos(sc.engine.frontend_latency);
    for (int steps = 0; e->has_work(); ++steps) {
      REQUIRE(steps < 1000000);
      REQUIRE(e->can_start(now));
      now = e->start_step(now, kNever);
      same();
      e->finish_step(now, done);
      same();
    }
    INFO(engine);
    CHECK(done.size() == 600);
    CHECK(queued_seen == 600);  // every request waited, so the queue figures were exercised
    CHECK(checks > 1200);
    if (sc.engine.kind == "vllm") CHECK(preemptions.count > 0);
  }
}

namespace {
// A replica that only reports a load the test sets (Router::pick reads nothing else).
class LoadOnly : public Engine {
 public:
  std::int64_t load_now = 0;
  bool enqueue(Request, Nanos) override { return true; }
  bool has_work() const override { return false; }
  bool can_start(Nanos) const override { return false; }
  Nanos start_step(Nanos now, Nanos) override { return now; }
  void finish_step(Nanos, std::vector<Request>&) override {}
  std::int64_t outstanding() const override { return load_now; }
  std::int64_t queued() const override { return 0; }
  std::int64_t queued_bytes() const override { return 0; }
  void abort_queued(Nanos, FailureReason, const std::function<void(const Request&)>&) override {}
  double kv_load() const override { return 0; }
  std::int64_t kv_blocks_total() const override { return 1; }
};
}  // namespace

TEST_CASE("prefix_affinity remembers the latest kAffinityEntries first blocks, oldest forgotten first", "[engine][router]") {
  // The rule written out with a node map and a FIFO of keys (the router's form
  // before its flat map and ring): a known first block goes to its replica unless
  // that one has over twice the least load (counted as at least 1), an unknown one
  // to the least-loaded replica (lowest index on ties), and past kAffinityEntries
  // distinct blocks the oldest remembered is forgotten. 300k picks over 150k
  // distinct first blocks (so many are forgotten and come back), random loads;
  // the router scanning the replicas and the router reading tracked loads must
  // both pick as the reference does.
  constexpr int kReplicas = 5;
  std::vector<std::unique_ptr<Engine>> replicas;
  for (int i = 0; i < kReplicas; ++i) replicas.push_back(std::make_unique<LoadOnly>());
  auto load_of = [&](int i) { return static_cast<LoadOnly&>(*replicas[static_cast<std::size_t>(i)]).load_now; };
  Router scanning(RouterKind::prefix_affinity), tracked(RouterKind::prefix_affinity);
  tracked.track(replicas);
  std::unordered_map<std::uint64_t, int> ref;
  std::deque<std::uint64_t> ref_order;
  RandomStream rng(29, "affinity");
  int known = 0, kept = 0, forgotten_again = 0;
  std::unordered_map<std::uint64_t, int> seen_before;
  for (int n = 0; n < 300000; ++n) {
    for (int i = 0; i < kReplicas; ++i) {
      static_cast<LoadOnly&>(*replicas[static_cast<std::size_t>(i)]).load_now = rng.uniform_int(0, 6);
      tracked.observe(i, replicas[static_cast<std::size_t>(i)]->load());
    }
    Request r;
    r.block_hashes = {static_cast<std::uint64_t>(rng.uniform_int(0, 149999)) * 0x9e3779b97f4a7c15ULL};
    const std::uint64_t key = r.block_hashes[0];
    int least = 0;
    for (int i = 1; i < kReplicas; ++i)
      if (load_of(i) < load_of(least)) least = i;
    int want = least;
    if (auto it = ref.find(key); it != ref.end()) {
      ++known;
      if (load_of(it->second) <= 2 * std::max<std::int64_t>(1, load_of(least))) {
        want = it->second;
        ++kept;
      }
      it->second = want;
    } else {
      if (seen_before.count(key)) ++forgotten_again;
      if (ref.size() >= Router::kAffinityEntries) {
        ref.erase(ref_order.front());
        ref_order.pop_front();
      }
      ref.emplace(key, want);
      ref_order.push_back(key);
    }
    seen_before[key] = 1;
    REQUIRE(scanning.pick(replicas, r) == want);
    REQUIRE(tracked.pick(replicas, r) == want);
  }
  CHECK(known > 50000);            // remembered blocks came back
  CHECK(kept > 10000);             // and often kept their replica
  CHECK(forgotten_again > 10000);  // forgotten ones came back as new
}
