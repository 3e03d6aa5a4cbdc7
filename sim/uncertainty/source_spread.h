#pragma once
// The spread of servesim's error between measured *sources* (a data set, engine version
// and GPU measured together), added to every band.
//
// A group's residuals (bands.h) come from a few sources; within one source they agree far
// better than across sources: on the vLLM v0.15.1 runs at low load the H100 and L40S runs
// miss by a few percent while the A100 runs are 17-30% slower than predicted, and the
// ML.ENERGY runs (vLLM 0.11.1) sit elsewhere again. A user's run is always a new source
// (their host, engine version, GPU board), so a band built from one source's scatter
// alone is too narrow for it: docs/validation.md, "Uncertainty bands".
//
// tau is the standard deviation of the sources' median residuals around their mean, pooled
// over cells (calibrated or defaults, metric, load regime) that at least two sources
// share. Only cells without queueing in them count: TPOT at any load, TTFT and E2E at low
// load. Near saturation a TTFT or E2E residual holds the queue's amplification of a small
// capacity error (factors of 10-1000 on the overloaded runs), which says nothing about how
// a source's bias carries to a new one. Sources' medians include their own scatter, so tau
// errs wide.
#include <string>
#include <vector>

#include "uncertainty/bands.h"
#include "util/normal_quantile.h"

namespace servesim::bands {

struct SourceSpread {
  double tau = 0;  // log-space standard deviation of a source's bias
  int cells = 0;   // cells that at least two sources share
  int df = 0;      // degrees of freedom pooled: sum over cells of (sources - 1)
};

// Whether a metric measured at a load regime is free of queueing (counts for tau).
bool queue_free(const std::string& metric, const std::string& load);

SourceSpread source_spread(const std::vector<Residual>& residuals);

// A group's [q_lo, q_hi] widened by a source bias of spread tau, in log space: the same
// centre, half-width sqrt(h^2 + (z tau)^2) with h = (q_hi - q_lo) / 2 and z the normal
// quantile of the band's coverage (1.2816 at 80%). The group's scatter and a new source's
// bias are independent, so their variances add.
std::pair<double, double> widen_by_source(double q_lo, double q_hi, double tau, double coverage);

}  // namespace servesim::bands
