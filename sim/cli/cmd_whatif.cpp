// `servesim whatif SCENARIO.yaml --vary model.weights=bf16,fp8,int4 [--vary hardware.gpu=a,b]...
//  [-j N] [--json] [--out FILE.csv|FILE.json] [--set K=V]...`
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/slo_args.h"
#include "cli/varied_run.h"
#include "planning/whatif.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim::cli {
namespace {

struct WhatIfArgs : VariedRunArgs {
  bool json = false;
};

void run(const WhatIfArgs& a) {
  const auto [axes, points] = run_varied(a);
  const auto rows = planning::whatif_rows(points, axes);
  if (!a.out.empty())
    write_out_file(a.out, ends_with(a.out, ".json") ? planning::whatif_json(rows, axes).dump(2) + "\n"
                                                    : planning::sweep_csv(points, axes));
  if (a.json) {
    std::cout << planning::whatif_json(rows, axes).dump(2) << "\n";
    return;
  }
  fmt::print("What-if over {} ({} configurations; step ms = modelled decode step at the run's mean batch and "
             "context, step@base = at the baseline's)\n\n",
             a.scenario, points.size());
  fmt::print("{}", planning::whatif_table(rows));
  const auto lines = planning::whatif_explanations(rows);
  if (!lines.empty()) {
    fmt::print("\nCompared with the baseline ({}):\n", rows.empty() ? "" : [&] {
      for (const auto& r : rows)
        if (r.ok) return r.label;
      return std::string();
    }());
    for (const auto& l : lines) fmt::print("  - {}\n", l);
  }
  if (!a.out.empty()) fmt::print("\nwrote {}\n", a.out);
}

}  // namespace

void register_whatif(CLI::App& app) {
  static WhatIfArgs a;
  a.no_vary_hint = "give at least one --vary KEY=V1,V2,... to compare";
  auto* cmd = app.add_subcommand(
      "whatif", "Compare configurations side by side and explain the differences (KV capacity, step cost, latency)");
  cmd->add_option("scenario", a.scenario, "scenario YAML")->required();
  cmd->add_option("--vary", a.vary, "KEY=V1,V2,... (as for sweep), e.g. --vary model.weights=bf16,fp8,int4");
  cmd->add_option("--set", a.sets, "override a scenario key for every configuration");
  add_slo_option(cmd, a.slo);
  cmd->add_option("-j,--jobs", a.threads, "configurations simulated in parallel (default: all cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--max-points", a.max_points,
                  fmt::format("refuse comparisons of more configurations than this (default {})",
                              planning::kDefaultMaxSweepPoints))
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000'000}));
  cmd->add_flag("--json", a.json, "print JSON (every point's summary plus the explanation numbers)");
  cmd->add_option("--out", a.out, "write FILE.csv (sweep columns) or FILE.json");
  cmd->callback([] { run(a); });
}

}  // namespace servesim::cli
