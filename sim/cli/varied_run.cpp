#include "cli/varied_run.h"

#include <fmt/format.h>

#include <thread>

#include "cli/scenario_args.h"
#include "planning/progress.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim::cli {

VariedRun run_varied(const VariedRunArgs& a) {
  VariedRun r;
  for (const auto& v : a.vary) r.axes.push_back(planning::parse_vary(v));
  if (r.axes.empty()) throw Error(a.no_vary_hint);
  // Checked before the (possibly long) simulations, not after.
  if (!a.out.empty() && !ends_with(a.out, ".csv") && !ends_with(a.out, ".json"))
    throw Error(fmt::format("--out {}: name a .csv or .json file", a.out));
  if (!a.out.empty()) check_output_file(a.out, "--out");
  const YAML::Node doc = load_document(a.scenario, a.sets);
  planning::SweepOptions opt;
  opt.threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  planning::ProgressBar bar("points", planning::stderr_is_terminal());
  opt.progress = [&bar](std::size_t done, std::size_t total) { bar.update(done, total); };
  r.points = planning::run_sweep(doc, a.scenario, r.axes, opt);
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
