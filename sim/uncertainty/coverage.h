#pragma once
// Leave-one-experiment-out coverage of the uncertainty bands: for each experiment, the
// table is rebuilt without any of its residuals (defaults and calibrated), and each of
// its residuals is checked against the band its own key looks up.
#include <map>
#include <string>
#include <vector>

#include "uncertainty/bands.h"

namespace servesim::bands {

struct CoverageCell {
  int n = 0, inside = 0, below = 0, above = 0, no_band = 0;
  double share() const { return n > 0 ? static_cast<double>(inside) / n : 0.0; }
};

struct CoverageReport {
  std::map<std::string, CoverageCell> by_metric;                         // metric -> cell
  std::map<std::string, std::map<std::string, CoverageCell>> by_setting;  // "defaults"/"calibrated" -> metric
  CoverageCell all;
};

CoverageReport leave_one_out_coverage(const std::vector<Residual>& residuals, int min_points, double coverage,
                                      BandMethod method = BandMethod::conformal);

}  // namespace servesim::bands
