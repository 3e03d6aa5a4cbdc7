#pragma once
// Residuals from measured sources other than the vLLM serving runs, as a CSV written by the
// replay tools (tools/fit/mlenergy_replay.py --residuals): one row per run and metric,
//   experiment,source,calibrated,family,framework,load,uncovered,metric,measured,predicted
// `calibrated` is 0 or 1; `uncovered` lists, '|'-separated, what no band covers (the run's
// own bands.key.uncovered from `servesim run --json`; empty when nothing); measured and
// predicted are in the metric's unit (both > 0). Rows with uncovered features are counted
// and left out: the band table keeps refusing what they use.
#include <string>
#include <vector>

#include "uncertainty/bands.h"

namespace servesim::bands {

struct ResidualCsv {
  std::vector<Residual> residuals;
  int rows = 0;       // data rows read
  int uncovered = 0;  // left out: they use what no band covers
};

// Error naming the file, line and column on a malformed row.
ResidualCsv read_residual_csv(const std::string& path);

}  // namespace servesim::bands
