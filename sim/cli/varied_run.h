#pragma once
// What `sweep` and `whatif` share: parse the --vary axes, check --out, load the
// scenario with its --set overrides and simulate every point in parallel behind
// a progress bar.
#include <string>
#include <vector>

#include "planning/sweep.h"

namespace servesim::cli {

struct VariedRunArgs {
  std::string scenario;
  std::vector<std::string> vary, sets, slo;  // slo: --slo (cli/slo_args.h)
  int threads = 0;           // 0: all cores
  std::size_t max_points = planning::kDefaultMaxSweepPoints;  // --max-points
  std::string out;           // "" or FILE.csv / FILE.json (checked before simulating)
  std::string no_vary_hint;  // the error when no --vary is given
};

struct VariedRun {
  std::vector<planning::SweepAxis> axes;
  std::vector<planning::PointResult> points;
};

VariedRun run_varied(const VariedRunArgs& a);

// The pieces run_varied is made of, for `sweep`, which runs its points through the
// checkpointing sweep: the parsed --vary axes with --out checked (before any
// simulation), and the thread count.
std::vector<planning::SweepAxis> varied_axes(const VariedRunArgs& a);
int varied_threads(const VariedRunArgs& a);

// Writes `text` to `path`; a file that cannot be written is an --out error.
void write_out_file(const std::string& path, const std::string& text);

}  // namespace servesim::cli
