#pragma once
// Cross-GPU transfer of an operator calibration: the efficiency knobs fitted on one
// GPU's kernel tables (say Vidur's A100) carried to another GPU whose tables were not
// fitted on (Vidur's H100), and the error of that prediction per op kind, next to the
// error of the other GPU's own catalog defaults. `servesim calibrate operators
// --predict-data DIR --predict-gpu GPU` prints it.
#include <string>
#include <vector>

#include "calibration/operator_fit.h"

namespace servesim {

struct OperatorTransfer {
  std::string gpu;   // the predicted GPU's catalog name or file, as given
  std::string data;  // its tables
  std::vector<std::string> models;
  std::size_t rows = 0;
  std::size_t samples = 0;
  Efficiency defaults;                  // the predicted GPU's own efficiency (catalog defaults)
  Efficiency carried;                   // defaults with the fitted knobs replaced
  std::vector<OperatorError> before;    // errors with `defaults`, operator_kinds() order
  std::vector<OperatorError> after;     // errors with `carried`
};

// The knobs `fields` (those fitted: OperatorFit::fields) of `fitted` replace those of
// `gpu`'s own efficiency; every other knob (and every hardware figure) is the predicted GPU's.
Efficiency carry_fitted_knobs(const Efficiency& gpu, const Efficiency& fitted, const std::vector<std::string>& fields);

// Reads the tables at `data` (a folder or one CSV; model YAMLs from `models_dir`, or
// a models/ folder beside the data), and measures both predictions on every row.
OperatorTransfer predict_operator_transfer(const std::string& gpu, const std::string& data,
                                           const std::string& models_dir, const Efficiency& fitted,
                                           const std::vector<std::string>& fields);

}  // namespace servesim
