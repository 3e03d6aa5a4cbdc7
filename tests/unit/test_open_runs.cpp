// Open runs (EngineContext::open_runs): with several replicas, a fused decode run
// ends only at its own replica's events and arrivals, so what one replica does
// cannot change another's results, not even by the rounding of where a fused run
// was cut (before, every replica's run ended at every event of any replica).
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// 240 requests 50 ms apart, 256-token prompts, outputs 40..299 tokens (a spread
// of completions, so decode runs end at many different points).
std::vector<Request> requests() {
  std::vector<Request> rs;
  for (int i = 0; i < 240; ++i) rs.push_back(make_request(0.05 * i, 256, 40 + (i * 37) % 260));
  return rs;
}

std::vector<RequestResult> by_arrival(RequestResults rs) {
  std::sort(rs.begin(), rs.end(), [](const RequestResult& a, const RequestResult& b) { return a.arrival_s < b.arrival_s; });
  return rs;
}

}  // namespace

TEST_CASE("a replica's results do not depend on the other replicas' events", "[engine][router][fast_forward]") {
  // Round robin over 2 replicas sends request i to replica i mod 2, so replica 0
  // serves exactly the even requests. One replica given only those requests sees
  // the same arrivals (its fused runs end at the same events): every latency must
  // be the same double, not just close.
  const std::vector<Request> all = requests();
  std::vector<Request> even;
  for (std::size_t i = 0; i < all.size(); i += 2) even.push_back(all[i]);

  const Scenario two = scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 1, replicas: 2, router: round_robin}");
  const Scenario one = scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 1}");
  VectorSource src_two(all), src_one(even);
  const RunWithCsv both = run_with_csv(two, &src_two);
  const RunWithCsv alone = run_with_csv(one, &src_one);

  RequestResults replica0;
  for (const RequestResult& r : both.results)
    if (r.replica == 0) replica0.push_back(r);
  const std::vector<RequestResult> a = by_arrival(replica0), b = by_arrival(alone.results);
  REQUIRE(a.size() == 120);
  REQUIRE(b.size() == 120);
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("request at " << a[i].arrival_s << " s");
    CHECK(a[i].arrival_s == b[i].arrival_s);
    CHECK(a[i].ttft_ms == b[i].ttft_ms);
    CHECK(a[i].tpot_ms == b[i].tpot_ms);
    CHECK(a[i].e2e_ms == b[i].e2e_ms);
    CHECK(a[i].queue_ms == b[i].queue_ms);
  }
}

TEST_CASE("open runs give the same results as unfused steps up to rounding", "[engine][router][fast_forward]") {
  // The cut (cut_run) must leave a run where stepping one step at a time would
  // have: 2 replicas, least_outstanding, fused against unfused. Each fused run's
  // end is rounded to the nanosecond once instead of once per step, so a request's
  // latency may differ by at most about a nanosecond per step it lived through
  // (under 1e-6 ms x 300 steps = 3e-4 ms here); any larger gap is a missed cut.
  const Scenario sc = scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 1, replicas: 2, router: least_outstanding}");
  VectorSource fused_src(requests()), plain_src(requests());
  const RunWithCsv fused = run_with_csv(sc, &fused_src, true);
  const RunWithCsv plain = run_with_csv(sc, &plain_src, false);
  const std::vector<RequestResult> a = by_arrival(fused.results), b = by_arrival(plain.results);
  REQUIRE(a.size() == 240);
  REQUIRE(b.size() == 240);
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("request at " << a[i].arrival_s << " s");
    CHECK(a[i].replica == b[i].replica);
    CHECK(a[i].ttft_ms == Approx(b[i].ttft_ms).margin(3e-4));
    CHECK(a[i].e2e_ms == Approx(b[i].e2e_ms).margin(3e-4));
  }
}
