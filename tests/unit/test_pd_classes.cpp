// Request classes, the gateway and patience with prefill/decode disaggregation
// (run/disaggregated_simulation.cpp, engine/decode_only_engine.h), against closed forms.
// Every end-to-end case is Llama-3.1-8B bf16 on H100s, 1P1D, front-end latency 0, each
// prefill step computing one prompt (max_num_batched_tokens = the prompt), so with P
// the step of one prompt alone and T its transfer (20 us + prompt x 131072 B / 50 GB/s,
// shorter than P: the link is free when the next prompt's KV leaves):
//   the k-th prompt the prefill instance computes has its first token at k P + T.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "config/config_node.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "engine/decode_only_engine.h"
#include "metrics/summary_json.h"
#include "run/disaggregated_simulation.h"
#include "scenario/disaggregation.h"
#include "test_sim_helpers.h"
#include "workload/patience.h"
#include "workload/request_classes.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

constexpr std::int64_t kPrompt = 1000;
// Llama-3.1-8B's KV per token: 32 layers x (K, V) x 8 KV heads x 128 x 2 bytes (its config.json).
constexpr double kKvBytes = 32.0 * 2 * 8 * 128 * 2;
constexpr double kNsInMs = 1e-6;

// 1P1D; `engine_extra` and `rest` (workload keys, gateway) are YAML.
Scenario pd_scenario(const std::string& engine_extra, const std::string& rest, int max_num_seqs = 256,
                     const std::string& bandwidth = "50 GB/s") {
  const std::string text = fmt::format(
      "hardware: {{gpu: h100-sxm}}\nmodel: {{name: llama-3.1-8b}}\n"
      "engine: {{kind: vllm, frontend_latency: 0 ms, max_num_seqs: {}, max_num_batched_tokens: {}, "
      "max_model_len: 4096, prefix_caching: false{}}}\n"
      "disaggregation: {{prefill: {{replicas: 1}}, decode: {{replicas: 1}}, "
      "transfer: {{bandwidth: \"{}\", latency: \"20 us\"}}}}\n{}",
      max_num_seqs, kPrompt, engine_extra, bandwidth, rest);
  return parse_scenario(parse_yaml_text(text), "pd-classes.yaml", rest.find("workload:") != std::string::npos);
}

// P: one prompt of kPrompt tokens alone in a prefill step; T: its transfer.
Nanos prefill_step(const Scenario& sc) {
  return step_nanos(make_cost_model(sc), sc.engine, batch_of(1, SeqWork{kPrompt, 0, true}));
}
Nanos transfer(std::int64_t tokens = kPrompt) { return to_nanos(20e-6 + tokens * kKvBytes / 50e9); }

// A seed whose class draw puts request 0 in class `first` and request 1 in the other
// (two classes of share 0.5; the draw is a pure function of (seed, id)).
int seed_with(int first) {
  for (int s = 1; s < 200; ++s) {
    RequestClassSpec a{.name = "low", .share = 0.5, .priority = 0}, b{.name = "high", .share = 0.5, .priority = 10};
    const ClassAssignment probe({a, b}, static_cast<std::uint64_t>(s));
    if (probe.of(0) == first && probe.of(1) == 1 - first) return s;
  }
  return 0;
}

double ttft_of(const RequestResults& results, std::int64_t id) {
  for (const RequestResult& q : results)
    if (q.id == id) return q.ttft_ms;
  return -1;
}

}  // namespace

TEST_CASE("P/D classes: the high-priority request's TTFT is one prefill step, the low one's two",
          "[pd-classes][classes][disagg][closed_form]") {
  // Two requests of 1000 tokens at t = 0, request 0 `low` (priority 0), request 1 `high`
  // (10). scheduling_policy: priority: the prefill instance computes high first, so
  // TTFT(high) = P + T and TTFT(low) = 2 P + T; first come, first served: the reverse.
  const int seed = seed_with(0);
  REQUIRE(seed > 0);
  const std::string workload = fmt::format(
      "workload:\n  seed: {}\n  requests: 2\n  arrival: {{process: all_at_once}}\n"
      "  input_tokens: {{dist: fixed, value: {}}}\n  output_tokens: {{dist: fixed, value: 20}}\n"
      "  classes:\n"
      "    - {{name: low, share: 0.5, priority: 0, slo: {{ttft_ms: {{p99: 100000}}}}}}\n"
      "    - {{name: high, share: 0.5, priority: 10, slo: {{ttft_ms: {{p99: 0.001}}}}}}\n",
      seed, kPrompt);
  for (const bool priority : {true, false}) {
    DYNAMIC_SECTION("scheduling_policy " << (priority ? "priority" : "fcfs")) {
      const Scenario sc = pd_scenario(priority ? ", scheduling_policy: priority" : "", workload);
      const double p = static_cast<double>(prefill_step(sc)) * kNsInMs, t = static_cast<double>(transfer()) * kNsInMs;
      REQUIRE(t < p);
      RequestResults results;
      SimulationOptions opts;
      opts.request_results = &results;
      const SimulationResult r = simulate(sc, opts);
      REQUIRE(r.summary.completed == 2);
      const double low = ttft_of(results, 0), high = ttft_of(results, 1);
      CHECK(high == Approx(priority ? p + t : 2 * p + t).margin(1e-6));
      CHECK(low == Approx(priority ? 2 * p + t : p + t).margin(1e-6));
      // Per class, as in co-located runs: one request each, judged by its class's own SLO
      // (low: TTFT p99 within 100 s, met; high: within 1 us, missed), goodput = met / duration.
      REQUIRE(r.summary.classes.size() == 2);
      const ClassReport& lo = r.summary.classes[0];
      const ClassReport& hi = r.summary.classes[1];
      CHECK(lo.completed == 1);
      CHECK(hi.completed == 1);
      CHECK(hi.ttft_ms.p99 == Approx(high).margin(1e-6));
      CHECK(lo.slo_attainment == 1.0);
      CHECK(hi.slo_attainment == 0.0);
      CHECK(lo.goodput_rps == Approx(1 / r.summary.duration_s));
      const auto json = summary_json(r.summary);
      REQUIRE(json.contains("classes"));
      CHECK(json["classes"].size() == 2);
      CHECK(json.contains("disaggregation"));
    }
  }
}

TEST_CASE("P/D classes: a decode instance grants blocks in priority order with scheduling_policy priority",
          "[pd-classes][classes][disagg]") {
  // One decode slot (max_num_seqs 1); three requests accepted at once: 0 and 1 `low`,
  // 2 `high`. By priority the first grant is 2, then 0, then 1 (arrival order within a
  // priority); first come, first served: 0, 1, 2.
  RequestClassSpec low{.name = "low", .share = 0.5, .priority = 0}, high{.name = "high", .share = 0.5, .priority = 10};
  // Classes by session (the draw for a session is its own key): find sessions of each class.
  const ClassAssignment classes({low, high}, 1);
  std::int32_t low_session = -1, high_session = -1;
  for (std::int32_t s = 0; s < 100 && (low_session < 0 || high_session < 0); ++s)
    (classes.of(0, s) == 0 ? low_session : high_session) = s;
  REQUIRE(low_session >= 0);
  REQUIRE(high_session >= 0);
  const Scenario sc = pd_scenario("", "");
  const CostModel cost = make_cost_model(sc);
  for (const bool priority : {true, false}) {
    DYNAMIC_SECTION("scheduling_policy " << (priority ? "priority" : "fcfs")) {
      EngineContext ctx;
      ctx.cost = &cost;
      ctx.config = sc.engine;
      ctx.config.max_num_seqs = 1;
      ctx.config.priority_queue = priority;
      ctx.classes = &classes;
      ctx.kv_blocks = 1000;
      ctx.memory = plan_setup_memory(sc, cost);
      DecodeOnlyEngine e(ctx);
      for (std::int64_t id = 0; id < 3; ++id) {
        Request r = make_request(0, 100, 2);
        r.id = id;
        r.session = id == 2 ? high_session : low_session;
        REQUIRE(e.accept(r, arrival_record(r, 0), 0));
      }
      std::vector<std::int64_t> order;
      std::vector<Request> granted, done;
      Nanos now = 0;
      while (order.size() < 3) {
        granted.clear();
        e.grant(granted);
        REQUIRE(granted.size() == 1);  // one slot: one at a time
        order.push_back(granted[0].id);
        e.kv_arrived(granted[0].id, now);
        while (e.has_work()) {
          now = e.start_step(now, kNever);
          e.finish_step(now, done);
        }
      }
      CHECK(order == (priority ? std::vector<std::int64_t>{2, 0, 1} : std::vector<std::int64_t>{0, 1, 2}));
    }
  }
}

TEST_CASE("P/D gateway: flow control holds requests while the prefill instance is saturated and sends them on by "
          "priority", "[pd-classes][classes][gateway][disagg][closed_form]") {
  // 20 requests of 1000 tokens at t = 0, gateway queue_threshold 1: request 0 finds the
  // prefill instance idle and is sent; then it is saturated (1 waiting), so the other 19
  // are held and one is sent at each prefill step's end, every `high` before any `low`,
  // in arrival order within a class. The k-th computed prompt's first token is at k P + T.
  const std::string workload = fmt::format(
      "workload:\n  seed: 3\n  requests: 20\n  arrival: {{process: all_at_once}}\n"
      "  input_tokens: {{dist: fixed, value: {}}}\n  output_tokens: {{dist: fixed, value: 10}}\n"
      "  classes:\n"
      "    - {{name: high, share: 0.5, priority: 5}}\n"
      "    - {{name: low, share: 0.5, priority: 0}}\n"
      "gateway: {{queue_threshold: 1}}\n",
      kPrompt);
  const Scenario sc = pd_scenario("", workload);
  const Nanos p = prefill_step(sc), t = transfer();
  REQUIRE(t < p);
  RequestResults results;
  SimulationOptions opts;
  opts.request_results = &results;
  const SimulationResult r = simulate(sc, opts);
  REQUIRE(r.summary.completed == 20);
  const ClassAssignment classes(sc.workload.classes, sc.workload.seed);
  std::vector<std::int64_t> expected{0};
  for (int c : {0, 1})
    for (std::int64_t id = 1; id < 20; ++id)
      if (classes.of(id) == c) expected.push_back(id);
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const double want = static_cast<double>(static_cast<Nanos>(k + 1) * p + t) * kNsInMs;
    CHECK(ttft_of(results, expected[k]) == Approx(want).margin(1e-6));
  }
  REQUIRE(r.summary.classes.size() == 2);
  CHECK(r.summary.gateway);
  CHECK(r.summary.classes[0].gateway.held + r.summary.classes[1].gateway.held == 19);
  CHECK(r.summary.disaggregation->transfers == 20);
  // Deterministic: the same scenario, the same bytes.
  CHECK(summary_json(simulate(sc).summary).dump() == summary_json(r.summary).dump());
}

TEST_CASE("P/D gateway: a token bucket rejects exactly the excess", "[pd-classes][classes][gateway][disagg]") {
  // 30 requests at once, the class limited to 1 req/s with a burst of 10: the full bucket
  // passes 10, and at t = 0 nothing refills it, so 20 fail rate_limited.
  const Scenario sc = pd_scenario("",
                                  "workload:\n  requests: 30\n  arrival: {process: all_at_once}\n"
                                  "  input_tokens: {dist: fixed, value: 100}\n"
                                  "  output_tokens: {dist: fixed, value: 10}\n"
                                  "  classes: [{name: api, share: 1, rate_limit: 1, burst: 10}]\n");
  const SimulationResult r = simulate(sc);
  CHECK(r.summary.completed == 10);
  CHECK(r.summary.failed == 20);
  CHECK(r.summary.failures[static_cast<std::size_t>(FailureReason::rate_limited)] == 20);
  REQUIRE(r.summary.classes.size() == 1);
  CHECK(r.summary.classes[0].failures[static_cast<std::size_t>(FailureReason::rate_limited)] == 20);
  // Only the admitted requests reach the pools: 10 transfers of 100 tokens' KV.
  CHECK(r.summary.disaggregation->transfers == 10);
  CHECK(r.summary.disaggregation->transfer_bytes == 10 * 100 * kKvBytes);
}

TEST_CASE("P/D patience: users who give up in the prefill pool leave, their KV never sent",
          "[pd-classes][patience][disagg][closed_form]") {
  // Three requests of 1000 tokens at t = 0, patience 1.5 P for every user. Request 0 is
  // prefilled in [0, P], its first token at P + T < 1.5 P (T < P / 2). Request 1 is
  // prefilled in [P, 2P]: its user gives up at 1.5 P, during its prefill (abandoned,
  // after it started). Request 2 is still queued at 1.5 P (abandoned, never scheduled).
  // One transfer, of request 0's prompt; both abandoned requests waited 1.5 P.
  const Scenario probe = pd_scenario("", "");
  const Nanos p = prefill_step(probe), t = transfer();
  REQUIRE(2 * t < p);
  const double patience_s = to_seconds(p) * 1.5;
  const Scenario sc = pd_scenario(
      "", fmt::format("workload:\n  requests: 3\n  arrival: {{process: all_at_once}}\n"
                      "  input_tokens: {{dist: fixed, value: {}}}\n  output_tokens: {{dist: fixed, value: 10}}\n"
                      "  patience: {{dist: fixed, value: \"{:.9f} s\"}}\n",
                      kPrompt, patience_s));
  RequestResults results;
  SimulationOptions opts;
  opts.request_results = &results;
  const SimulationResult r = simulate(sc, opts);
  CHECK(r.summary.completed == 1);
  CHECK(r.summary.failed == 2);
  CHECK(r.summary.failures[static_cast<std::size_t>(FailureReason::abandoned)] == 2);
  CHECK(r.summary.abandoned_after_start == 1);
  CHECK(r.summary.abandoned_wait_ms.max == Approx(static_cast<double>(to_nanos(patience_s)) * kNsInMs).margin(1e-6));
  CHECK(ttft_of(results, 0) == Approx(static_cast<double>(p + t) * kNsInMs).margin(1e-6));
  REQUIRE(r.summary.disaggregation);
  CHECK(r.summary.disaggregation->transfers == 1);
  CHECK(r.summary.disaggregation->transfer_bytes == kPrompt * kKvBytes);
}

TEST_CASE("P/D patience: a user who gives up while waiting for decode blocks leaves, its KV never sent",
          "[pd-classes][patience][disagg][closed_form]") {
  // One decode slot (max_num_seqs 1), two requests of 1000 tokens and 200 output tokens
  // at t = 0, patience 3 P. Request 0: first token at P + T, then ~199 decode steps
  // (each over 5 ms on an H100: longer than 3 P). Request 1: prefilled in [P, 2P], then
  // waits for the decode slot request 0 holds; its user gives up at 3 P, before any
  // block is granted, so its KV is never sent.
  const Scenario probe = pd_scenario("", "");
  const Nanos p = prefill_step(probe), t = transfer();
  const double patience_s = to_seconds(p) * 3;
  const Scenario sc = pd_scenario(
      "",
      fmt::format("workload:\n  requests: 2\n  arrival: {{process: all_at_once}}\n"
                  "  input_tokens: {{dist: fixed, value: {}}}\n  output_tokens: {{dist: fixed, value: 200}}\n"
                  "  patience: {{dist: fixed, value: \"{:.9f} s\"}}\n",
                  kPrompt, patience_s),
      /*max_num_seqs=*/1);
  RequestResults results;
  SimulationOptions opts;
  opts.request_results = &results;
  const SimulationResult r = simulate(sc, opts);
  REQUIRE(r.summary.completed == 1);
  CHECK(ttft_of(results, 0) == Approx(static_cast<double>(p + t) * kNsInMs).margin(1e-6));
  CHECK(r.summary.e2e_ms.min > patience_s * 1e3);  // request 0 still held the slot at 3 P
  CHECK(r.summary.failures[static_cast<std::size_t>(FailureReason::abandoned)] == 1);
  CHECK(r.summary.abandoned_after_start == 1);  // its prefill ran
  CHECK(r.summary.abandoned_wait_ms.max == Approx(static_cast<double>(to_nanos(patience_s)) * kNsInMs).margin(1e-6));
  REQUIRE(r.summary.disaggregation);
  CHECK(r.summary.disaggregation->transfers == 1);
  CHECK(r.summary.disaggregation->transfer_bytes == kPrompt * kKvBytes);
}

TEST_CASE("P/D patience: a transfer still waiting for the prefill instance's link is withdrawn when its user gives up",
          "[pd-classes][patience][disagg][closed_form]") {
  // A slow link: W = 1000 x 131072 B / 43.69 MB/s, about 3 s, far beyond P (~27 ms). Two
  // requests at t = 0. Request 0: prefilled in [0, P], on the wire in [P, P + W], first
  // token at P + W + 20 us. Request 1: prefilled in [P, 2P], granted its decode blocks
  // then, and waiting for the link until P + W. Patience is uniform on [1 s, 6 s], each
  // user's draw a pure function of (seed, id) (workload/patience.h): a seed where user 0
  // waits past P + W + 20 us and user 1 gives up in (2P, P + W) makes request 1 leave the
  // link's queue: withdrawn, never sent (one transfer), abandoned after its prefill, at
  // its own patience.
  const std::string bandwidth = "43.69 MB/s";
  const Scenario probe = pd_scenario("", "", 256, bandwidth);
  const Nanos p = prefill_step(probe);
  const double w = kPrompt * kKvBytes / probe.disaggregation->transfer.bandwidth;
  REQUIRE(w > 2.5);
  REQUIRE(w < 3.5);
  const PatienceSpec spec{.kind = PatienceKind::uniform, .min_s = 1.0, .max_s = 6.0};
  int seed = 0;
  double waited_s = 0;
  for (int s = 1; s < 1000 && seed == 0; ++s) {
    const Patience draw(spec, static_cast<std::uint64_t>(s));
    const double first_token_0 = to_seconds(p) + w + 20e-6;
    if (draw.seconds(0) > first_token_0 + 0.1 && draw.seconds(1) > 2 * to_seconds(p) + 0.1 &&
        draw.seconds(1) < to_seconds(p) + w - 0.1) {
      seed = s;
      waited_s = draw.seconds(1);
    }
  }
  REQUIRE(seed > 0);
  const Scenario sc = pd_scenario(
      "", fmt::format("workload:\n  seed: {}\n  requests: 2\n  arrival: {{process: all_at_once}}\n"
                      "  input_tokens: {{dist: fixed, value: {}}}\n  output_tokens: {{dist: fixed, value: 10}}\n"
                      "  patience: {{dist: uniform, min: \"1 s\", max: \"6 s\"}}\n",
                      seed, kPrompt),
      256, bandwidth);
  RequestResults results;
  SimulationOptions opts;
  opts.request_results = &results;
  const SimulationResult r = simulate(sc, opts);
  CHECK(r.summary.completed == 1);
  CHECK(ttft_of(results, 0) == Approx(static_cast<double>(p + to_nanos(w) + to_nanos(20e-6)) * kNsInMs).margin(1e-3));
  CHECK(r.summary.failures[static_cast<std::size_t>(FailureReason::abandoned)] == 1);
  CHECK(r.summary.abandoned_after_start == 1);
  CHECK(r.summary.abandoned_wait_ms.max == Approx(waited_s * 1e3).margin(1e-3));
  REQUIRE(r.summary.disaggregation);
  CHECK(r.summary.disaggregation->transfers == 1);
  CHECK(r.summary.disaggregation->transfer_bytes == kPrompt * kKvBytes);
}

TEST_CASE("P/D patience: a decode instance frees what an abandoned request holds", "[pd-classes][patience][disagg]") {
  // Patience 1 s for every user (requests arrive at 0: deadline 1 s). A cache of 100
  // blocks of 16 tokens; peaks ceil((in + out - 1) / 16): (600, 201) -> 50 blocks,
  // (700, 100) -> 50, (10, 1591) -> 100. a and b are granted (100 blocks), c waits.
  // At 1 s nobody has a first token: c leaves the queue (it held nothing), a and b, on
  // the wire, are reported abandoned at 1 s and their 100 blocks come back when their
  // transfers land (the read into them is not cancelled).
  const Scenario sc = pd_scenario("", "");
  const CostModel cost = make_cost_model(sc);
  const Patience patience(PatienceSpec{.kind = PatienceKind::fixed, .value_s = 1.0}, 1);
  struct Tap final : RunObserver {
    std::vector<RequestRecord> records;
    void on_step(const StepRecord&) override {}
    void on_itl(double, std::int64_t) override {}
    void on_request_done(const RequestRecord& r) override { records.push_back(r); }
  } tap;
  EngineContext ctx;
  ctx.cost = &cost;
  ctx.config = sc.engine;
  ctx.config.block_size = 16;
  ctx.kv_blocks = 100;
  ctx.memory = plan_setup_memory(sc, cost);
  ctx.patience = &patience;
  ctx.observer = &tap;
  DecodeOnlyEngine e(ctx);
  Request a = make_request(0, 600, 201), b = make_request(0, 700, 100), c = make_request(0, 10, 1591);
  a.id = 0, b.id = 1, c.id = 2;
  for (const Request* r : {&a, &b, &c}) REQUIRE(e.accept(*r, arrival_record(*r, 0), 0));
  std::vector<Request> granted, gone;
  e.grant(granted);
  REQUIRE(granted.size() == 2);
  CHECK(e.next_deadline() == to_nanos(1.0));
  e.abandon_due(to_nanos(0.5), gone);  // not yet due
  CHECK(gone.empty());
  e.abandon_due(to_nanos(1.0), gone);
  CHECK(gone.size() == 3);
  REQUIRE(tap.records.size() == 3);
  for (const RequestRecord& r : tap.records) {
    CHECK(r.failure == FailureReason::abandoned);
    CHECK(r.finish == to_nanos(1.0));
  }
  CHECK(e.queued() == 0);
  CHECK(e.reserved_blocks() == 100);  // a's and b's, until their KV lands
  e.kv_arrived(0, to_nanos(1.2));
  e.kv_arrived(1, to_nanos(1.2));
  CHECK(e.reserved_blocks() == 0);
  CHECK(e.used_blocks() == 0);
  CHECK_FALSE(e.has_work());
  CHECK(e.next_deadline() == kNever);
}

TEST_CASE("P/D gateway: users held past their patience give up at the gateway, counted abandoned",
          "[pd-classes][gateway][patience][disagg][closed_form]") {
  // The flow-control case above without classes: the k-th computed prompt (k = 0..19)
  // has its first token at (k + 1) P + T. Patience D = 6.5 P + T (fixed; all arrive at 0):
  // k = 0..5 finish (k + 1 <= 6.5); k = 6 gives up during its prefill (it started at 6 P,
  // D - 6 P = 0.5 P + T < P), k = 7 in the prefill queue (sent on at 6 P), k = 8..19 while
  // the gateway holds them: 6 complete, 14 abandoned, each after exactly D.
  const std::string base = fmt::format(
      "workload:\n  requests: 20\n  arrival: {{process: all_at_once}}\n"
      "  input_tokens: {{dist: fixed, value: {}}}\n  output_tokens: {{dist: fixed, value: 10}}\n",
      kPrompt);
  const Scenario probe = pd_scenario("", base + "gateway: {queue_threshold: 1}\n");
  const Nanos p = prefill_step(probe), t = transfer();
  REQUIRE(t < p / 2);
  const double d_ms = static_cast<double>(13 * p / 2 + t) * kNsInMs;
  const Scenario sc = pd_scenario(
      "", base + fmt::format("  patience: {{dist: fixed, value: {} ms}}\ngateway: {{queue_threshold: 1}}\n", d_ms));
  const SimulationResult r = simulate(sc);
  CHECK(r.summary.completed == 6);
  CHECK(r.summary.failures[static_cast<std::size_t>(FailureReason::abandoned)] == 14);
  CHECK(r.summary.abandoned_wait_ms.min == Approx(d_ms).epsilon(1e-6));
  CHECK(r.summary.abandoned_wait_ms.max == Approx(d_ms).epsilon(1e-6));
  CHECK(r.summary.disaggregation->transfers == 6);  // no abandoned request's KV crossed
  CHECK(summary_json(simulate(sc).summary).dump() == summary_json(r.summary).dump());
}
