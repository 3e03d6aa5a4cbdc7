#pragma once
// Fits scenario parameters (efficiency knobs, engine overheads: any key a `--set`
// can override) to measured serving runs by replaying them. Least squares on
// log(predicted/measured) of TTFT, TPOT and E2E means (and TTFT p99), minimised
// with Nelder-Mead over bounded parameters (each mapped through a logistic onto its
// [lo, hi] range, so the physics bounds always hold).
#include <functional>
#include <string>
#include <vector>

#include "calibration/fit_parameters.h"
#include "validation/vllm_experiments.h"

namespace servesim {

struct ExperimentErrors {
  std::string key, gpu;
  double ttft_mean = 0, ttft_p99 = 0, tpot_mean = 0, e2e_mean = 0, e2e_p99 = 0;  // signed %
};

struct ErrorSummary {  // median absolute % over a set of experiments
  std::size_t experiments = 0;
  double ttft_mean = 0, ttft_p99 = 0, tpot_mean = 0, e2e_mean = 0, e2e_p99 = 0;
};

struct ServingFitOptions {
  double time_scale = 0.2;  // shorten stages while fitting (rates unchanged)
  int max_evaluations = 60;
  PromptSharing sharing = PromptSharing::cycled;
  std::vector<ConfigEdit> fixed_edits;  // applied to every replay (--set, e.g. engine.async_scheduling=true)
  bool verbose = false;
  // Called after each evaluation of the objective (done so far, max_evaluations).
  std::function<void(int, int)> progress;
};

struct ServingFit {
  std::vector<double> values;  // fitted, in FitParameter order
  double objective = 0;
  int evaluations = 0;
};

ServingFit fit_serving(const std::vector<Experiment>& train, const std::vector<FitParameter>& params,
                       const ServingFitOptions& options);

// Replays experiments with the edits and returns per-experiment signed errors.
std::vector<ExperimentErrors> experiment_errors(const std::vector<Experiment>& experiments,
                                                const std::vector<ConfigEdit>& edits, PromptSharing sharing,
                                                double time_scale,
                                                const std::function<void(std::size_t, std::size_t)>& progress = {});
ErrorSummary summarize_errors(const std::vector<ExperimentErrors>& errors);

}  // namespace servesim
