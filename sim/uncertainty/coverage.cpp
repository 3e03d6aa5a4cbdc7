#include "uncertainty/coverage.h"

#include <cmath>
#include <set>

namespace servesim::bands {

CoverageReport leave_one_out_coverage(const std::vector<Residual>& residuals, int min_points, double coverage,
                                      BandMethod method) {
  CoverageReport rep;
  std::set<std::string> experiments;
  for (const auto& r : residuals) experiments.insert(r.experiment);
  for (const auto& held : experiments) {
    std::vector<Residual> train;
    for (const auto& r : residuals)
      if (r.experiment != held) train.push_back(r);
    const BandTable t = build_table(train, min_points, coverage, method);
    for (const auto& r : residuals) {
      if (r.experiment != held || !std::isfinite(r.value)) continue;
      // A prediction of 1 puts the band at [exp(q_lo), exp(q_hi)]: the measurement,
      // as a ratio to the prediction, is exp(r).
      const Band b = lookup(t, r.key, r.metric, 1.0);
      CoverageCell* cells[] = {&rep.by_metric[r.metric], &rep.by_setting[r.key.calibrated ? "calibrated" : "defaults"][r.metric],
                               &rep.all};
      for (CoverageCell* c : cells) {
        if (!b.available) {
          ++c->no_band;
          continue;
        }
        ++c->n;
        const double ratio = std::exp(r.value);
        if (ratio < b.lo) ++c->below;
        else if (ratio > b.hi) ++c->above;
        else ++c->inside;
      }
    }
  }
  return rep;
}

}  // namespace servesim::bands
