// Whole-run properties of the simulator that hold for any workload: Little's law,
// determinism under a seed, conservation of requests (none lost, impossible ones
// failed, never a hang) and fast-forward equivalence.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "run/simulation.h"
#include "test_sim_helpers.h"
#include "config/scenario_reader.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

std::string quickstart_path() { return std::string(SERVESIM_SOURCE_DIR) + "/scenarios/quickstart.yaml"; }

// Integral of N(t) = #{i : arrival_i <= t < finish_i} over [a, b], by sweeping the
// arrival (+1) and finish (-1) events in time order.
double in_flight_integral(const std::vector<CsvRow>& rows, double a, double b) {
  std::vector<std::pair<double, int>> ev;
  ev.reserve(rows.size() * 2);
  for (const auto& r : rows) {
    ev.emplace_back(r.arrival_s, +1);
    ev.emplace_back(r.finish_s(), -1);
  }
  std::sort(ev.begin(), ev.end());
  double area = 0, t_prev = a;
  std::int64_t n = 0;
  for (const auto& [t, d] : ev) {
    const double lo = std::max(t_prev, a), hi = std::min(t, b);
    if (hi > lo) area += static_cast<double>(n) * (hi - lo);
    t_prev = std::max(t_prev, t);
    n += d;
  }
  if (b > t_prev) area += static_cast<double>(n) * (b - std::max(t_prev, a));
  return area;
}

}  // namespace

TEST_CASE("Little's law: time-average number in system = throughput x mean E2E", "[sim][property]") {
  // Llama-3.1-8B on one H100, Poisson at 6 req/s, ~1k-token prompts, ~200-token
  // outputs: a moderate load (batch ~10-20, no saturation, little queueing).
  const Scenario sc = scenario_from("{kind: vllm}",
                                    "{seed: 7, requests: 1500, arrival: {process: poisson, rate: 6}, "
                                    "input_tokens: {dist: lognormal, mean: 1024, stddev: 512, max: 4096}, "
                                    "output_tokens: {dist: uniform, min: 50, max: 350}}");
  const RunWithCsv run = run_with_csv(sc, nullptr);
  const RunSummary& s = run.result.summary;
  REQUIRE(s.completed == 1500);
  REQUIRE(s.failed == 0);
  REQUIRE(run.rows.size() == 1500);

  SECTION("over the whole run, from the CSV sweep vs the summary's throughput and mean E2E") {
    // Every request lies inside [first arrival, last finish] = the summary's duration,
    // so integral N dt = sum of E2E and L = lambda W holds up to formatting: arrival
    // (1 us) and e2e (1 us) are printed rounded, <= 1 us per request on E2E ~ 1 s.
    double t0 = 1e300, t1 = 0;
    for (const auto& r : run.rows) {
      t0 = std::min(t0, r.arrival_s);
      t1 = std::max(t1, r.finish_s());
    }
    CHECK(t1 - t0 == Approx(s.duration_s).epsilon(1e-6));
    const double L = in_flight_integral(run.rows, t0, t1) / (t1 - t0);
    const double lambda = s.requests_per_s;  // completed / duration
    const double W = s.e2e_ms.mean * 1e-3;
    INFO("L = " << L << ", lambda = " << lambda << "/s, W = " << W << " s");
    CHECK(L == Approx(lambda * W).epsilon(1e-5));
    // Moderate load: lambda close to the offered 6/s. 1500 Poisson gaps: the
    // arrival span's relative sd is 1/sqrt(1500) = 2.6%; 4 sd = 10%, plus the drain.
    CHECK(lambda == Approx(6.0).epsilon(0.12));
  }

  SECTION("over a steady-state window, where requests straddle its edges") {
    // Window [a, b] between the 20th and 80th percentile arrivals (~150 s). There
    //   integral_a^b N dt = sum_{arrived in [a,b)} E2E - (tails past b) + (heads from before a),
    // so |L - lambda W| <= E / (b - a), E = time spent inside/outside the window by the
    // requests crossing a or b, each at most W_max: E <= (N(a) + N(b)) W_max.
    // With L ~ 6/s x ~1.5 s ~ 9 in flight and W_max a few s, that is ~ 2 L W_max / 150 s:
    // a few percent. We check the exact edge term (computed from the rows) and a
    // coarse 10% bound derived the same way with N(a), N(b) <= 2 L + 10.
    std::vector<double> arrivals;
    for (const auto& r : run.rows) arrivals.push_back(r.arrival_s);
    std::sort(arrivals.begin(), arrivals.end());
    const double a = arrivals[arrivals.size() / 5], b = arrivals[arrivals.size() * 4 / 5];
    const double len = b - a;
    double sum_w = 0, w_max = 0, edge = 0;
    std::int64_t n = 0;
    for (const auto& r : run.rows) {
      w_max = std::max(w_max, r.e2e_ms * 1e-3);
      const double f = r.finish_s();
      if (r.arrival_s >= a && r.arrival_s < b) {
        ++n;
        sum_w += r.e2e_ms * 1e-3;
        if (f > b) edge += f - b;
      } else if (r.arrival_s < a && f > a) {
        edge += std::min(f, b) - a;
      }
    }
    const double L = in_flight_integral(run.rows, a, b) / len;
    const double lambda = static_cast<double>(n) / len;
    const double W = sum_w / static_cast<double>(n);
    INFO("window " << a << ".." << b << " s: L = " << L << ", lambda W = " << lambda * W << ", edge/len = "
                   << edge / len << ", W_max = " << w_max);
    CHECK(std::abs(L - lambda * W) <= edge / len + 1e-6);
    const double coarse = (2.0 * (2.0 * L + 10.0) * w_max) / len;
    CHECK(std::abs(L - lambda * W) <= coarse * L);
    CHECK(std::abs(L - lambda * W) / L < 0.10);
  }
}

TEST_CASE("same seed gives byte-identical requests.csv, a different seed does not", "[sim][property]") {
  const Scenario a = load_scenario(quickstart_path(), {"workload.requests=300"});
  const Scenario b = load_scenario(quickstart_path(), {"workload.requests=300"});
  const Scenario c = load_scenario(quickstart_path(), {"workload.requests=300", "workload.seed=2"});
  const RunWithCsv ra = run_with_csv(a, nullptr);
  const RunWithCsv rb = run_with_csv(b, nullptr);
  const RunWithCsv rc = run_with_csv(c, nullptr);
  REQUIRE(ra.rows.size() == 300);
  CHECK(ra.csv == rb.csv);
  CHECK(ra.result.summary.e2e_ms.mean == rb.result.summary.e2e_ms.mean);
  CHECK(ra.result.summary.steps == rb.result.summary.steps);
  CHECK(ra.csv != rc.csv);
}

TEST_CASE("no request is lost: completed + failed = generated", "[sim][property]") {
  SECTION("quickstart, 400 requests") {
    const Scenario sc = load_scenario(quickstart_path(), {"workload.requests=400"});
    auto src = make_source(sc);
    REQUIRE(src->expected_total() == 400);
    const RunWithCsv run = run_with_csv(sc, src.get());
    CHECK(run.result.summary.completed + run.result.summary.failed == 400);
    CHECK(run.rows.size() == 400);
    CHECK(src->exhausted());
    // Each id exactly once.
    std::vector<std::int64_t> ids;
    for (const auto& r : run.rows) ids.push_back(r.id);
    std::sort(ids.begin(), ids.end());
    for (std::size_t i = 0; i < ids.size(); ++i) CHECK(ids[i] == static_cast<std::int64_t>(i));
  }

  SECTION("requests longer than max_model_len fail, the rest complete, and the run ends") {
    // max_model_len 2048: prompt + output must fit in 2048 tokens.
    for (const std::string kind : {"vllm", "static"}) {
      INFO("engine " << kind);
      const Scenario sc = scenario_from("{kind: " + kind + ", max_model_len: 2048}");
      std::vector<Request> reqs;
      std::int64_t too_long = 0;
      for (int i = 0; i < 40; ++i) {
        // Every 4th request: 3000-token prompt > 2048. Every 7th: 2000 + 100 > 2048 (output counts).
        const std::int64_t in = i % 4 == 0 ? 3000 : i % 7 == 0 ? 2000 : 500;
        const std::int64_t out = 100;
        too_long += in + out > 2048 ? 1 : 0;
        reqs.push_back(make_request(0.05 * i, in, out));
      }
      REQUIRE(too_long == 14);  // i = 0,4,...,36 (10) and i = 7, 14, 21, 35 (4; 28 is a multiple of 4)
      VectorSource src(reqs);
      const RunWithCsv run = run_with_csv(sc, &src);
      CHECK(run.result.summary.failed == too_long);
      CHECK(run.result.summary.completed == 40 - too_long);
      CHECK(run.rows.size() == 40);
      for (const auto& r : run.rows) CHECK(r.failed == (r.input_tokens + r.output_tokens > 2048));
    }
  }

  SECTION("a workload made only of impossible requests is refused before it runs") {
    // The shortest request is 2000 + 10 = 2010 tokens > max_model_len 1024: every one would fail.
    const Scenario sc = scenario_from("{kind: vllm, max_model_len: 1024}",
                                      "{requests: 50, arrival: {process: poisson, rate: 10}, "
                                      "input_tokens: {dist: fixed, value: 2000}, output_tokens: {dist: fixed, value: 10}}");
    CHECK_THROWS_WITH(simulate(sc, {}), Catch::Contains("every request fails (too_long_for_max_model_len)") &&
                                            Catch::Contains("2000 prompt + 10 output = 2010 tokens"));
    // The same requests from a source the scenario does not describe run, and all fail with the reason.
    std::vector<Request> reqs;
    for (int i = 0; i < 50; ++i) reqs.push_back(make_request(0.1 * i, 2000, 10));
    VectorSource src(reqs);
    const SimulationResult r = simulate(sc, src, {});
    CHECK(r.summary.failed == 50);
    CHECK(r.summary.failures[static_cast<std::size_t>(FailureReason::too_long_for_max_model_len)] == 50);
    CHECK(r.summary.completed == 0);
  }

  SECTION("a request larger than the whole KV cache fails instead of waiting forever") {
    // 8 blocks x 16 tokens = 128 tokens of KV; 200 + 10 needs 14 blocks.
    const Scenario sc = scenario_from("{kind: vllm, num_gpu_blocks_override: 8}");
    VectorSource src({make_request(0.0, 50, 10), make_request(0.0, 200, 10), make_request(1.0, 60, 20)});
    const SimulationResult r = simulate(sc, src, {});
    CHECK(r.summary.failed == 1);
    CHECK(r.summary.completed == 2);
  }
}

TEST_CASE("fast-forward gives the same run as step-by-step decoding", "[sim][property]") {
  // Fused decode runs stop at the next arrival, completion or KV block boundary, and
  // are priced by the trapezoid rule on the (affine) decode-step time: completions
  // are identical and mean TTFT / E2E agree within 0.5%.
  for (const std::string kind : {"vllm", "static"}) {
    INFO("engine " << kind);
    const Scenario sc = load_scenario(quickstart_path(), {"workload.requests=500", "engine.kind=" + kind});
    SimulationOptions ff, slow;
    ff.fast_forward = true;
    slow.fast_forward = false;
    const SimulationResult a = simulate(sc, ff);
    const SimulationResult b = simulate(sc, slow);
    CHECK(a.summary.completed == b.summary.completed);
    CHECK(a.summary.failed == b.summary.failed);
    CHECK(a.summary.output_tokens == b.summary.output_tokens);
    CHECK(a.summary.ttft_ms.mean == Approx(b.summary.ttft_ms.mean).epsilon(0.005));
    CHECK(a.summary.e2e_ms.mean == Approx(b.summary.e2e_ms.mean).epsilon(0.005));
    CHECK(a.summary.tpot_ms.mean == Approx(b.summary.tpot_ms.mean).epsilon(0.005));
    // Scheduling can shift by a step where an arrival lands inside a fused run.
    CHECK(static_cast<double>(a.summary.steps) == Approx(static_cast<double>(b.summary.steps)).epsilon(0.01));
  }
}
