#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include "util/error.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"
#include "workload/arrival_process.h"
#include "workload/length_distribution.h"
#include "workload/synthetic_source.h"
#include "config/workload_reader.h"
#include "workload/workload_spec.h"

using namespace servesim;
using Catch::Matchers::Contains;

namespace {

WorkloadSpec load(const std::string& yaml) {
  const ConfigNode m_doc = parse_yaml_text(yaml);
  ConfigMap m(m_doc, "test.yaml", "workload");
  return parse_workload(m);
}

LengthSpec load_length(const std::string& yaml) {
  const ConfigNode m_doc = parse_yaml_text(yaml);
  ConfigMap m(m_doc, "test.yaml", "workload.input_tokens");
  return parse_length_distribution(m);
}

// The workload boilerplate around an arrival block.
std::string with_arrival(const std::string& arrival, const std::string& extra = "requests: 1000") {
  // `extra` may set the seed itself (a duplicate key is an error).
  return (extra.find("seed:") == std::string::npos ? "seed: 5\n" : "") + extra + "\narrival: " + arrival +
         "\ninput_tokens: {dist: fixed, value: 100}\noutput_tokens: {dist: fixed, value: 10}\n";
}

std::vector<Request> drain(RequestSource& src) {
  std::vector<Request> out;
  while (auto r = src.next()) out.push_back(*r);
  return out;
}

struct GapStats {
  double mean = 0, var = 0;
};
GapStats gap_stats(const std::vector<Request>& rs) {
  // Gaps from t = 0: every open-loop process starts one gap after its start.
  std::vector<double> gaps;
  Nanos prev = 0;
  for (const auto& r : rs) {
    gaps.push_back(to_seconds(r.arrival - prev));
    prev = r.arrival;
  }
  GapStats s;
  for (double g : gaps) s.mean += g;
  s.mean /= static_cast<double>(gaps.size());
  for (double g : gaps) s.var += (g - s.mean) * (g - s.mean);
  s.var /= static_cast<double>(gaps.size() - 1);
  return s;
}

}  // namespace

TEST_CASE("the example workload parses into plain data", "[workload]") {
  const WorkloadSpec w = load(R"(
seed: 1
requests: 2000
duration: "10 min"
arrival: {process: poisson, rate: 8}
input_tokens: {dist: lognormal, mean: 1024, stddev: 512, max: 8192}
output_tokens: {dist: uniform, min: 64, max: 512}
)");
  REQUIRE(w.seed == 1);
  REQUIRE(w.requests == 2000);
  REQUIRE(w.duration_s.value() == 600.0);
  REQUIRE(w.arrival.kind == ArrivalKind::poisson);
  REQUIRE(w.arrival.rate == 8.0);
  REQUIRE(w.input_tokens.kind == LengthKind::lognormal);
  REQUIRE(w.input_tokens.mean == 1024.0);
  REQUIRE(w.input_tokens.stddev == 512.0);
  REQUIRE(w.input_tokens.min == 1);
  REQUIRE(w.input_tokens.max == 8192);
  REQUIRE(w.output_tokens.kind == LengthKind::uniform);
  REQUIRE(w.output_tokens.min == 64);
  REQUIRE(w.output_tokens.max == 512);
  REQUIRE(describe_length(w.input_tokens) == "lognormal(mean=1024, stddev=512) in [1, 8192]");
  REQUIRE(describe_arrival(w.arrival) == "poisson(rate=8/s)");
}

TEST_CASE("workload errors name the file, line and key", "[workload][errors]") {
  SECTION("unknown key in the workload mapping") {
    REQUIRE_THROWS_WITH(load(with_arrival("{process: poisson, rate: 8}", "requets: 10")),
                        Contains("test.yaml:2:1: workload.requets: unknown key 'requets'") &&
                            Contains("did you mean 'requests'?"));
  }
  SECTION("unknown key inside arrival") {
    REQUIRE_THROWS_WITH(load(with_arrival("{process: poisson, rate: 8, cv: 2}")),
                        Contains("workload.arrival.cv: unknown key 'cv'"));
  }
  SECTION("unknown arrival process") {
    REQUIRE_THROWS_WITH(load(with_arrival("{process: poison, rate: 8}")),
                        Contains("workload.arrival.process: unknown arrival process 'poison'; "
                                 "did you mean 'poisson'?"));
  }
  SECTION("rate out of range") {
    REQUIRE_THROWS_WITH(load(with_arrival("{process: poisson, rate: 0}")),
                        Contains("test.yaml:3:") && Contains("workload.arrival.rate: must be in [1e-07, 1e+09]") &&
                            Contains("got 0"));
    REQUIRE_THROWS_WITH(load(with_arrival("{process: constant, rate: -2}")), Contains("must be in [1e-07, 1e+09]") && Contains("got -2"));
  }
  SECTION("cv out of range") {
    REQUIRE_THROWS_WITH(load(with_arrival("{process: gamma, rate: 1, cv: 0}")),
                        Contains("workload.arrival.cv: must be in [1e-06, 1e+06]") && Contains("got 0"));
  }
  SECTION("users out of range") {
    REQUIRE_THROWS_WITH(load(with_arrival("{process: closed_loop, users: 0}")),
                        Contains("workload.arrival.users: must be in [1, 1000000]") && Contains("got 0"));
  }
  SECTION("zero-length or unbounded stages") {
    REQUIRE_THROWS_WITH(
        load(with_arrival("{process: multi_stage, stages: [{process: poisson, rate: 1, duration: \"0 s\"}]}")),
        Contains("workload.arrival.stages[0].duration: must be in [1 ns, 1e+07 s]") && Contains("got 0 ns"));
    REQUIRE_THROWS_WITH(
        load(with_arrival("{process: multi_stage, stages: [{process: poisson, rate: 1, requests: 0}]}")),
        Contains("workload.arrival.stages[0].requests: must be in [1, 1000000000]") && Contains("got 0"));
    REQUIRE_THROWS_WITH(load(with_arrival("{process: multi_stage, stages: [{process: poisson, rate: 1}]}")),
                        Contains("exactly one of 'duration'"));
    REQUIRE_THROWS_WITH(load(with_arrival("{process: multi_stage, stages: []}")),
                        Contains("non-empty list"));
    REQUIRE_THROWS_WITH(
        load(with_arrival("{process: multi_stage, stages: [{process: closed_loop, users: 2, requests: 3}]}")),
        Contains("'closed_loop' cannot be a stage"));
  }
  SECTION("a run nothing bounds") {
    REQUIRE_THROWS_WITH(load(with_arrival("{process: poisson, rate: 8}", "seed: 5")),
                        Contains("never ends by itself"));
    REQUIRE_THROWS_WITH(load(with_arrival("{process: closed_loop, users: 2}", "seed: 5")),
                        Contains("never ends by itself"));
    REQUIRE_THROWS_WITH(load(with_arrival("{process: all_at_once}", "duration: \"1 s\"")),
                        Contains("all_at_once needs workload.requests"));
  }
  SECTION("missing sections and bad caps") {
    REQUIRE_THROWS_WITH(load("requests: 5\ninput_tokens: {dist: fixed, value: 1}\n"),
                        Contains("missing required key 'workload.arrival'"));
    REQUIRE_THROWS_WITH(load(with_arrival("{process: poisson, rate: 8}", "requests: 0")),
                        Contains("workload.requests: must be in [1, 1000000000]") && Contains("got 0"));
    REQUIRE_THROWS_WITH(load(with_arrival("{process: poisson, rate: 8}", "duration: 10")),
                        Contains("workload.duration") && Contains("has no unit"));
  }
}

TEST_CASE("length distribution errors", "[workload][errors]") {
  REQUIRE_THROWS_WITH(load_length("{dist: lognormla, mean: 5, stddev: 1}"),
                      Contains("test.yaml:1:2: workload.input_tokens.dist: unknown length distribution "
                               "'lognormla'; did you mean 'lognormal'?") &&
                          Contains("valid: fixed, uniform, normal, lognormal, exponential"));
  REQUIRE_THROWS_WITH(load_length("{dist: normal, mean: 5, stddev: -1}"),
                      Contains("workload.input_tokens.stddev: must be >= 0, got -1"));
  REQUIRE_THROWS_WITH(load_length("{dist: exponential, mean: 0}"), Contains("workload.input_tokens.mean: must be in [1, 1e+09]") && Contains("got 0"));
  REQUIRE_THROWS_WITH(load_length("{dist: uniform, min: 10, max: 5}"), Contains("min (10) is greater than max (5)"));
  REQUIRE_THROWS_WITH(load_length("{dist: lognormal, mean: 5, stddev: 1, min: 0}"), Contains("workload.input_tokens.min: must be in [1, 1000000000]") && Contains("got 0"));
  REQUIRE_THROWS_WITH(load_length("{dist: fixed, value: 0}"), Contains("workload.input_tokens.value: must be in [1, 1000000000]") && Contains("got 0"));
  // A key of another distribution is rejected, not silently ignored.
  REQUIRE_THROWS_WITH(load_length("{dist: fixed, value: 3, stddev: 1}"),
                      Contains("workload.input_tokens.stddev: unknown key 'stddev'"));
}

TEST_CASE("length distributions sample integers >= 1 with the configured moments", "[workload]") {
  RandomStream rng(11, "input_tokens");
  constexpr int n = 100000;
  auto stats = [&](const LengthSpec& s, std::int64_t& lo, std::int64_t& hi) {
    double sum = 0;
    lo = INT64_MAX;
    hi = 0;
    for (int i = 0; i < n; ++i) {
      const auto v = sample_length(s, rng);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += static_cast<double>(v);
    }
    return sum / n;
  };
  std::int64_t lo = 0, hi = 0;

  REQUIRE(stats(load_length("{dist: fixed, value: 77}"), lo, hi) == 77.0);

  // Uniform on [64, 512]: mean 288, sd = sqrt((449^2 - 1)/12) = 129.6; 5 SE = 2.05.
  CHECK(stats(load_length("{dist: uniform, min: 64, max: 512}"), lo, hi) == Approx(288).margin(2.05));
  CHECK(lo == 64);
  CHECK(hi == 512);

  // Exponential mean 256: 5 SE = 5 * 256 / sqrt(1e5) = 4.05. Rounding to the
  // nearest integer is unbiased to first order; clipping draws below 0.5 up to 1
  // adds < 0.002 tokens on average.
  CHECK(stats(load_length("{dist: exponential, mean: 256}"), lo, hi) == Approx(256).margin(4.05));
  CHECK(lo >= 1);

  // Lognormal mean 1024 sd 512 clipped at 1500: every sample within the clip.
  stats(load_length("{dist: lognormal, mean: 1024, stddev: 512, max: 1500}"), lo, hi);
  CHECK(hi == 1500);
  CHECK(lo >= 1);
  // Unclipped: mean 1024, 5 SE = 5 * 512 / sqrt(1e5) = 8.1.
  CHECK(stats(load_length("{dist: lognormal, mean: 1024, stddev: 512}"), lo, hi) == Approx(1024).margin(8.1));

  // Normal mean 10 sd 20 clipped below at 5: no sample under the clip.
  stats(load_length("{dist: normal, mean: 10, stddev: 20, min: 5}"), lo, hi);
  CHECK(lo == 5);
  // Zero stddev is the mean, rounded to nearest.
  CHECK(stats(load_length("{dist: normal, mean: 12.6, stddev: 0}"), lo, hi) == 13.0);
}

TEST_CASE("registries list every name with a description", "[workload]") {
  std::vector<std::string> lengths, arrivals;
  for (const auto& [name, desc] : length_distribution_registry()) {
    lengths.push_back(name);
    REQUIRE_FALSE(desc.empty());
  }
  for (const auto& [name, desc] : arrival_process_registry()) {
    arrivals.push_back(name);
    REQUIRE_FALSE(desc.empty());
  }
  REQUIRE(lengths == std::vector<std::string>{"fixed", "uniform", "normal", "lognormal", "exponential"});
  REQUIRE(arrivals == std::vector<std::string>{"poisson", "gamma", "constant", "all_at_once", "closed_loop",
                                               "multi_stage"});
}

TEST_CASE("poisson gaps are exponential with mean 1/rate", "[workload][arrival]") {
  auto src = make_synthetic_source(load(with_arrival("{process: poisson, rate: 8}", "requests: 200000")));
  REQUIRE(src->expected_total() == 200000);
  const auto rs = drain(*src);
  REQUIRE(rs.size() == 200000);
  REQUIRE(src->exhausted());
  // Exp(8): mean 0.125 s, variance 0.125^2; 5 SE of the mean = 5 * 0.125 / sqrt(2e5)
  // = 1.4e-3; of the variance = 5 * sqrt(8/n) / 8^2 = 4.9e-4 (mu4 - sigma^4 = 8/rate^4).
  const GapStats g = gap_stats(rs);
  CHECK(g.mean == Approx(0.125).margin(1.4e-3));
  CHECK(g.var == Approx(0.015625).margin(4.9e-4));
}

TEST_CASE("gamma gaps have mean 1/rate and the requested CV", "[workload][arrival]") {
  auto src = make_synthetic_source(load(with_arrival("{process: gamma, rate: 5, cv: 2}", "requests: 200000")));
  const GapStats g = gap_stats(drain(*src));
  // shape k = 1/cv^2 = 0.25, scale = 1/(rate k) = 0.8: gap mean 0.2 s, variance
  // (cv/rate)^2 = 0.16 (CV 2). 5 SE of the mean = 5 * 0.4 / sqrt(2e5) = 4.5e-3;
  // of the variance = 5 * sqrt((2k^2 + 6k) theta^4 / n) = 5 * 0.64 * sqrt(1.625/2e5) = 9.2e-3.
  CHECK(g.mean == Approx(0.2).margin(4.5e-3));
  CHECK(g.var == Approx(0.16).margin(9.2e-3));
  CHECK(std::sqrt(g.var) / g.mean == Approx(2.0).epsilon(0.05));
}

TEST_CASE("constant gaps are exact", "[workload][arrival]") {
  auto src = make_synthetic_source(load(with_arrival("{process: constant, rate: 4}", "requests: 1000")));
  const auto rs = drain(*src);
  REQUIRE(rs.size() == 1000);
  // Arrival k (0-based) at (k+1)/4 s = (k+1) * 250 ms, exactly.
  for (std::size_t k = 0; k < rs.size(); ++k) REQUIRE(rs[k].arrival == static_cast<Nanos>(k + 1) * 250'000'000);

  // A rate whose gap is not a whole number of ns: each arrival rounds on its own,
  // so arrival k stays within 1 ns of (k+1)/3 s instead of drifting.
  auto third = make_synthetic_source(load(with_arrival("{process: constant, rate: 3}", "requests: 3000")));
  const auto ts = drain(*third);
  REQUIRE(ts.back().arrival == 1'000'000'000'000);
  for (std::size_t k = 0; k < ts.size(); ++k)
    REQUIRE(std::abs(ts[k].arrival - static_cast<Nanos>((k + 1) * 1e9 / 3)) <= 1);
}

TEST_CASE("all_at_once puts every request at t = 0", "[workload][arrival]") {
  auto src = make_synthetic_source(load(with_arrival("{process: all_at_once}", "requests: 100")));
  REQUIRE(src->expected_total() == 100);
  const auto rs = drain(*src);
  REQUIRE(rs.size() == 100);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    REQUIRE(rs[i].arrival == 0);
    REQUIRE(rs[i].id == static_cast<std::int64_t>(i));
    REQUIRE(rs[i].session == -1);
  }
  REQUIRE(src->exhausted());
}

TEST_CASE("multi_stage runs its stages back to back", "[workload][arrival]") {
  const WorkloadSpec w = load(with_arrival(R"({process: multi_stage, stages: [
      {process: poisson, rate: 10, duration: "100 s"},
      {process: constant, rate: 4, duration: "5 s"},
      {process: gamma, rate: 2, cv: 0.5, requests: 30}]})",
                                           "seed: 9"));
  REQUIRE(describe_arrival(w.arrival) ==
          "multi_stage[poisson(rate=10/s) for 100 s, constant(rate=4/s) for 5 s, gamma(rate=2/s, cv=0.5) x 30]");
  auto src = make_synthetic_source(w);
  REQUIRE(src->expected_total() == -1);  // stage 1's count is random
  const auto rs = drain(*src);
  REQUIRE(src->exhausted());

  std::vector<Nanos> s1, s2, s3;
  for (const auto& r : rs) {
    if (r.arrival <= 100'000'000'000) s1.push_back(r.arrival);
    else if (r.arrival <= 105'000'000'000) s2.push_back(r.arrival);
    else s3.push_back(r.arrival);
  }
  // Stage 1: Poisson(rate * duration = 1000) arrivals, sd sqrt(1000) = 31.6; 5 sd = 158.
  CHECK(static_cast<double>(s1.size()) == Approx(1000).margin(158));
  // Stage 2 starts at 100 s: constant, 4/s for 5 s = 20 arrivals at 100.25, ..., 105.0 s.
  REQUIRE(s2.size() == 20);
  for (std::size_t k = 0; k < s2.size(); ++k)
    REQUIRE(s2[k] == 100'000'000'000 + static_cast<Nanos>(k + 1) * 250'000'000);
  // Stage 3 starts at 105 s and stops after its 30 requests.
  REQUIRE(s3.size() == 30);
  for (std::size_t i = 1; i < rs.size(); ++i) REQUIRE(rs[i - 1].arrival <= rs[i].arrival);
}

TEST_CASE("a count stage hands over at its last arrival", "[workload][arrival]") {
  auto src = make_synthetic_source(load(with_arrival(R"({process: multi_stage, stages: [
      {process: constant, rate: 2, requests: 3}, {process: constant, rate: 1, requests: 2}]})",
                                                     "seed: 1")));
  REQUIRE(src->expected_total() == 5);
  std::vector<Nanos> got;
  for (const auto& r : drain(*src)) got.push_back(r.arrival);
  // Stage 1: 0.5, 1.0, 1.5 s; stage 2 starts at 1.5 s: 2.5, 3.5 s.
  REQUIRE(got == std::vector<Nanos>{500'000'000, 1'000'000'000, 1'500'000'000, 2'500'000'000, 3'500'000'000});
}

TEST_CASE("requests and duration caps stop the stream", "[workload]") {
  SECTION("count cap on a multi_stage schedule") {
    auto src = make_synthetic_source(load(with_arrival(
        "{process: multi_stage, stages: [{process: constant, rate: 2, requests: 30}]}", "requests: 7")));
    REQUIRE(src->expected_total() == 7);
    REQUIRE(drain(*src).size() == 7);
    REQUIRE(src->exhausted());
  }
  SECTION("duration cap") {
    auto src = make_synthetic_source(load(with_arrival("{process: poisson, rate: 10}", "duration: \"1 min\"")));
    REQUIRE(src->expected_total() == -1);
    const auto rs = drain(*src);
    REQUIRE(src->exhausted());
    REQUIRE_FALSE(src->next().has_value());
    // Poisson(10/s * 60 s = 600): sd 24.5, 5 sd = 122.
    CHECK(static_cast<double>(rs.size()) == Approx(600).margin(122));
    REQUIRE(rs.back().arrival <= 60'000'000'000);
  }
  SECTION("constant at the duration boundary includes the arrival at exactly the end") {
    auto src = make_synthetic_source(load(with_arrival("{process: constant, rate: 2}", "duration: \"10 s\"")));
    REQUIRE(drain(*src).size() == 20);
  }
}

TEST_CASE("closed loop never has more than `users` requests outstanding", "[workload][closed_loop]") {
  const WorkloadSpec w =
      load(with_arrival("{process: closed_loop, users: 4, think_time: \"500 ms\"}", "requests: 200"));
  SyntheticSource src(w);
  REQUIRE(src.expected_total() == 200);

  // A toy server: each request takes a random 0.1-3 s, any number in parallel.
  RandomStream service(1, "service");
  using Done = std::pair<Nanos, Request>;
  auto later = [](const Done& a, const Done& b) { return a.first > b.first || (a.first == b.first && a.second.id > b.second.id); };
  std::priority_queue<Done, std::vector<Done>, decltype(later)> running(later);
  std::map<std::int32_t, Nanos> last_completion;
  Nanos now = 0, last_arrival = 0;
  std::int64_t count = 0;
  std::size_t max_outstanding = 0;
  for (;;) {
    while (auto r = src.next()) {
      REQUIRE(r->arrival >= now);  // never in the simulated past
      REQUIRE(r->arrival >= last_arrival);
      REQUIRE(r->id == count++);
      REQUIRE(r->session >= 0);
      REQUIRE(r->session < 4);
      // Each later request of a user comes exactly think_time after its previous completion.
      if (last_completion.count(r->session))
        REQUIRE(r->arrival == last_completion[r->session] + 500'000'000);
      else
        REQUIRE(r->arrival == 0);
      last_arrival = r->arrival;
      running.emplace(r->arrival + to_nanos(0.1 + 2.9 * service.uniform01()), *r);
    }
    max_outstanding = std::max(max_outstanding, running.size());
    REQUIRE(running.size() <= 4);
    if (running.empty()) break;
    auto [t, r] = running.top();
    running.pop();
    now = t;
    last_completion[r.session] = t;
    src.on_complete(r, t);
  }
  REQUIRE(count == 200);
  REQUIRE(max_outstanding == 4);
  REQUIRE(src.exhausted());
}

TEST_CASE("closed loop with a duration cap retires users", "[workload][closed_loop]") {
  // 2 users, 1 s service, 1 s think: each sends at 0, 2, 4, 6, 8, 10 s (10 s is
  // still within the cap); its next send at 12 s is past it.
  SyntheticSource src(load(with_arrival("{process: closed_loop, users: 2, think_time: \"1 s\"}",
                                        "duration: \"10 s\"")));
  REQUIRE(src.expected_total() == -1);
  std::vector<Request> all;
  while (!src.exhausted()) {
    std::vector<Request> batch;
    while (auto r = src.next()) batch.push_back(*r);
    REQUIRE_FALSE(batch.empty());
    for (const auto& r : batch) {
      all.push_back(r);
      src.on_complete(r, r.arrival + 1'000'000'000);
    }
  }
  REQUIRE(all.size() == 12);
  REQUIRE(all.back().arrival == 10'000'000'000);
  REQUIRE(all[0].session == 0);
  REQUIRE(all[1].session == 1);
}

TEST_CASE("sources are deterministic and streams are independent", "[workload][determinism]") {
  const std::string lengths =
      "\ninput_tokens: {dist: lognormal, mean: 1024, stddev: 512, max: 8192}"
      "\noutput_tokens: {dist: uniform, min: 64, max: 512}\n";
  const WorkloadSpec a = load("seed: 3\nrequests: 2000\narrival: {process: gamma, rate: 8, cv: 3}" + lengths);
  const auto ra = drain(*make_synthetic_source(a));
  const auto rb = drain(*make_synthetic_source(a));
  REQUIRE(ra.size() == 2000);
  for (std::size_t i = 0; i < ra.size(); ++i) {
    REQUIRE(ra[i].id == rb[i].id);
    REQUIRE(ra[i].arrival == rb[i].arrival);
    REQUIRE(ra[i].input_tokens == rb[i].input_tokens);
    REQUIRE(ra[i].output_tokens == rb[i].output_tokens);
  }

  // Another seed: different arrivals and lengths.
  const auto rc = drain(*make_synthetic_source(
      load("seed: 4\nrequests: 2000\narrival: {process: gamma, rate: 8, cv: 3}" + lengths)));
  int same = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) same += ra[i].input_tokens == rc[i].input_tokens;
  REQUIRE(same < 100);
  REQUIRE(ra.back().arrival != rc.back().arrival);

  // Another arrival process, same seed: the length sequences are untouched.
  const auto rd = drain(*make_synthetic_source(
      load("seed: 3\nrequests: 2000\narrival: {process: constant, rate: 1}" + lengths)));
  for (std::size_t i = 0; i < ra.size(); ++i) {
    REQUIRE(ra[i].input_tokens == rd[i].input_tokens);
    REQUIRE(ra[i].output_tokens == rd[i].output_tokens);
  }
}
