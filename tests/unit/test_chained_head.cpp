// Chained head steps (SimulationOptions::chain_prefill, VllmEngine::start_step): a
// step whose every prompt completes and decodes on, with nothing waiting and no
// decoder finishing, is followed in the same event by the decode step or run after
// it. The schedule must be the one of two events:
//   - one replica (a shared horizon: the chain is made only when no event comes
//     before the head ends): the same bytes, request by request;
//   - several replicas behind a router that reads no KV use (round_robin,
//     least_outstanding): every request's times the same, arrivals during a head
//     cutting what follows it (interrupt) as the step at the head's end would have;
//   - a router that reads KV use (least_kv): the KV of what follows is taken when the
//     head starts rather than when it ends, which can move a request: statistically
//     the same results, and deterministic.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

SimulationResult run(const Scenario& sc, bool chain, std::string* csv = nullptr, RequestResults* results = nullptr) {
  std::ostringstream out;
  SimulationOptions o;
  o.chain_prefill = chain;
  o.requests_csv = &out;
  o.request_results = results;
  SimulationResult r = simulate(sc, o);
  if (csv) *csv = out.str();
  return r;
}

Scenario loaded(const char* async, int replicas, const char* router, int seed, int requests = 3000) {
  // About half load per replica: runs of decode steps between arrivals, and a
  // prefill step per request that the run after it can follow. Outputs from 1 token
  // (finished at the prefill: never chained) up.
  return scenario_from(std::string("{kind: vllm, max_num_seqs: 64, async_scheduling: ") + async + "}",
                       "{seed: " + std::to_string(seed) + ", requests: " + std::to_string(requests) +
                           ", arrival: {process: poisson, rate: " + std::to_string(10 * replicas) +
                           "}, input_tokens: {dist: lognormal, mean: 800, stddev: 400, max: 4000}, "
                           "output_tokens: {dist: uniform, min: 1, max: 400}}",
                       "llama-3.1-8b",
                       "{tp: 1, replicas: " + std::to_string(replicas) + ", router: " + router + "}");
}

std::vector<RequestResult> by_id(RequestResults r) {
  std::sort(r.begin(), r.end(), [](const RequestResult& a, const RequestResult& b) { return a.id < b.id; });
  return r;
}

}  // namespace

TEST_CASE("chained head: one replica gives the same bytes as a step per event", "[engine][fast_forward]") {
  for (const char* async : {"true", "false"}) {
    INFO("async_scheduling " << async);
    const Scenario sc = loaded(async, 1, "round_robin", 5);
    std::string on, off;
    const RunSummary a = run(sc, true, &on).summary, b = run(sc, false, &off).summary;
    CHECK(on == off);
    CHECK(a.steps == b.steps);  // the head's record is reported as its own step
    CHECK(a.ttft_ms.p99 == b.ttft_ms.p99);
    CHECK(a.energy_j == b.energy_j);
  }
}

TEST_CASE("chained head: routers that read no KV use see every request at the same times", "[engine][fast_forward]") {
  for (const char* async : {"true", "false"})
    for (const char* router : {"round_robin", "least_outstanding"}) {
      INFO("async_scheduling " << async << ", router " << router);
      const Scenario sc = loaded(async, 8, router, 7);
      RequestResults ra, rb;
      const RunSummary a = run(sc, true, nullptr, &ra).summary, b = run(sc, false, nullptr, &rb).summary;
      REQUIRE(ra.size() == rb.size());
      const auto x = by_id(ra), y = by_id(rb);
      std::size_t differ = 0;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i].replica != y[i].replica || x[i].ttft_ms != y[i].ttft_ms || x[i].e2e_ms != y[i].e2e_ms) ++differ;
      CHECK(differ == 0);
      CHECK(a.steps == b.steps);
      // Sums over replicas' records in another order: equal to rounding.
      CHECK(a.energy_j == Approx(b.energy_j).epsilon(1e-12));
    }
}

TEST_CASE("chained head: an arrival during the head cuts what follows to the step the head's end would plan",
          "[engine][fast_forward]") {
  // Two replicas, round robin: requests 0, 2 and 4 go to replica 0. Request 0 decodes
  // a long output; request 2 arrives and is prefilled in a step with request 0's
  // decoding (a chainable head: nothing waits, request 0 does not finish); request 4
  // arrives 1 ms after request 2 is queued, during that head (its prefill of 4,000
  // tokens takes well over 1 ms). Replica 1 gets requests 1 and 3 and gives replica
  // 0's run no reason to stop. Every request's times equal those of a step per event.
  for (const char* async : {"true", "false"}) {
    INFO("async_scheduling " << async);
    const Scenario sc = scenario_from(std::string("{kind: vllm, async_scheduling: ") + async + "}", "",
                                      "llama-3.1-8b", "{tp: 1, replicas: 2, router: round_robin}");
    auto source = [] {
      return std::vector<Request>{make_request(0.0, 500, 2000), make_request(0.3, 500, 50),
                                  make_request(1.0, 4000, 30), make_request(1.0005, 300, 40),
                                  make_request(1.001, 200, 20)};
    };
    VectorSource s1(source()), s2(source());
    SimulationOptions a, b;
    b.chain_prefill = false;
    RequestResults ra, rb;
    a.request_results = &ra;
    b.request_results = &rb;
    simulate(sc, s1, a);
    simulate(sc, s2, b);
    REQUIRE(ra.size() == 5);
    REQUIRE(rb.size() == 5);
    const auto x = by_id(ra), y = by_id(rb);
    for (std::size_t i = 0; i < 5; ++i) {
      INFO("request " << x[i].id);
      CHECK(x[i].replica == y[i].replica);
      CHECK(x[i].ttft_ms == y[i].ttft_ms);
      CHECK(x[i].e2e_ms == y[i].e2e_ms);
    }
  }
}

TEST_CASE("chained head: a router that reads KV use gets statistically the same results, deterministically",
          "[engine][fast_forward]") {
  const Scenario sc = loaded("true", 8, "least_kv", 21);
  std::string a_csv, a2_csv;
  const RunSummary a = run(sc, true, &a_csv).summary;
  (void)run(sc, true, &a2_csv);
  CHECK(a_csv == a2_csv);  // same scenario, same bytes
  const RunSummary b = run(sc, false).summary;
  const RunSummary b22 = run(loaded("true", 8, "least_kv", 22), false).summary;
  const RunSummary b23 = run(loaded("true", 8, "least_kv", 23), false).summary;
  CHECK(a.completed == b.completed);
  CHECK(a.output_tokens == b.output_tokens);
  auto within_seed_spread = [&](const char* what, auto metric) {
    const double x = metric(a), y = metric(b), y22 = metric(b22), y23 = metric(b23);
    const double spread = std::max({y, y22, y23}) - std::min({y, y22, y23});
    INFO(what << ": chained " << x << ", a step per event " << y << " (seeds 22, 23: " << y22 << ", " << y23 << ")");
    CHECK(std::abs(x - y) <= spread);
  };
  within_seed_spread("TTFT mean", [](const RunSummary& s) { return s.ttft_ms.mean; });
  within_seed_spread("TTFT p99", [](const RunSummary& s) { return s.ttft_ms.p99; });
  within_seed_spread("TPOT mean", [](const RunSummary& s) { return s.tpot_ms.mean; });
  within_seed_spread("E2E mean", [](const RunSummary& s) { return s.e2e_ms.mean; });
  within_seed_spread("E2E p99", [](const RunSummary& s) { return s.e2e_ms.p99; });
  within_seed_spread("duration", [](const RunSummary& s) { return s.duration_s; });
}
