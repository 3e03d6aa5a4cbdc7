#pragma once
// The scenario parameters `servesim calibrate` can fit, with their physical bounds,
// and the logistic mapping that keeps a fit inside them: a fitter works on an
// unbounded coordinate x and the parameter is lo + (hi - lo) * logistic(x).
#include <string>
#include <vector>

#include "config/edits.h"
#include "scenario/setup.h"

namespace servesim {

struct FitParameter {
  std::string name;   // short name, e.g. "gemm_memory"
  std::string key;    // scenario key path, e.g. "hardware.efficiency.gemm_memory"
  double lo = 0, hi = 1, init = 0.5;
  std::string unit;   // appended when written ("ms", "us" for durations), empty for plain numbers
};

// A parameter by short name; throws servesim::Error with the valid names (and a
// did-you-mean) for an unknown one.
FitParameter fit_parameter(const std::string& name);
const std::vector<std::string>& fit_parameter_names();
// "a,b,c" -> parameters, in order; empty items, unknown or repeated names throw.
std::vector<FitParameter> parse_fit_parameters(const std::string& comma_list);

// True for keys under engine.*: CPU-side settings of the serving engine, not the GPU,
// so a calibrated profile records them in calibration.engine_settings instead of efficiency.
bool is_engine_parameter(const FitParameter& p);
// True for keys under hardware.efficiency.* (written under the profile's `efficiency:`);
// the other hardware ones (hardware.interconnect.*) replace the base profile's value.
bool is_efficiency_parameter(const FitParameter& p);

// Bounded value <-> unbounded coordinate. to_x clamps the value into (lo, hi) first.
double parameter_value(const FitParameter& p, double x);
double parameter_coordinate(const FitParameter& p, double value);

// The parameter's value in `setup`, in the parameter's unit (ms, us or plain).
double current_value(const Setup& setup, const FitParameter& p);

// The fitted values as typed edits of a scenario document, each value set exactly
// (durations converted to seconds): what a fitter applies on every evaluation, with
// no round trip through text.
std::vector<ConfigEdit> parameter_edits(const std::vector<FitParameter>& params, const std::vector<double>& values);
// v rounded to `digits` significant decimal digits (the double nearest that decimal),
// i.e. the value a --set written with {:.<digits>g} gives.
double round_significant(double v, int digits);

// "key=value" overrides (durations quoted with their unit) as printed for the user to
// rerun with --set, values with `digits` significant digits.
std::vector<std::string> parameter_overrides(const std::vector<FitParameter>& params, const std::vector<double>& values,
                                             int digits = 6);
// The value as written in YAML: 0.7123 or "3.2 ms".
std::string parameter_yaml_value(const FitParameter& p, double value);

}  // namespace servesim
