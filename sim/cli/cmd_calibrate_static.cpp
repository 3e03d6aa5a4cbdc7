// `servesim calibrate static --data FILE.csv [--data ...] [--gpu G] [--params a,b,...]
//  [--split alternate|none|datasets:A,B] [--metrics m,prefix*] [--loss squared|soft_l1]
//  [--set K=V]... [--out FILE] [--name N] [--json]`: fit efficiency knobs and engine
// overheads to published static-batch measurements and write a calibrated GPU profile.
// The work is calibrate_static() (sim/calibration/static_calibration.h).
//
// Frameworks differ in CPU overheads (TurboMind vs 2023 vLLM vs TensorRT-LLM), so fit
// one framework's file at a time unless the overheads are meant to be shared.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "calibration/static_calibration.h"
#include "cli/calibrate_commands.h"
#include "planning/progress.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim::cli {
namespace {

struct Args {
  StaticCalibrationOptions o;
  std::string metrics;
  bool json = false;
};

std::string cell(std::size_t n, double before, double after) {
  if (n == 0) return "-";
  return fmt::format("{:5.1f}% -> {:5.1f}%", before, after);
}

void run(Args& a) {
  if (!a.o.out.empty()) check_output_file(a.o.out, "--out");  // before the fit, not after
  a.o.fit.metrics.clear();
  for (const auto& m : split(a.metrics, ','))
    if (!trim(m).empty()) a.o.fit.metrics.push_back(trim(m));
  // On a terminal, a running count of the optimiser's evaluations on stderr.
  planning::ProgressBar bar("evaluations of the fitted rows (Levenberg-Marquardt)", planning::stderr_is_terminal());
  a.o.fit.progress = [&bar](int n) { bar.tick(static_cast<std::size_t>(n)); };
  const StaticCalibration c = calibrate_static(a.o);
  bar.finish();
  if (!a.o.out.empty()) {
    write_file_atomically(a.o.out, c.yaml);
  }
  if (a.json) {
    using nlohmann::json;
    json params = json::object(), groups = json::array(), skipped = json::object();
    for (std::size_t i = 0; i < c.params.size(); ++i)
      params[c.params[i].name] = {{"key", c.params[i].key},     {"unit", c.params[i].unit},
                                  {"start", c.fit.start[i]},    {"value", c.fit.values[i]},
                                  {"lo", c.params[i].lo},       {"hi", c.params[i].hi}};
    for (const auto& g : c.groups)
      groups.push_back({{"dataset", g.dataset},
                        {"metric", g.metric},
                        {"train_n", g.train_n},
                        {"test_n", g.test_n},
                        {"train_median_abs_error_pct", {{"before", g.train_before}, {"after", g.train_after}}},
                        {"test_median_abs_error_pct", {{"before", g.test_before}, {"after", g.test_after}}},
                        {"test_median_error_pct_after", g.test_bias_after}});
    for (const auto& [why, n] : c.rows.skipped) skipped[why] = n;
    std::cout << json{{"gpu", c.rows.gpu},
                      {"data", a.o.data},
                      {"split", c.rows.split},
                      {"loss", a.o.fit.loss},
                      {"rows", {{"fitted", c.rows.train_count()}, {"held_out", c.rows.test_count()}}},
                      {"skipped", skipped},
                      {"parameters", params},
                      {"overrides", c.fitted_overrides},
                      {"engine_settings", c.engine_settings},
                      {"not_fitted", c.no_effect},
                      {"rms_log_error", {{"before", c.fit.rms_before}, {"after", c.fit.rms_after}}},
                      {"iterations", c.fit.iterations},
                      {"evaluations", c.fit.evaluations},
                      {"groups", groups},
                      {"out", a.o.out}}
                     .dump(2)
              << "\n";
    return;
  }
  std::int64_t skipped = 0;
  for (const auto& [_, n] : c.rows.skipped) skipped += n;
  fmt::print("{} on {}: {} rows fitted, {} held out ({}); {} rows not used\n", join(a.o.data), c.rows.gpu,
             c.rows.train_count(), c.rows.test_count(), c.rows.split, skipped);
  for (const auto& [why, n] : c.rows.skipped) fmt::print("  {:>4}  {}\n", n, why);
  fmt::print("\nfitted ({} loss; {} Levenberg-Marquardt iterations, {} evaluations; RMS log error {:.3f} -> {:.3f}):\n",
             a.o.fit.loss, c.fit.iterations, c.fit.evaluations, c.fit.rms_before, c.fit.rms_after);
  for (std::size_t i = 0; i < c.params.size(); ++i) {
    const auto& p = c.params[i];
    const bool at_bound = c.fit.values[i] <= p.lo + 1e-3 * (p.hi - p.lo) || c.fit.values[i] >= p.hi - 1e-3 * (p.hi - p.lo);
    fmt::print("  {:<22} {:>9.4g} -> {:>9.4g} {:<3} (bounds {}-{}){}\n", p.name, c.fit.start[i], c.fit.values[i], p.unit,
               p.lo, p.hi, at_bound ? "  at a bound" : "");
  }
  if (!c.no_effect.empty())
    fmt::print("  not fitted (no fitted row depends on them): {}\n", join(c.no_effect));
  fmt::print("\nmedian absolute error, before -> after the fit:\n");
  fmt::print("{:<34} {:<24} {:>9}  {:>17}  {:>17}  {:>13}\n", "data set", "metric", "n fit/out", "fitted rows",
             "held-out rows", "held-out bias");
  for (const auto& g : c.groups)
    fmt::print("{:<34} {:<24} {:>9}  {:>17}  {:>17}  {:>13}\n", g.dataset, g.metric,
               fmt::format("{}/{}", g.train_n, g.test_n), cell(g.train_n, g.train_before, g.train_after),
               cell(g.test_n, g.test_before, g.test_after), g.test_n ? fmt::format("{:+.1f}%", g.test_bias_after) : "-");
  std::string sets;
  for (const auto& s : c.fitted_overrides) sets += " --set '" + s + "'";
  std::string files;
  for (const auto& d : a.o.data) files += " --file " + d;
  fmt::print("\nreproduce with validate-static:\n  servesim validate-static{} --no-offline{}{}\n", files,
             [&] {
               std::string f;
               for (const auto& s : a.o.fit.fixed_overrides) f += " --set '" + s + "'";
               return f;
             }(),
             sets);
  if (!a.o.out.empty())
    fmt::print("\nwrote {}: use hardware.gpu: {} with{} {}\n", a.o.out, a.o.out,
               c.engine_settings.empty() ? " no engine settings" : " the engine settings",
               [&] {
                 std::string s;
                 for (const auto& e : c.engine_settings) s += " --set '" + e + "'";
                 return s;
               }());
}

}  // namespace

void register_calibrate_static(CLI::App& calibrate) {
  static Args a;
  auto* cmd = calibrate.add_subcommand(
      "static", "Fit efficiency and engine overheads to static-batch measurements (data/static_batch/*.csv)");
  cmd->add_option("--data", a.o.data,
                  "benchmark CSV (repeatable); frameworks differ in overheads, so fit one framework's file at a time")
      ->required();
  cmd->add_option("--gpu", a.o.fit.gpu, "catalog GPU whose rows are fitted (default: the GPU with the most rows)");
  cmd->add_option("--params", a.o.params,
                  fmt::format("comma list of parameters to fit (of: {})", join(fit_parameter_names())))
      ->default_val(default_static_parameters());
  cmd->add_option("--split", a.o.fit.split,
                  "held-out rows: alternate (every other row of each data set and metric), none, or datasets:NAME[,NAME...]")
      ->default_val("alternate");
  cmd->add_option("--metrics", a.metrics, "comma list of metrics to use (names, or prefixes ending in *); default all");
  cmd->add_option("--loss", a.o.fit.loss,
                  "soft_l1 (robust: a few rows no static-batch model matches cannot dominate) or squared")
      ->default_val("soft_l1");
  cmd->add_option("--max-iterations", a.o.fit.max_iterations, "Levenberg-Marquardt iterations")
      ->default_val(100)
      ->check(CLI::Range(1, 100'000));
  cmd->add_option("--set", a.o.fit.fixed_overrides, "fixed override applied to every row (not fitted)");
  cmd->add_option("--name", a.o.name, "name of the calibrated profile (default: <gpu>-static)");
  cmd->add_option("--out", a.o.out, "write the calibrated GPU profile YAML here");
  cmd->add_flag("--json", a.json, "print JSON");
  cmd->callback([] { run(a); });
}

}  // namespace servesim::cli
