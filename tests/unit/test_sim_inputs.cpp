// Bad scenarios are servesim::Error with the reason; every shipped scenario loads
// and runs.
#include <catch2/catch.hpp>

#include <filesystem>

#include "run/simulation.h"
#include "test_sim_helpers.h"
#include "util/error.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"
#include "config/scenario_reader.h"

using namespace servesim;
using namespace servesim::testing;
using Catch::Matchers::Contains;

namespace {
const char* kWorkload =
    "{requests: 10, arrival: {process: poisson, rate: 2}, input_tokens: {dist: fixed, value: 100}, "
    "output_tokens: {dist: fixed, value: 10}}";
}

TEST_CASE("bad scenarios are errors that say why", "[sim][errors]") {
  SECTION("arrival rate out of range") {
    for (const std::string rate : {"0", "-3"}) {
      INFO("rate " << rate);
      const std::string wl = "{requests: 10, arrival: {process: poisson, rate: " + rate +
                             "}, input_tokens: {dist: fixed, value: 100}, output_tokens: {dist: fixed, value: 10}}";
      CHECK_THAT(error_of([&] { scenario_from("{kind: vllm}", wl); }),
                 Contains("workload.arrival.rate: must be in [1e-07, 1e+09]"));
    }
  }
  SECTION("tp that does not divide the attention heads") {
    // Llama-3.1-8B has 32 heads: tp=3 leaves a remainder.
    CHECK_THAT(error_of([&] { scenario_from("{kind: vllm}", kWorkload, "llama-3.1-8b", "{tp: 3}"); }),
               Contains("tp=3 does not divide"));
  }
  SECTION("unknown engine kind, with a suggestion") {
    CHECK_THAT(error_of([&] { scenario_from("{kind: vlm}", kWorkload); }),
               Contains("unknown engine 'vlm'") && Contains("did you mean 'vllm'"));
    CHECK_THAT(error_of([&] { scenario_from("{kind: statc}", kWorkload); }), Contains("did you mean 'static'"));
  }
  SECTION("a model that does not fit on the GPU") {
    // Llama-3.1-405B: ~810 GB of bf16 weights vs 80 GB on one H100-SXM.
    const Scenario sc = scenario_from("{kind: vllm}", kWorkload, "llama-3.1-405b", "{tp: 1}");
    CHECK_THAT(error_of([&] { simulate(sc, {}); }), Contains("does not fit"));
  }
  SECTION("a file that does not exist") {
    CHECK_THROWS_AS(load_scenario("/nonexistent/scenario.yaml"), Error);
  }
}

TEST_CASE("every shipped scenario loads and runs", "[sim][scenarios]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(SERVESIM_SOURCE_DIR) / "scenarios";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  for (const auto& f : files) {
    INFO(f.string());
    // Cap the run: 50 requests when the workload has a synthetic arrival process
    // (workload.requests is a valid key for every process, and bounds the run).
    const ConfigNode doc = load_yaml_file(f.string());
    std::vector<std::string> sets;
    const ConfigNode* w = doc.find("workload");
    if (w && (w->find("requests") || w->find("arrival")))
      sets.push_back("workload.requests=50");
    Scenario sc;
    REQUIRE_NOTHROW(sc = load_scenario(f.string(), sets));
    SimulationResult r;
    REQUIRE_NOTHROW(r = simulate(sc, {}));
    CHECK(r.summary.completed + r.summary.failed > 0);
    CHECK(r.summary.completed > 0);
    CHECK(r.summary.duration_s > 0);
  }
}
