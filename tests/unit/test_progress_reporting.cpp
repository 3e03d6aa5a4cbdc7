// Progress hooks of the long commands (calibrate serving, calibrate static,
// validate-experiments draw a progress line from them on a terminal): called once per
// unit of work with the count so far and the total.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "calibration/serving_fit.h"
#include "calibration/static_calibration.h"
#include "validation/vllm_experiments.h"

using namespace servesim;

namespace {
std::vector<Experiment> two_experiments() {
  const auto all = load_vllm_experiments(std::string(SERVESIM_TEST_DATA) + "/serving/vllm_serving_experiments.json");
  std::vector<Experiment> out;
  for (const auto& e : all)
    if (e.recommended && out.size() < 2) out.push_back(e);
  REQUIRE(out.size() == 2);
  return out;
}
}  // namespace

TEST_CASE("progress: experiment replays report (k, n) after each run", "[progress]") {
  const auto runs = two_experiments();
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  const auto errs = experiment_errors(runs, {}, PromptSharing::cycled, 0.05,
                                      [&](std::size_t d, std::size_t t) { calls.emplace_back(d, t); });
  CHECK(errs.size() == 2);
  CHECK(calls == std::vector<std::pair<std::size_t, std::size_t>>{{1, 2}, {2, 2}});
}

TEST_CASE("progress: the serving fit reports each evaluation against its budget", "[progress]") {
  const auto runs = two_experiments();
  ServingFitOptions o;
  o.time_scale = 0.05;
  o.max_evaluations = 4;
  std::vector<std::pair<int, int>> calls;
  o.progress = [&](int d, int t) { calls.emplace_back(d, t); };
  const ServingFit fit = fit_serving(runs, parse_fit_parameters("step_overhead"), o);
  // One call per evaluation, counting 1, 2, ..., against max_evaluations.
  REQUIRE(static_cast<int>(calls.size()) == fit.evaluations);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    CHECK(calls[i].first == static_cast<int>(i) + 1);
    CHECK(calls[i].second == 4);
  }
}

TEST_CASE("progress: the static fit reports its evaluations as a running count", "[progress]") {
  StaticCalibrationOptions o;
  o.data = {std::string(SERVESIM_TEST_DATA) + "/static_batch/splitwise_a100.csv"};
  o.params = "step_cpu_overhead";
  o.fit.max_iterations = 2;
  std::vector<int> calls;
  o.fit.progress = [&](int n) { calls.push_back(n); };
  const StaticCalibration c = calibrate_static(o);
  // Counts 1, 2, ..., one per evaluation of the fitted rows inside Levenberg-Marquardt;
  // the fit's own count also has the start and final evaluations, outside the optimiser.
  REQUIRE(calls.size() >= 2);
  for (std::size_t i = 0; i < calls.size(); ++i) CHECK(calls[i] == static_cast<int>(i) + 1);
  CHECK(static_cast<int>(calls.size()) < c.fit.evaluations);
}
