#pragma once
// `servesim calibrate operators`: the whole operator-timing calibration from paths
// and names (what the command and its tests share): read the timing tables, fit the
// roofline's GEMM/elementwise knobs on a split (operator_fit.h), measure the errors
// before and after, optionally hold out each layer shape in turn, and render the
// calibrated GPU profile (calibrated_profile.h). Writing files is the caller's.
#include <string>
#include <vector>

#include "calibration/operator_fit.h"
#include "calibration/operator_transfer.h"

namespace servesim {

struct OperatorCalibrationOptions {
  std::string gpu = "a100-sxm4-80gb";  // catalog name or path of an uncalibrated GPU YAML
  std::string data;                    // folder of <model>.csv tables, or one table
  std::string models_dir;              // model YAMLs beside the data; empty: <data>/../models when it exists
  std::string split = "tokens";        // "tokens" or "models:NAME[,NAME...]"
  bool cross_validate = true;          // leave-one-layer-shape-out errors (needs two shapes)
  std::string name;                    // profile name; empty: <gpu name>-operators
  std::string display_name;            // empty: "<base display_name> (operator-calibrated)"
  std::string source;                  // provenance line; empty: "measured per-operator kernel times in <data>"
  std::string out;                     // where the caller writes the profile (for the regenerate line)
  // Optional: another GPU's tables to predict with the fitted knobs (operator_transfer.h);
  // none of their rows is fitted on. Empty predict_data: no transfer.
  std::string predict_data;
  std::string predict_gpu;  // catalog name or GPU YAML the predict_data was measured on
};

// Median and p90 absolute error of one op kind (fractions), before and after the fit.
struct OperatorErrorChange {
  std::string kind;
  OperatorError before, after;
};

struct OperatorCalibration {
  std::string base_file;  // the base GPU YAML, as written in the profile
  std::string data;       // the data path, as written in the profile
  std::vector<std::string> models;
  std::size_t rows = 0;
  Efficiency start;  // the base GPU's efficiency (the "before")
  OperatorFit fit;
  std::vector<OperatorErrorChange> train, test;  // operator_kinds() order
  bool cross_validated = false;
  OperatorCrossValidation cross_validation;
  bool predicted = false;
  OperatorTransfer transfer;            // when predict_data was given
  std::vector<std::string> regenerate;  // the command line, split for the header
  std::string yaml;                     // the calibrated profile
};

// Parses "tokens" / "models:a,b" (throws servesim::Error naming the valid forms).
OperatorSplit parse_operator_split(const std::string& text);

// Throws servesim::Error for a missing data path, unknown GPU or model, malformed
// rows, a split that leaves nothing to fit on, or a base that is already calibrated.
OperatorCalibration calibrate_operators(const OperatorCalibrationOptions& o);

// A path as the profile records it: relative to the repository (data_root()) when under it.
std::string repository_relative(const std::string& path);

}  // namespace servesim
