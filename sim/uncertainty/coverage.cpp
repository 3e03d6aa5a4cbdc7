#include "uncertainty/coverage.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace servesim::bands {

double CoverageCell::median_half_width() const {
  if (half_widths.empty()) return 0.0;
  std::vector<double> w = half_widths;
  std::sort(w.begin(), w.end());
  const std::size_t m = w.size() / 2;
  return w.size() % 2 ? w[m] : (w[m - 1] + w[m]) / 2;
}

namespace {

// Holds out each value of `unit` in turn; `pool` as lookup's pool_unseen_family.
CoverageReport held_out_coverage(const std::vector<Residual>& residuals, int min_points, double coverage,
                                 BandMethod method, bool source_spread,
                                 const std::function<std::string(const Residual&)>& unit, bool pool) {
  CoverageReport rep;
  std::set<std::string> units;
  for (const auto& r : residuals) units.insert(unit(r));
  for (const auto& held : units) {
    std::vector<Residual> train;
    for (const auto& r : residuals)
      if (unit(r) != held) train.push_back(r);
    // The source spread is estimated without the held-out unit too.
    const BandTable t = build_table(train, min_points, coverage, method, source_spread);
    for (const auto& r : residuals) {
      if (unit(r) != held || !std::isfinite(r.value)) continue;
      // A prediction of 1 puts the band at [exp(q_lo), exp(q_hi)]: the measurement,
      // as a ratio to the prediction, is exp(r).
      const Band b = lookup(t, r.key, r.metric, 1.0, pool);
      CoverageCell* cells[] = {&rep.by_metric[r.metric],
                               &rep.by_setting[r.key.calibrated ? "calibrated" : "defaults"][r.metric],
                               &rep.by_source[r.source], &rep.all};
      for (CoverageCell* c : cells) {
        if (!b.available) {
          ++c->no_band;
          continue;
        }
        ++c->n;
        c->half_widths.push_back(half_width_pct(b.lo, b.hi));
        const double ratio = std::exp(r.value);
        if (ratio < b.lo) ++c->below;
        else if (ratio > b.hi) ++c->above;
        else ++c->inside;
      }
    }
  }
  return rep;
}

}  // namespace

CoverageReport leave_one_out_coverage(const std::vector<Residual>& residuals, int min_points, double coverage,
                                      BandMethod method, bool source_spread) {
  return held_out_coverage(residuals, min_points, coverage, method, source_spread, [](const Residual& r) { return r.experiment; },
                           false);
}

CoverageReport leave_one_source_out_coverage(const std::vector<Residual>& residuals, int min_points,
                                             double coverage, BandMethod method, bool source_spread) {
  return held_out_coverage(residuals, min_points, coverage, method, source_spread, [](const Residual& r) { return r.source; },
                           true);
}

}  // namespace servesim::bands
