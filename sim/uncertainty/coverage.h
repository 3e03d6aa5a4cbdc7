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
  std::vector<double> half_widths;  // of every band checked, percent (bands.h half_width_pct)
  double share() const { return n > 0 ? static_cast<double>(inside) / n : 0.0; }
  double median_half_width() const;  // 0 without bands
};

struct CoverageReport {
  std::map<std::string, CoverageCell> by_metric;                         // metric -> cell
  std::map<std::string, std::map<std::string, CoverageCell>> by_setting;  // "defaults"/"calibrated" -> metric
  std::map<std::string, CoverageCell> by_source;                         // held-out source -> all its metrics
  CoverageCell all;
};

CoverageReport leave_one_out_coverage(const std::vector<Residual>& residuals, int min_points, double coverage,
                                      BandMethod method = BandMethod::conformal, bool source_spread = true);

// Leave one *source* out (Residual::source: a data set, engine version and GPU): the
// table is rebuilt without every residual of that source and each of its residuals is
// checked against the band its key looks up. A held-out source whose GPU family no other
// source has takes the groups pooled over families (lookup's pool_unseen_family): the
// coverage a new GPU family would get. Harder than leaving one experiment out: runs of
// one source share its biases (same host, same engine build, near-duplicate runs).
CoverageReport leave_one_source_out_coverage(const std::vector<Residual>& residuals, int min_points,
                                             double coverage, BandMethod method = BandMethod::conformal,
                                             bool source_spread = true);

}  // namespace servesim::bands
