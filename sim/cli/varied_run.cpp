#include "cli/varied_run.h"
#include "cli/slo_args.h"

#include <fmt/format.h>

#include <thread>

#include "cli/scenario_args.h"
#include "planning/progress.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/text.h"

namespace servesim::cli {

std::vector<planning::SweepAxis> varied_axes(const VariedRunArgs& a) {
  std::vector<planning::SweepAxis> axes;
  for (const auto& v : a.vary) axes.push_back(planning::parse_vary(v));
  if (axes.empty()) throw Error(a.no_vary_hint);
  (void)planning::sweep_point_count(axes, a.max_points);  // too many points: said before anything runs
  // Checked before the (possibly long) simulations, not after.
  if (!a.out.empty() && !ends_with(a.out, ".csv") && !ends_with(a.out, ".json"))
    throw Error(fmt::format("--out {}: name a .csv or .json file", a.out));
  if (!a.out.empty()) check_output_file(a.out, "--out");
  return axes;
}

int varied_threads(const VariedRunArgs& a) {
  return a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

VariedRun run_varied(const VariedRunArgs& a) {
  VariedRun r;
  r.axes = varied_axes(a);
  const ConfigNode doc = load_document(a.scenario, overrides_with_slo(a.slo, a.sets));
  planning::SweepOptions opt;
  opt.threads = varied_threads(a);
  opt.max_points = a.max_points;
  planning::ProgressBar bar("points", planning::stderr_is_terminal());
  opt.progress = [&bar](std::size_t done, std::size_t total) { bar.update(done, total); };
  try {
    r.points = planning::run_sweep(doc, a.scenario, r.axes, opt);
  } catch (const Interrupted&) {
    bar.finish();
    throw Interrupted("interrupted: the comparison needs every point; nothing written");
  }
  bar.finish();
  return r;
}

void write_out_file(const std::string& path, const std::string& text) {
  try {
    write_file_atomically(path, text);
  } catch (const Error& e) {
    throw Error(fmt::format("--out: {}", e.what()));
  }
}

}  // namespace servesim::cli
