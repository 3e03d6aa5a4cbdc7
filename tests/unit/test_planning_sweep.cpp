// Sweeps: --vary parsing (lists, ranges, errors), unknown keys with a
// did-you-mean, infeasible points as rows, and output independent of -j.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include "planning/sweep.h"
#include "util/error.h"

using namespace servesim;
using namespace servesim::planning;

namespace {

// Llama-3.1-8B on one H100 with a short synthetic workload: each point runs in milliseconds.
ConfigNode small_doc(int requests = 120) {
  return parse_yaml_text("hardware: {gpu: h100-sxm}\n"
                    "model: {name: llama-3.1-8b}\n"
                    "parallelism: {tp: 1}\n"
                    "engine: {max_num_seqs: 64}\n"
                    "workload:\n"
                    "  seed: 3\n"
                    "  requests: " + std::to_string(requests) + "\n"
                    "  arrival: {process: poisson, rate: 4}\n"
                    "  input_tokens: {dist: uniform, min: 100, max: 400}\n"
                    "  output_tokens: {dist: uniform, min: 20, max: 80}\n"
                    "slo: {ttft_ms: {p99: 500}, tpot_ms: {p99: 50}}\n");
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sweep ranges expand inclusively", "[planning]") {
  CHECK(expand_range("1:5:2", "x") == std::vector<std::string>{"1", "3", "5"});
  CHECK(expand_range("1:6:2", "x") == std::vector<std::string>{"1", "3", "5"});
  CHECK(expand_range("5:1:-2", "x") == std::vector<std::string>{"5", "3", "1"});
  CHECK(expand_range("3:3:1", "x") == std::vector<std::string>{"3"});
  // Decimal steps do not drift (0.1 + 0.2 != 0.3 in binary).
  CHECK(expand_range("0.1:0.5:0.1", "x") == std::vector<std::string>{"0.1", "0.2", "0.3", "0.4", "0.5"});
  const SweepAxis a = parse_vary("workload.arrival.rate=1:5:2");
  CHECK(a.key == "workload.arrival.rate");
  CHECK(a.values == std::vector<std::string>{"1", "3", "5"});
  // Lists, and lists mixing ranges and values.
  CHECK(parse_vary("hardware.gpu=h100-sxm, h200-sxm").values == std::vector<std::string>{"h100-sxm", "h200-sxm"});
  CHECK(parse_vary("engine.max_num_seqs=1:3:1,8").values == std::vector<std::string>{"1", "2", "3", "8"});
  // A YAML flow value keeps its commas.
  CHECK(parse_vary("workload.arrival={process: poisson, rate: 2},{process: constant, rate: 2}").values.size() == 2);
  // Cartesian product: the last axis varies fastest.
  const auto pts = cartesian({parse_vary("a=1,2"), parse_vary("b=x,y,z")});
  REQUIRE(pts.size() == 6);
  CHECK(pts[1] == std::vector<std::string>{"1", "y"});
  CHECK(pts[3] == std::vector<std::string>{"2", "x"});
}

TEST_CASE("sweep rejects bad ranges and empty lists", "[planning]") {
  CHECK_THAT(error_of([] { parse_vary("workload.arrival.rate=1:5:0"); }), Catch::Contains("STEP must not be zero"));
  CHECK_THAT(error_of([] { parse_vary("workload.arrival.rate=5:1:1"); }), Catch::Contains("goes away from STOP"));
  CHECK_THAT(error_of([] { parse_vary("workload.arrival.rate=1:5:-1"); }), Catch::Contains("positive"));
  CHECK_THAT(error_of([] { parse_vary("workload.arrival.rate="); }), Catch::Contains("no values"));
  CHECK_THAT(error_of([] { parse_vary("workload.arrival.rate=1,,2"); }), Catch::Contains("empty value"));
  CHECK_THAT(error_of([] { parse_vary("workload.arrival.rate"); }), Catch::Contains("expected KEY="));
  CHECK_THAT(error_of([] { parse_vary("workload..rate=1"); }), Catch::Contains("malformed key"));
  CHECK_THAT(error_of([] { parse_vary("workload.arrival.rate=1:a:1"); }), Catch::Contains("STOP 'a' is not a number"));
  CHECK_THAT(error_of([] { parse_vary("workload.arrival.rate=1:5"); }), Catch::Contains("without a step"));
}

TEST_CASE("sweep: an unknown key fails before any simulation, with a did-you-mean", "[planning]") {
  SweepOptions opt;
  const std::string e = error_of([&] { run_sweep(small_doc(), "t.yaml", {parse_vary("engine.max_num_seq=8,16")}, opt); });
  CHECK_THAT(e, Catch::Contains("--vary engine.max_num_seq"));
  CHECK_THAT(e, Catch::Contains("unknown key 'max_num_seq'"));
  CHECK_THAT(e, Catch::Contains("did you mean 'max_num_seqs'"));
  // A misspelt top-level section is caught the same way.
  CHECK_THAT(error_of([&] { run_sweep(small_doc(), "t.yaml", {parse_vary("engin.max_num_seqs=8")}, opt); }),
             Catch::Contains("unknown key 'engin'"));
  // A value that fails at every point (a misspelt GPU) is an error, not a column of infeasible rows.
  CHECK_THAT(error_of([&] { run_sweep(small_doc(), "t.yaml", {parse_vary("hardware.gpu=h100-sxm,h100-sxn")}, opt); }),
             Catch::Contains("hardware.gpu=h100-sxn"));
  CHECK_THAT(error_of([&] {
               run_sweep(small_doc(), "t.yaml", {parse_vary("engine.max_num_seqs=8"), parse_vary("engine.max_num_seqs=9")},
                         opt);
             }),
             Catch::Contains("varied twice"));
}

TEST_CASE("sweep: a point whose model does not fit is an infeasible row", "[planning]") {
  SweepOptions opt;
  const auto axes = std::vector<SweepAxis>{parse_vary("model.name=llama-3.1-8b,llama-3.1-70b")};
  const auto pts = run_sweep(small_doc(), "t.yaml", axes, opt);
  REQUIRE(pts.size() == 2);
  CHECK(pts[0].ok);
  CHECK_FALSE(pts[1].ok);
  CHECK_THAT(pts[1].reason, Catch::Contains("does not fit"));
  const std::string csv = sweep_csv(pts, axes);
  CHECK_THAT(csv, Catch::StartsWith("point,model.name,status,reason,"));
  CHECK_THAT(csv, Catch::Contains("\n1,llama-3.1-70b,infeasible,"));
  CHECK_THAT(csv, Catch::Contains("ttft_ms.p99"));
  CHECK_THAT(csv, Catch::Contains("slo.tpot_ms.p99.met"));
  CHECK_THAT(csv, Catch::Contains("cost.usd_per_million_output_tokens"));
}

TEST_CASE("sweep output is the same for -j1 and -j2", "[planning]") {
  const std::vector<SweepAxis> axes = {parse_vary("workload.arrival.rate=2:8:3"), parse_vary("engine.max_num_seqs=16,64")};
  SweepOptions one, two;
  one.threads = 1;
  two.threads = 2;
  std::size_t calls = 0;
  two.progress = [&](std::size_t done, std::size_t total) {
    ++calls;
    CHECK(done <= total);
  };
  const auto a = run_sweep(small_doc(), "t.yaml", axes, one);
  const auto b = run_sweep(small_doc(), "t.yaml", axes, two);
  REQUIRE(a.size() == 6);
  CHECK(calls == 6);
  CHECK(sweep_csv(a, axes) == sweep_csv(b, axes));
  CHECK(sweep_json(a, axes).dump() == sweep_json(b, axes).dump());
  // Higher offered rate, higher throughput (same max_num_seqs).
  CHECK(a[4].result->summary.requests_per_s > a[0].result->summary.requests_per_s);
}

TEST_CASE("sweep: the point count is bounded before anything is made, without overflow", "[planning]") {
  // 1000 x 1000 = 1,000,000 points > the default 100,000: refused naming the shape and --max-points.
  const std::vector<SweepAxis> axes = {parse_vary("workload.arrival.rate=1:1000:1"),
                                       parse_vary("engine.max_num_seqs=1:1000:1")};
  CHECK_THROWS_WITH(sweep_point_count(axes, kDefaultMaxSweepPoints),
                    Catch::Contains("more than 100000 points") && Catch::Contains("1000 x 1000") &&
                        Catch::Contains("--max-points"));
  CHECK(sweep_point_count(axes, 1'000'000) == 1'000'000);
  // Six axes of 1e6 values would be 1e36 points: the check must not wrap size_t first.
  SweepAxis big{"a", std::vector<std::string>(1'000'000, "1")};
  CHECK_THROWS_AS(sweep_point_count({big, big, big, big, big, big}, 100'000'000), Error);
  SweepOptions opt;
  opt.max_points = 5;
  const std::string e = error_of([&] {
    run_sweep(small_doc(), "t.yaml", {parse_vary("workload.arrival.rate=1,2,3"), parse_vary("engine.max_num_seqs=8,16")},
              opt);
  });
  CHECK_THAT(e, Catch::Contains("more than 5 points (3 x 2 values)"));
}

TEST_CASE("sweep: point_values decodes an index as the cartesian order does", "[planning]") {
  const std::vector<SweepAxis> axes = {parse_vary("a=1,2"), parse_vary("b=x,y,z")};
  const auto all = cartesian(axes);
  REQUIRE(all.size() == 6);
  for (std::size_t i = 0; i < all.size(); ++i) CHECK(point_values(axes, i) == all[i]);
}

TEST_CASE("sweep: streamed (keep_results false) calls on_point for each point and keeps none", "[planning]") {
  const std::vector<SweepAxis> axes = {parse_vary("workload.arrival.rate=2,4")};
  SweepOptions opt;
  opt.keep_results = false;
  std::vector<std::size_t> seen;
  opt.on_point = [&](const PointResult& p) {
    CHECK(p.ok);
    CHECK(p.result.has_value());
    seen.push_back(p.index);
  };
  const auto kept = run_sweep(small_doc(), "t.yaml", axes, opt);
  CHECK(kept.empty());
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::size_t>{0, 1});
}

TEST_CASE("sweep: compact records give the same JSON text as the parsed tree", "[planning]") {
  const std::vector<SweepAxis> axes = {parse_vary("model.name=llama-3.1-8b,llama-3.1-70b")};
  const auto pts = run_sweep(small_doc(), "t.yaml", axes, SweepOptions{});
  std::vector<PointRecord> records;
  for (const auto& p : pts) records.push_back(point_record(p, axes));
  // One feasible and one infeasible point: two column lists, each shared by its kind.
  CHECK(records[0].cells() > records[1].cells());
  CHECK(records_json_text(records) == records_json(records).dump(2));
  CHECK(records_json_text({}) == nlohmann::ordered_json::array().dump(2));
  CHECK(records_csv(records, axes) == sweep_csv(pts, axes));
  CHECK(records[0].json() == point_json(pts[0], axes));
}
