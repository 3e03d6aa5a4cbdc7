// `servesim validate-experiments [FILE] [--set K=V]... [--sharing cycled|groups] [--only KEY] [--json] [--out DIR]`:
// replays the measured vLLM serving experiments and reports the error of each metric.
#include <fmt/format.h>
#include <optional>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "planning/progress.h"
#include "util/atomic_file.h"
#include "util/output_dir.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/untrusted_text.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"
#include "validation/vllm_experiments.h"

namespace servesim::cli {
namespace {

struct Args {
  std::string file;
  std::vector<std::string> sets;
  std::string sharing = "cycled";
  std::string only;
  bool json = false;
  bool all = false;
  std::string out;
  std::string profiles;  // folder of calibrated GPU profiles named <gpu>-vllm.yaml
};

double pct_err(double predicted, double measured) {
  return measured != 0 ? 100.0 * (predicted - measured) / measured : 0.0;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void run(const Args& a) {
  std::optional<OutputDir> out;  // checked before the replays, not after
  if (!a.out.empty()) out.emplace(a.out, "--out");
  const std::string file = a.file.empty() ? data_root() + "/data/serving/vllm_serving_experiments.json" : a.file;
  const auto experiments = load_vllm_experiments(file);
  const PromptSharing sharing = a.sharing == "groups" ? PromptSharing::groups : PromptSharing::cycled;
  if (a.sharing != "groups" && a.sharing != "cycled")
    throw Error(fmt::format("--sharing '{}': expected cycled or groups", a.sharing));
  const char* metrics[] = {"ttft_mean", "ttft_p90", "ttft_p99", "tpot_mean", "e2e_mean", "e2e_p90", "e2e_p99"};
  auto get = [](const MeasuredMetrics& m, int i) {
    const double v[] = {m.ttft_mean, m.ttft_p90, m.ttft_p99, m.tpot_mean, m.e2e_mean, m.e2e_p90, m.e2e_p99};
    return v[i];
  };
  std::vector<std::vector<double>> abs_err(7);
  nlohmann::json rows = nlohmann::json::array();
  std::string csv = "key,gpu,model,tp,workload,metric,measured_ms,predicted_ms,error_pct\n";
  if (!a.json) {
    fmt::print("{:<44} {:>6} {:>17} {:>17} {:>17} {:>5} {:>6}\n", "experiment (measured -> predicted, ms)", "hit%",
               "TTFT mean", "TPOT mean", "E2E mean", "pre", "fail");
  }
  auto selected = [&](const Experiment& e) {
    if (!a.only.empty() && e.key.find(a.only) == std::string::npos) return false;
    return e.recommended || a.all || !a.only.empty();
  };
  // On a terminal, a progress line on stderr (cleared before each printed row).
  planning::ProgressBar bar("experiments replayed", planning::stderr_is_terminal());
  const auto total = static_cast<std::size_t>(std::count_if(experiments.begin(), experiments.end(), selected));
  std::size_t done = 0;
  bar.update(0, total);
  const std::vector<ConfigEdit> command_edits = parse_edits(a.sets);  // --set, parsed once
  for (const auto& e : experiments) {
    if (!selected(e)) continue;
    std::vector<ConfigEdit> sets;
    if (!a.profiles.empty()) {
      const std::string profile = a.profiles + "/" + e.gpu + "-vllm.yaml";
      if (file_exists(profile)) {
        sets.push_back(text_edit("hardware.gpu", profile, "--profiles"));  // a path, never re-parsed
        // Engine-side settings fitted together with the profile (e.g. frontend latency).
        const ConfigNode doc = load_yaml_file(profile);
        const ConfigNode* cal = doc.is_map() ? doc.find("calibration") : nullptr;
        const ConfigNode* settings = cal && cal->is_map() ? cal->find("engine_settings") : nullptr;
        if (settings && !settings->is_null()) {
          if (!settings->is_sequence())
            throw Error(fmt::format("{}: calibration.engine_settings must be a list of KEY=VALUE strings", profile));
          for (const auto& o : settings->items()) {
            if (!o.is_scalar())
              throw Error(fmt::format("{}: calibration.engine_settings must be a list of KEY=VALUE strings", profile));
            sets.push_back(parse_edit(o.text()));
          }
        }
      }
    }
    sets.insert(sets.end(), command_edits.begin(), command_edits.end());
    const Scenario sc = experiment_scenario(e, sets);
    const ExperimentOutcome o = replay_experiment(e, sc, sharing);
    nlohmann::json row = {{"key", e.key}, {"gpu", e.gpu}, {"model", e.model}, {"tp", e.tp}, {"workload", e.workload},
                          {"prefix_hit_rate", o.prefix_hit_rate}, {"preemptions", o.preemptions}, {"failed", o.failed},
                          {"batch_occupancy", o.batch_occupancy}, {"kv_utilization", o.kv_utilization},
                          {"overloaded", o.overloaded}};
    for (int i = 0; i < 7; ++i) {
      const double m = get(e.measured, i), p = get(o.predicted, i);
      const double err = pct_err(p, m);
      row[metrics[i]] = {{"measured_ms", m}, {"predicted_ms", p}, {"error_pct", err}};
      if (m > 0) abs_err[static_cast<std::size_t>(i)].push_back(std::fabs(err));
      csv += fmt::format("{},{},{},{},{},{},{:.3f},{:.3f},{:.2f}\n", csv_cell(e.key), csv_cell(e.gpu), csv_cell(e.model), e.tp,
                         csv_cell(e.workload), metrics[i], m, p,
                         err);
    }
    rows.push_back(row);
    bar.finish();
    if (!a.json) {
      fmt::print("{:<44} {:>5.0f}% {:>7.1f}->{:>7.1f} {:>7.2f}->{:>7.2f} {:>7.0f}->{:>7.0f} {:>5} {:>6}\n", e.key.substr(0, 44),
                 100 * o.prefix_hit_rate, e.measured.ttft_mean, o.predicted.ttft_mean, e.measured.tpot_mean,
                 o.predicted.tpot_mean, e.measured.e2e_mean, o.predicted.e2e_mean, o.preemptions, o.failed);
      std::fflush(stdout);
    }
    bar.update(++done, total);
  }
  bar.finish();
  nlohmann::json med;
  for (int i = 0; i < 7; ++i) med[metrics[i]] = median(abs_err[static_cast<std::size_t>(i)]);
  if (!a.out.empty()) {
    out->write("experiments_errors.csv", csv);
    out->commit();
  }
  if (a.json) {
    std::cout << nlohmann::json{{"experiments", rows}, {"median_abs_error_pct", med}}.dump(2) << "\n";
    return;
  }
  fmt::print("\nmedian absolute error over {} experiments:", abs_err[0].size());
  for (int i = 0; i < 7; ++i) fmt::print(" {} {:.1f}%", metrics[i], med[metrics[i]].get<double>());
  fmt::print("\n");
}

}  // namespace

void register_experiments(CLI::App& app) {
  static Args a;
  auto* cmd = app.add_subcommand("validate-experiments",
                                 "Replay the measured vLLM serving experiments and report servesim's error");
  cmd->add_option("file", a.file, "experiments JSON (default: data/serving/vllm_serving_experiments.json)");
  cmd->add_option("--set", a.sets, "override a scenario key for every experiment (e.g. hardware.efficiency...)");
  cmd->add_option("--sharing", a.sharing, "prompt prefix structure: cycled (10x10 prompts reissued) or groups");
  cmd->add_option("--profiles", a.profiles,
                  "folder of calibrated profiles: a run on GPU g uses <folder>/g-vllm.yaml when it exists "
                  "(e.g. hardware/calibrated)");
  cmd->add_option("--only", a.only, "only experiments whose key contains this text");
  cmd->add_flag("--all", a.all, "include the experiments not recommended for validation (overloaded runs)");
  cmd->add_flag("--json", a.json, "print JSON");
  cmd->add_option("--out", a.out, "write experiments_errors.csv into this directory");
  cmd->callback([] { run(a); });
}

}  // namespace servesim::cli
