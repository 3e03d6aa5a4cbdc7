// Request classes and the gateway (workload.classes, gateway:): the class draw by
// share, the token bucket's arithmetic, flow control's hold / shed / queue-full and
// its release order, per-class SLO and goodput, the priority order end to end, an
// engine preempting the lowest priority first, and the config errors.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <string>

#include "config/config_node.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "metrics/summary_json.h"
#include "run/gateway.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"
#include "workload/patience.h"
#include "workload/request_classes.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

RequestClassSpec make_class(std::string name, double share, int priority) {
  RequestClassSpec c;
  c.name = std::move(name);
  c.share = share;
  c.priority = priority;
  return c;
}

Request at(std::int64_t id, double t_s) {
  Request r;
  r.id = id;
  r.arrival = to_nanos(t_s);
  r.input_tokens = 100;
  r.output_tokens = 10;
  return r;
}

// Llama-3.1-8B on one H100, front-end latency 0 (the closed forms are the engine core's).
Scenario load(const std::string& rest) {
  const std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                           "engine: {frontend_latency: 0 ms, max_num_seqs: 1}\n" + rest;
  return parse_scenario(parse_yaml_text(text), "classes.yaml", true);
}

}  // namespace

TEST_CASE("classes: each request's class is drawn by share, a session's turns share one", "[classes]") {
  const ClassAssignment a({make_class("a", 0.25, 1), make_class("b", 0.75, 0)}, 7);
  const int n = 100000;
  int in_a = 0;
  for (int id = 0; id < n; ++id) in_a += a.of(id) == 0;
  // Binomial(100000, 0.25): sd = sqrt(0.25 x 0.75 / 1e5) = 0.00137; 4 sd = 0.0055.
  CHECK(std::abs(in_a / static_cast<double>(n) - 0.25) < 0.0055);
  // The same (seed, id) always gives the same class; every turn of session 3 is in one class.
  CHECK(a.of(12345) == ClassAssignment({make_class("a", 0.25, 1), make_class("b", 0.75, 0)}, 7).of(12345));
  for (int id = 0; id < 50; ++id) CHECK(a.of(id, 3) == a.of(0, 3));
  CHECK(a.ranked());
  CHECK_FALSE(ClassAssignment({make_class("x", 0.5, 2), make_class("y", 0.5, 2)}, 1).ranked());
}

TEST_CASE("gateway: a token bucket of burst 5 refilled at 10/s", "[classes][gateway]") {
  RequestClassSpec c = make_class("api", 1.0, 0);
  c.rate_limit = 10;
  c.burst = 5;
  const ClassAssignment classes({c}, 1);
  Gateway g(classes, std::nullopt);
  // 20 requests at t = 0: the full bucket lets 5 through, 15 fail.
  int sent = 0, limited = 0;
  for (int id = 0; id < 20; ++id) {
    const Gateway::Decision d = g.admit(at(id, 0), 0, false);
    sent += d.verdict == Gateway::Verdict::send;
    limited += d.why == FailureReason::rate_limited;
  }
  CHECK(sent == 5);
  CHECK(limited == 15);
  // Then one request every 50 ms (20/s) for 10 s: the bucket gains 0.5 token per
  // arrival, so every second request finds a token: 200 arrivals, 100 sent.
  sent = 0;
  for (int k = 1; k <= 200; ++k) {
    const Nanos t = to_nanos(0.05 * k);
    sent += g.admit(at(100 + k, 0.05 * k), t, false).verdict == Gateway::Verdict::send;
  }
  CHECK(sent == 100);
}

TEST_CASE("gateway: saturated, it holds by priority, sheds the sheddable, caps a class's queue", "[classes][gateway]") {
  RequestClassSpec high = make_class("high", 1.0 / 3, 10), low = make_class("low", 1.0 / 3, 0),
                   shed = make_class("shed", 1.0 / 3, -1);
  low.max_queue = 2;
  const ClassAssignment classes({high, low, shed}, 3);
  Gateway g(classes, GatewaySpec{});
  // Not saturated: everything is sent on, whatever its class.
  for (int id = 0; id < 30; ++id) CHECK(g.admit(at(id, 0), 0, false).verdict == Gateway::Verdict::send);
  // Saturated: the ids of each class, held or failed as their class says.
  std::vector<std::int64_t> held_high, held_low;
  int shed_count = 0, full = 0;
  for (std::int64_t id = 100; id < 160; ++id) {
    const int c = classes.of(id);
    const Gateway::Decision d = g.admit(at(id, 1), to_nanos(1), true);
    if (c == 2) {
      CHECK(d.why == FailureReason::shed);
      ++shed_count;
    } else if (d.verdict == Gateway::Verdict::hold) {
      (c == 0 ? held_high : held_low).push_back(id);
      g.hold(at(id, 1), to_nanos(1));
    } else {
      CHECK(c == 1);
      CHECK(d.why == FailureReason::gateway_queue_full);
      ++full;
    }
  }
  REQUIRE(shed_count > 0);
  CHECK(held_low.size() == 2);  // max_queue
  CHECK(full > 0);
  // Release: every high-priority request first, in arrival order, then the low ones.
  std::vector<std::int64_t> order;
  while (g.holding()) order.push_back(g.release(to_nanos(2)).id);
  std::vector<std::int64_t> expected = held_high;
  expected.insert(expected.end(), held_low.begin(), held_low.end());
  CHECK(order == expected);
  const auto report = g.report();
  CHECK(report[0].held == static_cast<std::int64_t>(held_high.size()));
  CHECK(report[1].held_peak == 2);
  CHECK(report[0].held_wait_max_ms == Approx(1000.0));  // held at 1 s, released at 2 s
}

TEST_CASE("classes end to end: the gateway serves the higher priority first, and each class has its own SLO",
          "[classes][gateway]") {
  // 20 identical requests at t = 0 on one replica that runs one at a time
  // (max_num_seqs 1); the gateway holds whatever would wait in the replica's queue
  // (queue_threshold 1), so the replica serves them one after another, request 0 (sent
  // before the replica was saturated) first, then every `high` request, then every `low`.
  const Scenario sc = load(
      "workload:\n"
      "  requests: 20\n"
      "  arrival: {process: all_at_once}\n"
      "  input_tokens: {dist: fixed, value: 200}\n"
      "  output_tokens: {dist: fixed, value: 20}\n"
      "  classes:\n"
      "    - {name: high, share: 0.5, priority: 5, slo: {e2e_ms: {p99: 100000}}}\n"
      "    - {name: low, share: 0.5, priority: 0, slo: {e2e_ms: {p50: 0.001}}}\n"
      "gateway: {queue_threshold: 1}\n");
  RequestResults results;
  SimulationOptions opts;
  opts.request_results = &results;
  const SimulationResult r = simulate(sc, opts);
  REQUIRE(r.summary.completed == 20);
  REQUIRE(r.summary.classes.size() == 2);
  const ClassAssignment classes(sc.workload.classes, sc.workload.seed);
  double last_high = 0, first_low = 1e300;
  for (const RequestResult& q : results) {
    if (q.id == 0) continue;
    if (classes.of(q.id) == 0) last_high = std::max(last_high, q.e2e_ms);
    else first_low = std::min(first_low, q.e2e_ms);
  }
  CHECK(last_high < first_low);
  // Requests are served back to back: the k-th finishes at k x the service time S, so the
  // slowest takes 20 S; every one waited at the gateway except request 0.
  const double s_ms = r.summary.e2e_ms.min;
  CHECK(r.summary.e2e_ms.max == Approx(20 * s_ms).epsilon(1e-6));
  const ClassReport& high = r.summary.classes[0];
  const ClassReport& low = r.summary.classes[1];
  CHECK(high.completed + low.completed == 20);
  CHECK(high.gateway.held + low.gateway.held == 19);
  // high's SLO (E2E p99 below 100 s) is met by every one of its requests; low's (a
  // median of 1 us) by none: attainment 1 and 0, and goodput = high's requests / duration.
  CHECK(high.slo_met);
  CHECK(high.slo_attainment == 1.0);
  CHECK_FALSE(low.slo_met);
  CHECK(low.slo_attainment == 0.0);
  CHECK(high.goodput_rps == Approx(high.completed / r.summary.duration_s));
  // Deterministic: the same scenario, the same bytes.
  CHECK(summary_json(simulate(sc).summary).dump() == summary_json(r.summary).dump());
}

TEST_CASE("classes end to end: a rate limit fails what the bucket refuses, counted per class", "[classes][gateway]") {
  // 30 requests at once, one class limited to a burst of 10 at 1/s: 20 fail at t = 0.
  const Scenario sc = load(
      "workload:\n"
      "  requests: 30\n"
      "  arrival: {process: all_at_once}\n"
      "  input_tokens: {dist: fixed, value: 100}\n"
      "  output_tokens: {dist: fixed, value: 10}\n"
      "  classes: [{name: api, share: 1, rate_limit: 1, burst: 10}]\n");
  const SimulationResult r = simulate(sc);
  CHECK(r.summary.completed == 10);
  CHECK(r.summary.failed == 20);
  CHECK(r.summary.failures[static_cast<std::size_t>(FailureReason::rate_limited)] == 20);
  REQUIRE(r.summary.classes.size() == 1);
  CHECK(r.summary.classes[0].failures[static_cast<std::size_t>(FailureReason::rate_limited)] == 20);
  CHECK_FALSE(r.summary.slo_met);  // failures are never a met SLO
}

TEST_CASE("classes: an engine out of KV preempts the lowest priority first", "[classes][engine]") {
  // A KV cache of 40 blocks of 16 tokens (640 tokens): two requests of 300 + 300 tokens
  // cannot both finish in it, so one is preempted. Without priorities it is the newest
  // admitted (request 1); with them, the lower-priority one, whichever it is.
  // A seed that puts requests 0 and 1 in different classes (the draw is by share):
  int seed = 0;
  for (int s = 1; s < 100 && seed == 0; ++s) {
    const ClassAssignment probe({make_class("a", 0.5, 0), make_class("b", 0.5, 1)}, static_cast<std::uint64_t>(s));
    if (probe.of(0) != probe.of(1)) seed = s;
  }
  REQUIRE(seed > 0);
  const auto run = [&](const std::string& a_priority) {
    const Scenario sc = parse_scenario(
        parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                        "engine: {frontend_latency: 0 ms, num_gpu_blocks_override: 40, prefix_caching: false}\n"
                        "workload:\n  seed: " + std::to_string(seed) + "\n  requests: 2\n"
                        "  arrival: {process: all_at_once}\n"
                        "  input_tokens: {dist: fixed, value: 300}\n  output_tokens: {dist: fixed, value: 300}\n"
                        "  classes: [{name: a, share: 0.5, priority: " + a_priority +
                        "}, {name: b, share: 0.5, priority: 1}]\n"),
        "p.yaml", true);
    RequestResults results;
    SimulationOptions opts;
    opts.request_results = &results;
    simulate(sc, opts);
    const ClassAssignment classes(sc.workload.classes, sc.workload.seed);
    std::map<int, int> preemptions_by_class{{0, 0}, {1, 0}};
    for (const RequestResult& q : results) preemptions_by_class[classes.of(q.id)] += q.preemptions;
    return preemptions_by_class;
  };
  // Class a (priority 0) below b (1): a's request is the one preempted; a at 2, above b: b's.
  const auto a_low = run("0"), a_high = run("2");
  CHECK(a_low.at(0) > 0);
  CHECK(a_low.at(1) == 0);
  CHECK(a_high.at(1) > 0);
  CHECK(a_high.at(0) == 0);
}

TEST_CASE("classes: config errors name the key", "[classes][config]") {
  const std::string w = "workload:\n  requests: 10\n  arrival: {process: poisson, rate: 1}\n"
                        "  input_tokens: {dist: fixed, value: 10}\n  output_tokens: {dist: fixed, value: 10}\n";
  CHECK_THAT(error_of([&] { load(w + "  classes: [{name: a, share: 0.5}, {name: b, share: 0.4}]\n"); }),
             Catch::Contains("shares add to 0.9, not 1"));
  CHECK_THAT(error_of([&] { load(w + "  classes: [{name: a, share: 0.5}, {name: a, share: 0.5}]\n"); }),
             Catch::Contains("a second class named 'a'"));
  CHECK_THAT(error_of([&] { load(w + "  classes: [{name: '=HYPERLINK(1)', share: 1}]\n"); }),
             Catch::Contains("is not a class name"));
  CHECK_THAT(error_of([&] { load(w + "  classes: [{name: a, share: 1, max_queue: 5}]\n"); }),
             Catch::Contains("add a `gateway:` section"));
  CHECK_THAT(error_of([&] { load(w + "  classes: [{name: a, share: 1, burst: 5}]\n"); }),
             Catch::Contains("give rate_limit too"));
  CHECK_THAT(error_of([&] { load(w + "  classes: [{name: a, share: 1, slo: {itl_ms: {p99: 5}}}]\n"); }),
             Catch::Contains("limit tpot_ms instead"));
  CHECK_THAT(error_of([&] { load(w + "  classes: [{name: a, share: 1, priorty: 5}]\n"); }),
             Catch::Contains("priority"));
  CHECK_THAT(error_of([&] { load(w + "gateway: {kv_threshold: 1.5}\n"); }), Catch::Contains("kv_threshold"));
  // (Patience behind a gateway runs co-located: the tests below. With disaggregation it
  // is refused: test_pd_classes.cpp.)
}

TEST_CASE("gateway: held users give up at their deadline, earliest first, and stop counting", "[classes][gateway][patience]") {
  // Patience fixed at 2 s: requests held at 1.0 s (ids 1, 2) and 1.5 s (id 3), arrived
  // then, give up at 3.0 s and 3.5 s. Release before that takes id 1; at 3.0 s only id 2
  // is due (id 1 is gone), at 3.5 s id 3.
  const ClassAssignment classes({make_class("all", 1.0, 0)}, 1);
  PatienceSpec spec;
  spec.value_s = 2.0;
  const Patience patience(spec, 1);
  Gateway g(classes, GatewaySpec{});
  g.set_patience(&patience);
  for (std::int64_t id : {1, 2}) g.hold(at(id, 1.0), to_nanos(1.0));
  g.hold(at(3, 1.5), to_nanos(1.5));
  CHECK(g.next_deadline() == to_nanos(3.0));
  CHECK(g.release(to_nanos(2.0)).id == 1);
  std::vector<Request> gone;
  g.give_up_due(to_nanos(2.9), gone);
  CHECK(gone.empty());
  g.give_up_due(to_nanos(3.0), gone);
  REQUIRE(gone.size() == 1);
  CHECK(gone[0].id == 2);
  CHECK(g.held() == 1);
  CHECK(g.next_deadline() == to_nanos(3.5));
  g.give_up_due(to_nanos(10.0), gone);
  REQUIRE(gone.size() == 2);
  CHECK(gone[1].id == 3);
  CHECK_FALSE(g.holding());
  CHECK(g.next_deadline() == std::numeric_limits<Nanos>::max());
  // Waits counted to the deadline: id 2 held 1.0 -> 3.0 s, the longest.
  CHECK(g.report()[0].held_wait_max_ms == Approx(2000.0));
}

TEST_CASE("gateway end to end: users held past their patience give up there, counted abandoned",
          "[classes][gateway][patience]") {
  // 20 identical requests at t = 0, one served at a time (max_num_seqs 1), the gateway
  // holding all but what the replica queues (queue_threshold 1). Without patience the
  // k-th served (k = 0..19) finishes at (k + 1) S and has its first token at k S + F
  // (S the service time, F its first token's time; S and F read off that run).
  const std::string base =
      "workload:\n"
      "  requests: 20\n"
      "  arrival: {process: all_at_once}\n"
      "  input_tokens: {dist: fixed, value: 200}\n"
      "  output_tokens: {dist: fixed, value: 20}\n";
  const SimulationResult free = simulate(load(base + "gateway: {queue_threshold: 1}\n"));
  REQUIRE(free.summary.completed == 20);
  const double s_ms = free.summary.e2e_ms.min, f_ms = free.summary.ttft_ms.min;
  // Patience T = 5.5 S: those with k S + F <= T finish, k <= (T - F) / S = 5.5 - F / S,
  // so k = 0..5 (F < S / 2 here: 20 decode steps follow the prompt): 6 complete, 14 give
  // up, each at T, most of them held at the gateway at that instant.
  REQUIRE(f_ms < s_ms / 2);
  const double t_ms = 5.5 * s_ms;
  const Scenario sc = load(base + fmt::format("  patience: {{dist: fixed, value: {} ms}}\n", t_ms) +
                           "gateway: {queue_threshold: 1}\n");
  const SimulationResult r = simulate(sc);
  CHECK(r.summary.completed == 6);
  CHECK(r.summary.failures[static_cast<std::size_t>(FailureReason::abandoned)] == 14);
  CHECK(r.summary.ttft_ms.max <= t_ms);
  // Every user who gave up waited exactly T.
  CHECK(r.summary.abandoned_wait_ms.min == Approx(t_ms).epsilon(1e-6));
  CHECK(r.summary.abandoned_wait_ms.max == Approx(t_ms).epsilon(1e-6));
  // Deterministic: the same scenario, the same bytes.
  CHECK(summary_json(simulate(sc).summary).dump() == summary_json(r.summary).dump());
}

namespace {
// load(), with the engine's waiting queue in priority order (engine.scheduling_policy).
Scenario load_with_policy(const std::string& policy, const std::string& rest) {
  const std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                           "engine: {frontend_latency: 0 ms, max_num_seqs: 1, scheduling_policy: " + policy + "}\n" +
                           rest;
  return parse_scenario(parse_yaml_text(text), "classes.yaml", true);
}
// 20 identical requests at t = 0 in two classes (high: priority 5, low: 0).
const std::string kTwentyAtOnce =
    "workload:\n"
    "  requests: 20\n"
    "  arrival: {process: all_at_once}\n"
    "  input_tokens: {dist: fixed, value: 200}\n"
    "  output_tokens: {dist: fixed, value: 20}\n"
    "  classes:\n"
    "    - {name: high, share: 0.5, priority: 5}\n"
    "    - {name: low, share: 0.5, priority: 0}\n";
}  // namespace

TEST_CASE("classes: scheduling_policy priority, the engine's own queue serves the higher priority first",
          "[classes][engine]") {
  // 20 identical requests at t = 0, no gateway: all wait in the replica's own queue, which
  // runs one at a time (max_num_seqs 1). In priority order every `high` request finishes
  // before any `low` one; first come first served interleaves them by id. Either way the
  // k-th finishes at k x the service time S.
  auto order = [&](const std::string& policy) {
    const Scenario sc = load_with_policy(policy, kTwentyAtOnce);
    RequestResults results;
    SimulationOptions opts;
    opts.request_results = &results;
    const SimulationResult r = simulate(sc, opts);
    REQUIRE(r.summary.completed == 20);
    CHECK(r.summary.e2e_ms.max == Approx(20 * r.summary.e2e_ms.min).epsilon(1e-6));
    const ClassAssignment classes(sc.workload.classes, sc.workload.seed);
    double last_high = 0, first_low = 1e300;
    std::int64_t highs = 0;
    for (const RequestResult& q : results) {
      if (classes.of(q.id) == 0) {
        last_high = std::max(last_high, q.e2e_ms);
        ++highs;
      } else {
        first_low = std::min(first_low, q.e2e_ms);
      }
    }
    REQUIRE(highs > 0);
    REQUIRE(highs < 20);
    return std::pair<double, double>{last_high, first_low};
  };
  const auto [prio_last_high, prio_first_low] = order("priority");
  CHECK(prio_last_high < prio_first_low);
  const auto [fcfs_last_high, fcfs_first_low] = order("fcfs");
  CHECK(fcfs_last_high > fcfs_first_low);  // some low request (a lower id) went before a high one
}

TEST_CASE("classes: scheduling_policy priority needs classes of different priorities", "[classes][config]") {
  const std::string w = "workload:\n  requests: 10\n  arrival: {process: poisson, rate: 1}\n"
                        "  input_tokens: {dist: fixed, value: 10}\n  output_tokens: {dist: fixed, value: 10}\n";
  CHECK_THAT(error_of([&] { load_with_policy("priority", w); }), Catch::Contains("different priorities"));
  CHECK_THAT(error_of([&] {
               load_with_policy("priority", w + "  classes: [{name: a, share: 0.5}, {name: b, share: 0.5}]\n");
             }),
             Catch::Contains("different priorities"));
  CHECK_THAT(error_of([&] {
               load_with_policy("priority", w +
                                                "  classes: [{name: a, share: 0.5, priority: 1}, {name: b, share: 0.5}]\n"
                                                "disaggregation: {prefill: {replicas: 1}, decode: {replicas: 1}, "
                                                "transfer: {bandwidth: 50 GB/s, latency: 20 us}}\n");
             }),
             Catch::Equals("<no error>"));  // classes with disaggregation run (tests/unit/test_pd_classes.cpp)
  CHECK_THAT(error_of([&] { load_with_policy("prio", w); }), Catch::Contains("priority"));
}

TEST_CASE("classes: requests.csv names each request's class in a last column", "[classes][csv]") {
  // 200 requests in two classes of shares 0.3 / 0.7: every row ends in one of the
  // names, each row's class is the one the assignment draws for its id, and the rows
  // of each class number what the per-class summary counts.
  const Scenario sc = load(
      "workload:\n"
      "  seed: 3\n"
      "  requests: 200\n"
      "  arrival: {process: poisson, rate: 50}\n"
      "  input_tokens: {dist: fixed, value: 100}\n"
      "  output_tokens: {dist: fixed, value: 10}\n"
      "  classes: [{name: batch, share: 0.3}, {name: chat.v2, share: 0.7}]\n");
  std::ostringstream csv;
  SimulationOptions o;
  o.requests_csv = &csv;
  const SimulationResult r = simulate(sc, o);
  std::istringstream in(csv.str());
  std::string line;
  std::getline(in, line);
  CHECK(line.substr(line.size() - 13) == "failure,class");
  const ClassAssignment assign(sc.workload.classes, sc.workload.seed);
  std::map<std::string, std::int64_t> rows;
  while (std::getline(in, line)) {
    const std::string name = line.substr(line.rfind(',') + 1);
    const std::int64_t id = std::stoll(line.substr(0, line.find(',')));
    CHECK(name == assign.specs()[static_cast<std::size_t>(assign.of(id, -1))].name);
    ++rows[name];
  }
  REQUIRE(r.summary.classes.size() == 2);
  CHECK(rows["batch"] == r.summary.classes[0].completed + r.summary.classes[0].failed);
  CHECK(rows["chat.v2"] == r.summary.classes[1].completed + r.summary.classes[1].failed);
  CHECK(rows["batch"] + rows["chat.v2"] == 200);
  // A run without classes keeps the file as it was: no class column.
  std::ostringstream plain;
  SimulationOptions p;
  p.requests_csv = &plain;
  simulate(load("workload: {requests: 5, arrival: {process: all_at_once}, input_tokens: {dist: fixed, value: 100}, "
                "output_tokens: {dist: fixed, value: 10}}\n"),
           p);
  CHECK(plain.str().substr(0, plain.str().find('\n')).find("class") == std::string::npos);
}

TEST_CASE("classes: scheduling_policy priority with patience, the low priority gives up", "[classes][engine][patience]") {
  // Without patience the k-th request served finishes at k x S (S: one request's service
  // time, e2e min) and has its first token at (k - 1) S + T (T: its TTFT alone, < S / 2).
  // With a patience of 12.5 S a request whose first token would come after 12.5 S gives up:
  // (k - 1) S + T > 12.5 S  <=>  k >= 14 (T < S / 2), so 13 complete and 7 give up. In
  // priority order the 13 served are every `high` request and the first `low` ones: every
  // request that gives up is `low`, and the 13 complete at S, 2S, ..., 13S as without
  // patience (those waiting leave without taking a step).
  const Scenario base = load_with_policy("priority", kTwentyAtOnce);
  const SimulationResult alone = simulate(base, SimulationOptions{});
  REQUIRE(alone.summary.completed == 20);
  const double s_ms = alone.summary.e2e_ms.min;
  REQUIRE(alone.summary.ttft_ms.min < s_ms / 2);
  const std::string patience = fmt::format("  patience: {{dist: fixed, value: {} ms}}\n", 12.5 * s_ms);
  auto run = [&](const std::string& policy) {
    const Scenario sc = load_with_policy(policy, kTwentyAtOnce + patience);
    RequestResults results;
    SimulationOptions opts;
    opts.request_results = &results;
    const SimulationResult r = simulate(sc, opts);
    CHECK(r.summary.completed == 13);
    CHECK(r.summary.e2e_ms.max == Approx(13 * s_ms).epsilon(1e-6));
    const ClassAssignment classes(sc.workload.classes, sc.workload.seed);
    std::int64_t gave_up = 0, high_gave_up = 0, highs = 0;
    for (const RequestResult& q : results) {
      highs += classes.of(q.id) == 0;
      if (!q.failed) continue;
      ++gave_up;
      high_gave_up += classes.of(q.id) == 0;
    }
    CHECK(gave_up == 7);
    REQUIRE(highs > 0);
    REQUIRE(highs <= 13);
    return high_gave_up;
  };
  CHECK(run("priority") == 0);
  // First come first served: the 7 that give up are the last 7 ids, whatever their class.
  const Scenario fcfs = load_with_policy("fcfs", kTwentyAtOnce);
  const ClassAssignment classes(fcfs.workload.classes, fcfs.workload.seed);
  std::int64_t high_in_last_7 = 0;
  for (std::int64_t id = 13; id < 20; ++id) high_in_last_7 += classes.of(id) == 0;
  CHECK(run("fcfs") == high_in_last_7);
}

TEST_CASE("classes: scheduling_policy priority with LoRA adapters keeps the priority order", "[classes][engine][lora]") {
  // With as many GPU adapter slots as adapters no request is passed over (0 skips), and the
  // order is the priority order as without adapters: every `high` request finishes before
  // any `low` one. (Not k x S: an adapter's first request also waits for its load.)
  const std::string lora = "  lora: {adapters: 4, rank: 16}\n";
  const std::string engine_lora = "  lora: {max_loras: 4, max_lora_rank: 16}\n";
  const std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                           "engine:\n  frontend_latency: 0 ms\n  max_num_seqs: 1\n  scheduling_policy: priority\n" +
                           engine_lora + kTwentyAtOnce + lora;
  const Scenario sc = parse_scenario(parse_yaml_text(text), "classes.yaml", true);
  RequestResults results;
  SimulationOptions opts;
  opts.request_results = &results;
  const SimulationResult r = simulate(sc, opts);
  REQUIRE(r.summary.completed == 20);
  REQUIRE(r.summary.lora.has_value());
  CHECK(r.summary.lora->skips == 0);
  CHECK(r.summary.lora->delayed_requests == 0);
  CHECK(r.summary.lora->gpu_loads <= 4);  // each adapter loaded once at most: 4 slots hold all 4
  const ClassAssignment classes(sc.workload.classes, sc.workload.seed);
  double last_high = 0, first_low = 1e300;
  for (const RequestResult& q : results) {
    if (classes.of(q.id) == 0) last_high = std::max(last_high, q.e2e_ms);
    else first_low = std::min(first_low, q.e2e_ms);
  }
  CHECK(last_high < first_low);
}

TEST_CASE("classes: scheduling_policy priority with scarce LoRA slots counts each passed-over request once",
          "[classes][engine][lora]") {
  // One adapter slot, 8 adapters, 4 sequences at once: requests whose adapter is not the
  // running one are passed over, each counted once however many steps pass it over
  // (delayed <= skips), and every request completes. The same scenario twice gives the
  // same summary (deterministic).
  const std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                           "engine:\n  frontend_latency: 0 ms\n  max_num_seqs: 4\n  scheduling_policy: priority\n"
                           "  lora: {max_loras: 1, max_lora_rank: 16}\n" +
                           kTwentyAtOnce + "  lora: {adapters: 8, rank: 16}\n";
  const Scenario sc = parse_scenario(parse_yaml_text(text), "classes.yaml", true);
  const SimulationResult a = simulate(sc, SimulationOptions{});
  const SimulationResult b = simulate(sc, SimulationOptions{});
  REQUIRE(a.summary.completed == 20);
  REQUIRE(a.summary.lora.has_value());
  CHECK(a.summary.lora->delayed_requests > 0);
  CHECK(a.summary.lora->delayed_requests <= 20);
  CHECK(a.summary.lora->delayed_requests <= a.summary.lora->skips);
  CHECK(b.summary.e2e_ms.mean == a.summary.e2e_ms.mean);
  CHECK(b.summary.lora->skips == a.summary.lora->skips);
}
