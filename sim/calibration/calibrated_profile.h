#pragma once
// Writes a calibrated GPU profile: the base GPU YAML's text (comments kept) under a
// new name, plus an `efficiency:` mapping with the fitted knobs and a `calibration:`
// mapping recording the data, the split and the residual errors. The GPU loader reads
// `efficiency:` and skips `calibration:` (parse_gpu allows it).
#include <string>
#include <vector>

#include "calibration/operator_fit.h"

namespace servesim {

struct CalibratedProfileInput {
  std::string base_yaml;   // text of the GPU YAML that was calibrated
  std::string base_file;   // where it came from, for the header ("hardware/a100-sxm4-80gb.yaml")
  std::string name;        // the profile's name ("a100-sxm4-80gb-vidur")
  std::string source;      // provenance of the measurements (one line)
  std::string data;        // the files fitted on, relative to the repository ("data/operator_timings/a100")
  std::string regenerate;  // how to regenerate the file (one line)
  std::vector<std::string> models;  // models in the data
  OperatorFit fit;                  // the shipped fit (its efficiency is written)
  std::vector<OperatorError> model_holdout;  // pooled leave-one-shape-out test errors (may be empty)
  std::size_t model_holdout_samples = 0;
};

// Throws servesim::Error when the base YAML has no top-level `name:` line or
// already has `efficiency:` or `calibration:` keys.
std::string calibrated_gpu_yaml(const CalibratedProfileInput& in);

}  // namespace servesim
