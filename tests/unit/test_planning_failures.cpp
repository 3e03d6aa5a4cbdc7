// sweep and plan never call a point feasible when some of its requests could
// not be served (completed < offered).
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include "planning/capacity.h"
#include "planning/sweep.h"
#include "config/scenario_reader.h"

using namespace servesim;
using namespace servesim::planning;

namespace {
// Prompts 100-400 + outputs 20-80 tokens: with max_model_len 300 the longer ones
// (total > 300) fail, the shortest (120) does not, so the run is not refused outright.
const char* kDoc =
    "hardware: {gpu: h100-sxm}\n"
    "model: {name: llama-3.1-8b}\n"
    "engine: {max_num_seqs: 64}\n"
    "workload:\n"
    "  seed: 3\n"
    "  requests: 120\n"
    "  arrival: {process: poisson, rate: 4}\n"
    "  input_tokens: {dist: uniform, min: 100, max: 400}\n"
    "  output_tokens: {dist: uniform, min: 20, max: 80}\n"
    "slo: {ttft_ms: {p99: 500}, tpot_ms: {p99: 50}}\n";
}  // namespace

TEST_CASE("a sweep point with failed requests is infeasible, with the reason", "[planning][failures]") {
  SweepOptions opt;
  const std::vector<SweepAxis> axes = {parse_vary("engine.max_model_len=300,4096")};
  const auto points = run_sweep(parse_yaml_text(kDoc), "t.yaml", axes, opt);
  REQUIRE(points.size() == 2);
  const auto short_ctx = point_json(points[0], axes);
  CHECK(short_ctx["status"] == "infeasible");
  CHECK_THAT(short_ctx["reason"].get<std::string>(), Catch::Contains("too_long_for_max_model_len"));
  CHECK(short_ctx["summary"]["requests"]["failed"].get<std::int64_t>() > 0);
  const auto long_ctx = point_json(points[1], axes);
  CHECK(long_ctx["status"] == "ok");  // 400 + 80 = 480 <= 4096: every request fits
}

TEST_CASE("plan finds no rate for requests that cannot be served", "[planning][failures]") {
  ConfigNode doc = parse_yaml_text(kDoc);
  set_number(doc, "engine.max_model_len", 300);
  const Scenario sc = parse_scenario(doc, "t.yaml");
  SearchOptions opt;
  opt.trial.requests = 200;
  const CapacityResult r = find_max_rate(sc, opt);
  CHECK(r.max_rate == 0);
  CHECK(r.binding == "failures");
  CHECK_THAT(r.error, Catch::Contains("cannot be served at any rate") && Catch::Contains("too_long_for_max_model_len"));
}
