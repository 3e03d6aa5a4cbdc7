#pragma once
// Writes a calibrated GPU profile: the base GPU YAML's text (comments kept) under a
// new name, plus an `efficiency:` mapping with the fitted knobs and a `calibration:`
// mapping recording the data, the split and the residual errors. The GPU loader reads
// `efficiency:` and skips `calibration:` (parse_gpu allows it).
#include <string>
#include <vector>

#include "calibration/operator_fit.h"

namespace servesim {

// The base GPU YAML under a new name: `header` as comment lines ("# " prepended), then
// the base text verbatim except its top-level `name:` and `display_name:` lines,
// trailing blank lines dropped, ending in one newline; the base's own `efficiency:`
// mapping is left out (the writer lists its knobs, base_efficiency_lines). Throws
// servesim::Error when the base is not a YAML mapping with a name, or already has a
// top-level `calibration:` key (calibrate an uncalibrated profile).
std::string renamed_gpu_profile(const std::string& base_yaml, const std::string& base_file, const std::string& name,
                                const std::string& display_name, const std::vector<std::string>& header);
// Replaces the value of one nested scalar of a YAML text (path {"interconnect",
// "intra_node", "latency"}, found by indentation) with `value`, keeping the line's
// comment after `note`. Throws servesim::Error naming the path when there is no such line.
std::string replace_yaml_scalar(const std::string& yaml, const std::string& file, const std::vector<std::string>& path,
                                const std::string& value, const std::string& note);
// Throws servesim::Error unless the base is a YAML mapping with a name and without a
// top-level `calibration:` key (what renamed_gpu_profile needs), so
// a command can refuse a calibrated base before it spends time fitting.
void check_uncalibrated_base(const std::string& base_yaml, const std::string& base_file);
// The base's display_name (its name when it has none).
std::string base_display_name(const std::string& base_yaml, const std::string& base_file);

// A catalog GPU may carry its own `efficiency:` knobs (measured physics, e.g. a
// kernel-table gemm_memory). A calibrated profile keeps them unless its fit replaces
// them: the base text loses its `efficiency:` mapping (and the comment lines directly
// above it), and the writer lists the base's knobs next to the fitted ones.
struct BaseEfficiencyKnob {
  std::string field;  // "gemm_memory"
  std::string value;  // as written in YAML: 0.906 or "3 us"
};
std::vector<BaseEfficiencyKnob> base_efficiency_knobs(const std::string& base_yaml, const std::string& base_file);
std::string without_efficiency_block(const std::string& base_yaml);
// The `  field: value  # from the base profile` lines of the base knobs not in `fitted`.
std::string base_efficiency_lines(const std::string& base_yaml, const std::string& base_file,
                                  const std::vector<std::string>& fitted);

struct CalibratedProfileInput {
  std::string base_yaml;     // text of the GPU YAML that was calibrated
  std::string base_file;     // where it came from, for the header ("hardware/a100-sxm4-80gb.yaml")
  std::string name;          // the profile's name ("a100-sxm4-80gb-vidur")
  std::string display_name;  // empty: the base's display_name + " (operator-calibrated)"
  std::string source;        // provenance of the measurements (one line)
  std::string data;          // the files fitted on, relative to the repository ("data/operator_timings/a100")
  std::vector<std::string> regenerate;  // the command that regenerates the file, one line each
  std::vector<std::string> models;  // models in the data
  OperatorFit fit;                  // the shipped fit (its efficiency is written)
  std::vector<OperatorError> model_holdout;  // pooled leave-one-shape-out test errors (may be empty)
  std::size_t model_holdout_samples = 0;
};

// Throws servesim::Error when the base YAML has no top-level `name:` line or
// already has `efficiency:` or `calibration:` keys.
std::string calibrated_gpu_yaml(const CalibratedProfileInput& in);

}  // namespace servesim
