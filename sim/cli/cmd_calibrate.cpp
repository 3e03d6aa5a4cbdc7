// `servesim calibrate serving ...`: fit efficiency knobs and engine overheads to the
// measured vLLM serving runs and write a calibrated GPU profile usable anywhere a
// GPU name is. The `operators` and `static` subcommands live in
// cmd_calibrate_operators.cpp and cmd_calibrate_static.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "calibration/calibrated_profile.h"
#include "calibration/serving_fit.h"
#include "config/catalog_reader.h"
#include "cli/cli_checks.h"
#include "cli/calibrate_commands.h"
#include "cli/commands.h"
#include "planning/progress.h"
#include "hardware/efficiency.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim::cli {
namespace {

struct Args {
  std::string file;
  std::string gpu = "h100-sxm";
  std::string fit_gpus;  // comma list; default: --gpu
  std::string params = "gemm_memory,attention_memory,gemm_compute,step_overhead";
  std::string split = "alternate";
  double time_scale = 0.2;
  int max_evals = 50;
  std::string out;
  std::string name;
  std::vector<std::string> sets;
  bool verbose = false;
};

void print_errors(const std::string& title, const std::vector<ExperimentErrors>& errs) {
  const ErrorSummary s = summarize_errors(errs);
  fmt::print("{:<34} n={:<3} TTFT mean {:5.1f}%  TTFT p99 {:5.1f}%  TPOT mean {:5.1f}%  E2E mean {:5.1f}%  E2E p99 {:5.1f}%\n",
             title, s.experiments, s.ttft_mean, s.ttft_p99, s.tpot_mean, s.e2e_mean, s.e2e_p99);
}

void run(const Args& a) {
  if (!a.out.empty()) check_output_file(a.out, "--out");  // before the fit, not after
  const std::string file = a.file.empty() ? data_root() + "/data/serving/vllm_serving_experiments.json" : a.file;
  const auto all = load_vllm_experiments(file);
  std::vector<std::string> fit_gpus = split(a.fit_gpus.empty() ? a.gpu : a.fit_gpus, ',');
  std::vector<Experiment> fit_set, other;
  for (const auto& e : all) {
    if (!e.recommended) continue;
    (std::find(fit_gpus.begin(), fit_gpus.end(), e.gpu) != fit_gpus.end() ? fit_set : other).push_back(e);
  }
  if (fit_set.empty()) throw Error(fmt::format("calibrate: no measured runs on {} in {}", join(fit_gpus), file));
  std::vector<Experiment> train, test;
  if (a.split == "alternate") {
    for (std::size_t i = 0; i < fit_set.size(); ++i) (i % 2 == 0 ? train : test).push_back(fit_set[i]);
  } else if (a.split == "none") {
    train = fit_set;
  } else {
    throw Error(fmt::format("calibrate: --split '{}': expected alternate or none", a.split));
  }
  const std::vector<FitParameter> params = parse_fit_parameters(a.params);

  ServingFitOptions opt;
  opt.time_scale = a.time_scale;
  opt.max_evaluations = a.max_evals;
  opt.fixed_edits = parse_edits(a.sets);
  opt.verbose = a.verbose;
  fmt::print("fitting {} on {} runs ({}; held out: {}), stages shortened to {:.0f}%\n", a.params, train.size(),
             join(fit_gpus), test.size(), 100 * a.time_scale);
  // On a terminal (and without --verbose, whose lines would interleave), a progress line
  // on stderr per phase: the replays with default parameters, the fit, the replays after.
  const bool show = planning::stderr_is_terminal() && !a.verbose;
  auto replays = [&](const char* what, const std::vector<Experiment>& runs, const std::vector<ConfigEdit>& edits) {
    planning::ProgressBar bar(what, show);
    bar.update(0, runs.size());
    auto errs = experiment_errors(runs, edits, opt.sharing, 1.0, [&](std::size_t d, std::size_t t) { bar.update(d, t); });
    bar.finish();
    return errs;
  };
  const auto before_train = replays("runs replayed (defaults)", train, opt.fixed_edits);
  planning::ProgressBar fit_bar("fit evaluations", show);
  opt.progress = [&fit_bar](int d, int t) { fit_bar.update(static_cast<std::size_t>(d), static_cast<std::size_t>(t)); };
  const ServingFit fit = fit_serving(train, params, opt);
  fit_bar.finish();
  // Replayed with the fitted values as printed (6 significant digits), so a rerun with
  // them as --set reproduces these errors.
  std::vector<double> printed;
  for (const double v : fit.values) printed.push_back(round_significant(v, 6));
  std::vector<ConfigEdit> overrides = opt.fixed_edits;
  for (auto& e : parameter_edits(params, printed)) overrides.push_back(std::move(e));
  fmt::print("\nfitted after {} replays (objective {:.4f}):\n", fit.evaluations, fit.objective);
  for (std::size_t i = 0; i < params.size(); ++i)
    fmt::print("  {:<40} {:.4g} {}\n", params[i].key, fit.values[i], params[i].unit);

  fmt::print("\nmedian absolute error (full-length replays):\n");
  print_errors("train, default parameters", before_train);
  const auto train_err = replays("training runs replayed (fitted)", train, overrides);
  print_errors("train, fitted", train_err);
  std::vector<ExperimentErrors> test_err, other_err;
  if (!test.empty()) {
    test_err = replays("held-out runs replayed", test, overrides);
    print_errors("held-out runs, fitted", test_err);
  }
  if (!other.empty()) {
    // The fitted fractions carried to GPUs they were not fitted on: the roofline's claim.
    // Each GPU keeps its own catalog physics (hardware/<gpu>.yaml, e.g. its kernel-table
    // gemm_memory); what carries is the fit's change of it, fitted / the fit GPU's
    // catalog value, times the other GPU's catalog value. Durations and engine settings
    // describe the framework, not the GPU, and carry as they are.
    std::vector<std::string> other_gpus;
    for (const auto& e : other)
      if (std::find(other_gpus.begin(), other_gpus.end(), e.gpu) == other_gpus.end()) other_gpus.push_back(e.gpu);
    const GpuSpec fit_spec = load_gpu(fit_gpus.front());
    for (const auto& g : other_gpus) {
      const GpuSpec spec = load_gpu(g);
      std::vector<double> carried = printed;
      for (std::size_t i = 0; i < params.size(); ++i) {
        if (!is_efficiency_parameter(params[i])) continue;
        const EfficiencyKnob* k = find_efficiency_knob(params[i].name);
        if (!k || k->kind != KnobKind::fraction) continue;
        const double ratio = spec.efficiency.*(k->member) / (fit_spec.efficiency.*(k->member));
        carried[i] = std::min(1.0, printed[i] * ratio);
      }
      std::vector<ConfigEdit> edits = opt.fixed_edits;
      for (auto& e : parameter_edits(params, carried)) edits.push_back(std::move(e));
      std::vector<Experiment> runs;
      for (const auto& e : other)
        if (e.gpu == g) runs.push_back(e);
      for (auto& r : replays("other-GPU runs replayed", runs, edits)) other_err.push_back(std::move(r));
    }
    print_errors("other GPUs, fitted fractions", other_err);
    std::vector<std::string> gpus;  // each other GPU apart, in first-seen order
    for (const auto& e : other_err)
      if (std::find(gpus.begin(), gpus.end(), e.gpu) == gpus.end()) gpus.push_back(e.gpu);
    if (gpus.size() > 1) {
      for (const auto& g : gpus) {
        std::vector<ExperimentErrors> one;
        for (const auto& e : other_err)
          if (e.gpu == g) one.push_back(e);
        print_errors(fmt::format("  {}, fitted fractions", g), one);
      }
    }
  }

  if (!a.out.empty()) {
    const std::string base_path = catalog_dir("hardware") + "/" + a.gpu + ".yaml";
    const std::string base_yaml = read_text_file(base_path);
    std::string yaml = without_efficiency_block(base_yaml);
    const std::string name = a.name.empty() ? a.gpu + "-calibrated" : a.name;
    const auto pos = yaml.find("\nname: ");
    if (pos == std::string::npos) throw Error(fmt::format("{}: no top-level name:", base_path));
    const auto eol = yaml.find('\n', pos + 1);
    yaml.replace(pos + 1, eol - pos - 1, "name: " + name);
    std::string out = fmt::format("# Calibrated profile written by `servesim calibrate serving` from hardware/{}.yaml.\n", a.gpu);
    out += yaml;
    out += "\nefficiency:                      # fitted to measured vLLM serving runs (see calibration below)\n";
    std::vector<std::string> fitted_fields;
    for (std::size_t i = 0; i < params.size(); ++i) {
      const std::string& key = params[i].key;
      if (key.rfind("hardware.efficiency.", 0) != 0) continue;
      const std::string field = key.substr(std::string("hardware.efficiency.").size());
      fitted_fields.push_back(field);
      out += params[i].unit.empty() ? fmt::format("  {}: {:.4g}\n", field, fit.values[i])
                                    : fmt::format("  {}: \"{:.4g} {}\"\n", field, fit.values[i], params[i].unit);
    }
    out += base_efficiency_lines(base_yaml, base_path, fitted_fields);
    const ErrorSummary tr = summarize_errors(train_err), te = summarize_errors(test_err);
    out += "calibration:\n";
    const std::string root = data_root() + "/";
    out += fmt::format("  data: {}\n", file.rfind(root, 0) == 0 ? file.substr(root.size()) : file);
    out += fmt::format("  fitted_on: [{}]\n", [&] {
      std::vector<std::string> k;
      for (const auto& e : train) k.push_back(e.key);
      return join(k);
    }());
    out += fmt::format("  held_out: {} runs\n", test.size());
    out += fmt::format("  engine_settings: [{}]\n", [&] {
      std::vector<std::string> k, written = a.sets;  // the settings as text, for the profile
      for (const auto& o : parameter_overrides(params, fit.values)) written.push_back(o);
      for (const auto& o : written)
        if (o.rfind("hardware.", 0) != 0) k.push_back("'" + o + "'");  // single quotes: o holds double quotes
      return join(k);
    }());
    out += fmt::format("  train_median_abs_error_pct: {{ttft_mean: {:.1f}, ttft_p99: {:.1f}, tpot_mean: {:.1f}, e2e_mean: {:.1f}}}\n",
                       tr.ttft_mean, tr.ttft_p99, tr.tpot_mean, tr.e2e_mean);
    out += fmt::format("  test_median_abs_error_pct: {{ttft_mean: {:.1f}, ttft_p99: {:.1f}, tpot_mean: {:.1f}, e2e_mean: {:.1f}}}\n",
                       te.ttft_mean, te.ttft_p99, te.tpot_mean, te.e2e_mean);
    write_file_atomically(a.out, out);
    fmt::print("\nwrote {} (use it as hardware.gpu: {})\n", a.out, a.out);
  }
}

}  // namespace

void register_calibrate(CLI::App& app) {
  static Args a;
  auto* cal = app.add_subcommand("calibrate", "Fit efficiency parameters to measured data");
  auto* cmd = cal->add_subcommand("serving", "Fit to measured vLLM serving runs (data/serving/...)");
  cal->require_subcommand(1);
  cmd->add_option("file", a.file, "experiments JSON (default: data/serving/vllm_serving_experiments.json)");
  cmd->add_option("--gpu", a.gpu, "GPU whose profile is written (catalog name)")->default_val("h100-sxm");
  cmd->add_option("--fit-gpus", a.fit_gpus, "comma list of GPUs whose runs are fitted (default: --gpu)");
  cmd->add_option("--params", a.params, "comma list of parameters to fit");
  cmd->add_option("--split", a.split, "alternate (fit on every other run, test on the rest) or none");
  // A scale <= 0 would put every replayed arrival at or before t = 0.
  cmd->add_option("--time-scale", a.time_scale, "shorten stages while fitting (0-1]")->check(real_range(1e-3, 1.0));
  cmd->add_option("--max-evals", a.max_evals, "maximum replays of the training set")->check(CLI::Range(1, 100'000));
  cmd->add_option("--out", a.out, "write the calibrated GPU profile YAML here");
  cmd->add_option("--name", a.name, "name of the calibrated profile");
  cmd->add_option("--set", a.sets, "fixed override applied to every replay");
  cmd->add_flag("--verbose", a.verbose, "print every evaluation");
  cmd->callback([] { run(a); });
  register_calibrate_operators(*cal);
  register_calibrate_static(*cal);
  register_calibrate_bands(*cal);
}

}  // namespace servesim::cli
