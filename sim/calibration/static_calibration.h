#pragma once
// `servesim calibrate static`: the whole static-batch calibration from paths and
// names (what the command and its tests share): read the benchmark CSVs, select and
// split one GPU's rows, fit (static_fit.h), compare before and after on fitted and
// held-out rows, and render the calibrated GPU profile. Writing files is the caller's.
#include <string>
#include <vector>

#include "calibration/static_fit.h"

namespace servesim {

// gemm_compute,gemm_tokens_half,gemm_memory,attention_memory,intra_node_latency,
// step_cpu_overhead,per_seq_cpu_overhead: the GEMM roofline (prefill), weight and KV
// streaming (decode), the per-hop latency of TP collectives and the engine's CPU time.
std::string default_static_parameters();

struct StaticCalibrationOptions {
  std::vector<std::string> data;  // benchmark CSVs (data/static_batch/*.csv)
  std::string params = default_static_parameters();
  StaticFitOptions fit;
  std::string name;  // profile name; empty: <gpu>-static
  std::string out;   // where the caller writes the profile; empty: no profile is rendered
};

struct StaticCalibration {
  StaticFitRows rows;
  std::vector<FitParameter> params;  // the fitted ones (those that move some prediction)
  StaticFit fit;                     // start/values/fitted per entry of `params`
  std::vector<std::string> no_effect;  // asked-for parameters no fitted row depends on (not fitted)
  std::vector<std::string> fitted_overrides;  // the fitted values as --set overrides (6 digits)
  std::vector<std::string> engine_settings;   // the engine.* (non-hardware) ones among fixed and fitted
  std::vector<RowResult> before, after;       // per row of `rows`
  std::vector<StaticErrorGroup> groups;
  std::string base_file;  // the base GPU YAML, as the profile records it
  std::vector<std::string> regenerate;  // the command line, one option a line
  std::string yaml;                     // the profile (only when options.out is set)
};

// Throws servesim::Error for a missing file, a malformed row, an unknown parameter,
// split or metric, a GPU that matches no row, or too few rows to fit.
StaticCalibration calibrate_static(const StaticCalibrationOptions& o);

}  // namespace servesim
