// `servesim calibrate bands --defaults FILE [--calibrated FILE] [--profiles DIR] [--out FILE] ...`:
// builds the uncertainty band table (uncertainty/bands.h) from `validate-experiments --all
// --json` outputs and reports its leave-one-experiment-out coverage.
// tools/bands/build-bands.sh runs the replays and this command.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/calibrate_commands.h"
#include "config/config_node.h"
#include "config/yaml_text.h"
#include "uncertainty/bands.h"
#include "uncertainty/coverage.h"
#include "uncertainty/residual_csv.h"
#include "uncertainty/source_spread.h"
#include "util/json_file.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim::cli {
namespace {

struct Args {
  std::string defaults, calibrated, profiles, out, defaults_fitted_on;
  std::vector<std::string> extra;  // residual CSVs of other sources (uncertainty/residual_csv.h)
  bool without_source_spread = false;
  std::string commit = "unknown", date = "unknown", command;
  int min_points = 8;
  double coverage = 0.8;
  std::string method = "conformal";
  bool json = false;
};

const char* kMetrics[] = {"ttft_mean", "ttft_p90", "ttft_p99", "tpot_mean", "e2e_mean", "e2e_p90", "e2e_p99"};

nlohmann::json read_json(const std::string& path) {
  return read_json_file(path);
}

// The architecture of a catalog GPU (hardware/<gpu>.yaml `architecture:`): its family.
std::string gpu_family(const std::string& gpu) {
  const std::string path = data_root() + "/hardware/" + gpu + ".yaml";
  if (!file_exists(path)) throw Error(fmt::format("{}: no catalog GPU {} for its family", path, gpu));
  const ConfigNode doc = load_yaml_file(path);
  const ConfigNode* a = doc.is_map() ? doc.find("architecture") : nullptr;
  return a && a->is_scalar() ? a->text() : "";
}

// Experiments a calibrated profile was fitted on (calibration.fitted_on): their residuals
// are in-sample, so they are left out of the calibrated groups.
std::set<std::string> fitted_on(const std::string& profile) {
  std::set<std::string> keys;
  const ConfigNode doc = load_yaml_file(profile);
  const ConfigNode* cal = doc.is_map() ? doc.find("calibration") : nullptr;
  const ConfigNode* f = cal && cal->is_map() ? cal->find("fitted_on") : nullptr;
  if (f && f->is_sequence())
    for (const auto& k : f->items()) keys.insert(k.text());
  return keys;
}

// Experiment keys, one per line (`#` starts a comment): the runs the catalog defaults
// were fitted on (data/uncertainty/defaults_fitted_on.txt), whose defaults residuals are
// in-sample and left out as the calibrated profiles' fitted runs are.
std::set<std::string> read_key_list(const std::string& path) {
  std::set<std::string> keys;
  if (path.empty()) return keys;
  for (const auto& raw : split(read_text_file(path), '\n')) {
    const std::string line = trim(raw.substr(0, raw.find('#')));
    if (!line.empty()) keys.insert(line);
  }
  return keys;
}

struct Counts {
  int rows = 0, in_sample = 0, no_profile = 0;
};

void add_residuals(const std::string& path, bool calibrated, const std::string& profiles,
                   const std::set<std::string>& defaults_fitted_on, std::vector<bands::Residual>& out,
                   Counts& counts) {
  const nlohmann::json j = read_json(path);
  if (!j.contains("experiments") || !j.at("experiments").is_array())
    throw Error(fmt::format("{}: expected `validate-experiments --json` output (an \"experiments\" list)", path));
  for (const auto& row : j.at("experiments")) {
    const std::string key = row.at("key"), gpu = row.at("gpu");
    if (!row.contains("batch_occupancy"))
      throw Error(fmt::format("{}: row {} has no batch_occupancy (written by an older servesim)", path, key));
    if (calibrated) {
      const std::string profile = profiles + "/" + gpu + "-vllm.yaml";
      if (!file_exists(profile)) {  // replayed with catalog defaults: not a calibrated residual
        ++counts.no_profile;
        continue;
      }
      if (fitted_on(profile).count(key)) {
        ++counts.in_sample;
        continue;
      }
    } else if (defaults_fitted_on.count(key)) {
      ++counts.in_sample;
      continue;
    }
    ++counts.rows;
    // All measured serving runs are vLLM (v0.15.1, data/serving/PROVENANCE.md).
    const bands::BandKey bk{calibrated, gpu_family(gpu), "vllm",
                            bands::load_regime(row.at("batch_occupancy").get<double>(),
                                               row.at("kv_utilization").get<double>(), row.value("overloaded", false))};
    for (const char* m : kMetrics) {
      const double measured = row.at(m).at("measured_ms"), predicted = row.at(m).at("predicted_ms");
      if (!(measured > 0) || !(predicted > 0)) continue;
      // One data set and engine version (vLLM v0.15.1, data/serving/PROVENANCE.md): its
      // sources differ by GPU (and host), the unit a leave-one-source-out check holds out.
      out.push_back({key, bk, m, std::log(measured / predicted), "vllm-0.15.1/" + gpu});
    }
  }
}

std::string pct(double log_ratio) { return fmt::format("{:+.1f}%", 100 * (std::exp(log_ratio) - 1)); }

void run(const Args& a) {
  const std::string profiles = a.profiles.empty() ? data_root() + "/hardware/calibrated" : a.profiles;
  std::vector<bands::Residual> residuals;
  Counts def, cal;
  const std::set<std::string> defaults_fitted = read_key_list(a.defaults_fitted_on);
  add_residuals(a.defaults, false, profiles, defaults_fitted, residuals, def);
  if (!a.calibrated.empty()) add_residuals(a.calibrated, true, profiles, defaults_fitted, residuals, cal);
  int extra_rows = 0, extra_uncovered = 0;
  std::set<std::string> extra_sources;
  for (const auto& path : a.extra) {
    const bands::ResidualCsv x = bands::read_residual_csv(path);
    extra_rows += static_cast<int>(x.residuals.size());
    extra_uncovered += x.uncovered;
    for (const auto& r : x.residuals) {
      extra_sources.insert(r.source);
      residuals.push_back(r);
    }
  }
  if (residuals.empty()) throw Error("no residuals: the inputs hold no experiment with measured metrics");
  const bool spread = !a.without_source_spread;

  if (a.method != "conformal" && a.method != "quantile")
    throw Error(fmt::format("--method '{}': expected conformal or quantile", a.method));
  const auto method = a.method == "quantile" ? bands::BandMethod::quantile : bands::BandMethod::conformal;
  bands::BandTable t = bands::build_table(residuals, a.min_points, a.coverage, method, spread);
  t.provenance = {{"data", "data/serving/vllm_serving_experiments.json (all experiments, --all)"},
                  {"defaults_runs", def.rows},
                  {"defaults_left_out_in_sample", def.in_sample},
                  {"defaults_fitted_on", a.defaults_fitted_on.empty() ? "none" : a.defaults_fitted_on},
                  {"calibrated_runs", cal.rows},
                  {"calibrated_left_out_in_sample", cal.in_sample},
                  {"calibrated_left_out_no_profile", cal.no_profile},
                  {"profiles", "hardware/calibrated (calibration.fitted_on runs left out)"},
                  {"extra_sources", extra_sources},
                  {"extra_residual_rows", extra_rows},
                  {"extra_left_out_uncovered", extra_uncovered},
                  {"servesim_commit", a.commit},
                  {"date", a.date},
                  {"command", a.command.empty() ? "tools/bands/build-bands.sh" : a.command}};
  if (!a.out.empty()) write_file_atomically(a.out, bands::table_to_json(t).dump(2) + "\n");

  const bands::CoverageReport rep =
      bands::leave_one_out_coverage(residuals, a.min_points, a.coverage, method, spread);
  const bands::CoverageReport loso =
      bands::leave_one_source_out_coverage(residuals, a.min_points, a.coverage, method, spread);
  if (a.json) {
    nlohmann::json cov = nlohmann::json::object();
    auto cell = [](const bands::CoverageCell& c) {
      return nlohmann::json{{"n", c.n},           {"inside", c.inside},   {"below", c.below},
                            {"above", c.above},   {"no_band", c.no_band}, {"coverage", c.share()},
                            {"median_half_width_pct", c.median_half_width()}};
    };
    auto report = [&](const bands::CoverageReport& r) {
      nlohmann::json cov = nlohmann::json::object();
      for (const auto& [m, c] : r.by_metric) cov["by_metric"][m] = cell(c);
      for (const auto& [s, ms] : r.by_setting)
        for (const auto& [m, c] : ms) cov["by_setting"][s][m] = cell(c);
      for (const auto& [s, c] : r.by_source) cov["by_source"][s] = cell(c);
      cov["all"] = cell(r.all);
      return cov;
    };
    std::cout << nlohmann::json{{"table", bands::table_to_json(t)},
                                {"leave_one_out", report(rep)},
                                {"leave_one_source_out", report(loso)}}
                     .dump(2)
              << "\n";
    return;
  }
  fmt::print("residuals: {} defaults runs (left out: {} the defaults were fitted on), {} calibrated runs (left out: "
             "{} in-sample, {} without a profile)\n",
             def.rows, def.in_sample, cal.rows, cal.in_sample, cal.no_profile);
  if (!a.extra.empty())
    fmt::print("other sources (--extra): {} residuals of {} (left out: {} rows using what no band covers)\n", extra_rows,
               fmt::join(extra_sources, ", "), extra_uncovered);
  fmt::print("families: {}; groups with n >= {} are used, finer first\n", fmt::join(t.families, ", "), a.min_points);
  if (spread)
    fmt::print("between-source spread: tau {:.3f} (a source's bias, log sd; {} cells, {} df): every band's half-width "
               "h becomes sqrt(h^2 + ({:.4f} tau)^2)\n\n",
               t.source_tau, t.source_cells, t.source_df, normal_quantile((1 + a.coverage) / 2));
  else
    fmt::print("between-source spread: off (--without-source-spread)\n\n");
  fmt::print("{:<10} {:<32} {:>4} {:>9} {:>9}   ({} bounds, as measured/predicted - 1)\n", "metric", "group", "n", "lo",
             "hi", a.method);
  for (const auto& [metric, ids] : t.groups)
    for (const auto& [id, g] : ids)
      if (g.n >= a.min_points) {
        const auto [lo, hi] = bands::widen_by_source(g.q_lo, g.q_hi, t.source_tau, t.coverage);
        fmt::print("{:<10} {:<32} {:>4} {:>9} {:>9}\n", metric, id, g.n, pct(lo), pct(hi));
      }
  fmt::print("\nleave-one-experiment-out coverage of the {:.0f}% bands (target 70-90%):\n\n", 100 * a.coverage);
  fmt::print("| metric | n | inside | below | above | coverage | defaults | calibrated |\n");
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  auto setting = [&](const std::string& s, const std::string& m) {
    const auto i = rep.by_setting.find(s);
    if (i == rep.by_setting.end() || !i->second.count(m)) return std::string("-");
    const auto& c = i->second.at(m);
    return fmt::format("{:.0f}% (n={})", 100 * c.share(), c.n);
  };
  for (const char* m : kMetrics) {
    const auto i = rep.by_metric.find(m);
    if (i == rep.by_metric.end()) continue;
    const auto& c = i->second;
    fmt::print("| {} | {} | {} | {} | {} | {:.0f}% | {} | {} |\n", m, c.n, c.inside, c.below, c.above, 100 * c.share(),
               setting("defaults", m), setting("calibrated", m));
  }
  fmt::print("| all | {} | {} | {} | {} | {:.0f}% | | |\n", rep.all.n, rep.all.inside, rep.all.below, rep.all.above,
             100 * rep.all.share());
  fmt::print("\nmedian band half-width: +-{:.1f}%\n", rep.all.median_half_width());
  if (rep.all.no_band > 0) fmt::print("\n{} held-out residuals had no band (their group was too small, or its band too wide to inform)\n", rep.all.no_band);
  fmt::print("\nleave-one-source-out coverage (each source's runs held out together: a data set, engine version and "
             "GPU; a family no other source has takes the bands pooled over families):\n\n");
  fmt::print("| held-out source | n | inside | below | above | no band | coverage | median half-width |\n");
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  for (const auto& [src, c] : loso.by_source)
    fmt::print("| {} | {} | {} | {} | {} | {} | {:.0f}% | +-{:.1f}% |\n", src, c.n, c.inside, c.below, c.above,
               c.no_band, 100 * c.share(), c.median_half_width());
  fmt::print("| all | {} | {} | {} | {} | {} | {:.0f}% | +-{:.1f}% |\n", loso.all.n, loso.all.inside,
             loso.all.below, loso.all.above, loso.all.no_band, 100 * loso.all.share(),
             loso.all.median_half_width());
  for (const char* m : kMetrics) {
    const auto i = loso.by_metric.find(m);
    if (i == loso.by_metric.end()) continue;
    fmt::print("  {}: {:.0f}% of {} (+-{:.1f}%)\n", m, 100 * i->second.share(), i->second.n,
               i->second.median_half_width());
  }
  if (!a.out.empty()) fmt::print("\nwrote {}\n", a.out);
}

}  // namespace

void register_calibrate_bands(CLI::App& calibrate) {
  static Args a;
  auto* cmd = calibrate.add_subcommand(
      "bands", "Build the uncertainty band table (data/uncertainty/bands.json) from validate-experiments residuals "
               "and report its leave-one-experiment-out coverage");
  cmd->add_option("--defaults", a.defaults, "`validate-experiments --all --json` output (catalog defaults)")->required();
  cmd->add_option("--calibrated", a.calibrated,
                  "`validate-experiments --all --profiles DIR --json` output (calibrated profiles)");
  cmd->add_option("--profiles", a.profiles,
                  "the folder of calibrated profiles used for --calibrated (default: hardware/calibrated); runs a "
                  "profile was fitted on, and runs on GPUs without a profile, are left out");
  cmd->add_option("--defaults-fitted-on", a.defaults_fitted_on,
                  "a file of experiment keys (one per line) the catalog defaults were fitted on: their defaults "
                  "residuals are in-sample and left out (data/uncertainty/defaults_fitted_on.txt)");
  cmd->add_option("--extra", a.extra,
                  "a CSV of residuals from another measured source (tools/fit/mlenergy_replay.py --residuals; "
                  "uncertainty/residual_csv.h); repeatable");
  cmd->add_flag("--without-source-spread", a.without_source_spread,
                "bands from each group's own scatter only, not widened by the spread between sources "
                "(uncertainty/source_spread.h): the construction before it, for comparison");
  cmd->add_option("--min-points", a.min_points, "fewest residuals a group needs before a coarser one is used")
      ->default_val(8)
      ->check(CLI::Range(2, 1000));
  cmd->add_option("--coverage", a.coverage, "nominal band coverage")->default_val(0.8)->check(CLI::Range(0.05, 0.99));
  cmd->add_option("--method", a.method,
                  "conformal (k-th smallest and largest residual, k = floor((n+1)(1-c)/2): finite-sample coverage) "
                  "or quantile (plain (1-c)/2 and (1+c)/2 percentiles)")
      ->default_val("conformal");
  cmd->add_option("--out", a.out, "write the band table JSON here");
  cmd->add_option("--commit", a.commit, "provenance: the servesim commit that made the residuals");
  cmd->add_option("--date", a.date, "provenance: when");
  cmd->add_option("--command", a.command, "provenance: the command that made the table");
  cmd->add_flag("--json", a.json, "print the table and the coverage as JSON");
  cmd->callback([] { run(a); });
}

}  // namespace servesim::cli
