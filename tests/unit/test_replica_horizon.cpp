// Each replica's own fast-forward horizon (SimulationOptions::replica_horizon,
// Engine::interrupt): with several replicas a replica's run of identical decode
// steps goes on past other replicas' events and is cut short when a request is
// routed to it, instead of ending at anyone's next event. The cut ends the run where
// a run started with that arrival as its horizon would have ended, so the results
// are those of the shared horizon but for how a run's time rounds when it is split
// into pieces (nanoseconds), which can flip a routing tie and move a request to
// another replica: statistically the same results, not the same bytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

SimulationResult run(const Scenario& sc, bool replica_horizon, std::string* csv = nullptr) {
  std::ostringstream out;
  SimulationOptions o;
  o.replica_horizon = replica_horizon;
  o.requests_csv = &out;
  SimulationResult r = simulate(sc, o);
  if (csv) *csv = out.str();
  return r;
}

// Relative difference |a - b| / b.
double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }

}  // namespace

TEST_CASE("replica horizon: the same results as the shared horizon, statistically, and deterministic",
          "[engine][fast_forward]") {
  for (const char* async : {"true", "false"}) {
    INFO("async_scheduling " << async);
    // 8 replicas at about half load: runs of decode steps between arrivals at each replica.
    auto scenario = [&](int seed) {
      return scenario_from(std::string("{kind: vllm, max_num_seqs: 64, async_scheduling: ") + async + "}",
                           "{seed: " + std::to_string(seed) +
                               ", requests: 4000, arrival: {process: poisson, rate: 80}, "
                               "input_tokens: {dist: lognormal, mean: 800, stddev: 400, max: 4000}, "
                               "output_tokens: {dist: lognormal, mean: 250, stddev: 150, max: 1000}}",
                           "llama-3.1-8b", "{tp: 1, replicas: 8, router: least_outstanding}");
    };
    const Scenario sc = scenario(11);
    std::string a_csv, a2_csv;
    const RunSummary a = run(sc, true, &a_csv).summary;
    (void)run(sc, true, &a2_csv);
    CHECK(a_csv == a2_csv);  // same scenario, same bytes
    // The shared horizon on the same seed and on two others: the replica horizon's
    // result differs from the same seed's by less than the seeds differ among themselves.
    const RunSummary b = run(sc, false).summary;
    const RunSummary b12 = run(scenario(12), false).summary, b13 = run(scenario(13), false).summary;
    CHECK(a.completed == b.completed);
    CHECK(a.output_tokens == b.output_tokens);  // the same requests, every token generated
    auto within_seed_spread = [&](const char* what, auto metric) {
      const double x = metric(a), y = metric(b), y12 = metric(b12), y13 = metric(b13);
      const double spread = std::max({y, y12, y13}) - std::min({y, y12, y13});
      INFO(what << ": replica horizon " << x << ", shared " << y << " (seeds 12, 13: " << y12 << ", " << y13 << ")");
      CHECK(std::abs(x - y) <= spread);
    };
    within_seed_spread("TTFT mean", [](const RunSummary& s) { return s.ttft_ms.mean; });
    within_seed_spread("TTFT p99", [](const RunSummary& s) { return s.ttft_ms.p99; });
    within_seed_spread("TPOT mean", [](const RunSummary& s) { return s.tpot_ms.mean; });
    within_seed_spread("E2E mean", [](const RunSummary& s) { return s.e2e_ms.mean; });
    within_seed_spread("E2E p99", [](const RunSummary& s) { return s.e2e_ms.p99; });
    within_seed_spread("duration", [](const RunSummary& s) { return s.duration_s; });
    within_seed_spread("steps", [](const RunSummary& s) { return static_cast<double>(s.steps); });
    // And the mean per-token time, which routing hardly moves, agrees to 0.1%.
    CHECK(rel(a.tpot_ms.mean, b.tpot_ms.mean) < 0.001);
  }
}

TEST_CASE("replica horizon: one request routed into a running decode run sees it cut, as with the shared horizon",
          "[engine][fast_forward]") {
  // Two replicas, round robin: requests 0 and 2 go to replica 0. Request 0 (long output)
  // decodes alone; request 2 arrives mid-run. Request 1 on replica 1 gives replica 0's run
  // no reason to stop but the arrival itself. Every request's times equal the shared
  // horizon's (no tie for the router to flip: round robin).
  const Scenario sc = scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 1, replicas: 2, router: round_robin}");
  auto source = [] {
    return std::vector<Request>{make_request(0.0, 500, 2000), make_request(0.3, 500, 50),
                                make_request(1.234567, 700, 20)};
  };
  VectorSource s1(source()), s2(source());
  SimulationOptions a, b;
  b.replica_horizon = false;
  RequestResults ra, rb;
  a.request_results = &ra;
  b.request_results = &rb;
  simulate(sc, s1, a);
  simulate(sc, s2, b);
  REQUIRE(ra.size() == 3);
  REQUIRE(rb.size() == 3);
  auto by_id = [](const RequestResult& x, const RequestResult& y) { return x.id < y.id; };
  std::sort(ra.begin(), ra.end(), by_id);
  std::sort(rb.begin(), rb.end(), by_id);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("request " << ra[i].id);
    CHECK(ra[i].replica == rb[i].replica);
    CHECK(ra[i].ttft_ms == Approx(rb[i].ttft_ms).epsilon(1e-9));
    CHECK(ra[i].e2e_ms == Approx(rb[i].e2e_ms).epsilon(1e-6));
  }
}
