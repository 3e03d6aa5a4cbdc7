// `servesim validate-moe [--file CSV] [--set K=V]... [--json] [--check PCT]`: published
// throughput of large-scale mixture-of-experts deployments (wide EP, DP attention,
// P/D pools; data/moe_at_scale/deployments.csv) against servesim's predictions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/validate_commands.h"
#include "config/edits.h"
#include "util/error.h"
#include "util/paths.h"
#include "validation/moe_deployments.h"

namespace servesim::cli {
namespace {

struct MoeArgs {
  std::string file;
  std::vector<std::string> sets;
  bool json = false;
  double check = 0;  // > 0: exit 1 when the held-out median |error| exceeds it, percent
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

void run_validate_moe(const MoeArgs& a) {
  const std::string path = a.file.empty() ? data_root() + "/data/moe_at_scale/deployments.csv" : a.file;
  const std::vector<ConfigEdit> edits = parse_edits(a.sets);
  std::vector<MoeDeploymentResult> results;
  for (const MoeDeploymentRow& row : read_moe_deployments(path)) results.push_back(predict_moe_deployment(row, edits));
  std::vector<double> fit, held;
  for (const auto& r : results) {
    if (!r.skipped.empty()) continue;
    (r.row.split == "fit" ? fit : held).push_back(std::fabs(r.error) * 100.0);
  }
  const double fit_median = median(fit), held_median = median(held);
  if (a.json) {
    nlohmann::json j;
    j["file"] = path;
    j["rows"] = nlohmann::json::array();
    for (const auto& r : results) {
      nlohmann::json x = {{"id", r.row.id},       {"kind", r.row.kind},          {"split", r.row.split},
                          {"metric", r.row.metric}, {"measured", r.row.value}, {"source", r.row.source}};
      if (r.skipped.empty()) {
        x["predicted"] = r.predicted;
        x["error_pct"] = r.error * 100.0;
        if (r.batch > 0) x["batch_per_rank"] = r.batch;
      } else {
        x["skipped"] = r.skipped;
      }
      j["rows"].push_back(x);
    }
    j["fit"] = {{"rows", fit.size()}, {"median_abs_error_pct", fit.empty() ? nlohmann::json() : nlohmann::json(fit_median)}};
    j["heldout"] = {{"rows", held.size()},
                    {"median_abs_error_pct", held.empty() ? nlohmann::json() : nlohmann::json(held_median)}};
    std::cout << j.dump(2) << "\n";
  } else {
    fmt::print("{:<22} {:<13} {:<8} {:<22} {:>11} {:>11} {:>8}  {}\n", "id", "kind", "split", "metric", "measured",
               "predicted", "error", "batch/rank");
    for (const auto& r : results) {
      if (!r.skipped.empty()) {
        fmt::print("{:<22} {:<13} {:<8} {:<22} {:>11.4g} {:>11} {:>8}  ({})\n", r.row.id, r.row.kind, r.row.split,
                   r.row.metric, r.row.value, "-", "-", r.skipped);
        continue;
      }
      fmt::print("{:<22} {:<13} {:<8} {:<22} {:>11.4g} {:>11.4g} {:>7.1f}%  {}\n", r.row.id, r.row.kind, r.row.split,
                 r.row.metric, r.row.value, r.predicted, r.error * 100.0, r.batch > 0 ? std::to_string(r.batch) : "");
    }
    fmt::print("\nmedian |error|: fit {:.1f}% ({} rows), held out {:.1f}% ({} rows)\n", fit_median, fit.size(),
               held_median, held.size());
  }
  if (a.check > 0 && !(held_median <= a.check)) {
    throw Error(fmt::format("validate-moe: held-out median |error| {:.1f}% is above {:.1f}%", held_median, a.check));
  }
}

}  // namespace

void register_validate_moe(CLI::App& app) {
  static MoeArgs a;
  auto* cmd = app.add_subcommand(
      "validate-moe",
      "Compare published throughput of large-scale MoE deployments (wide EP, DP attention, P/D; "
      "data/moe_at_scale/deployments.csv) with servesim's predictions; median |error| of the fitted and held-out rows");
  cmd->add_option("--file", a.file, "read this CSV instead of data/moe_at_scale/deployments.csv");
  cmd->add_option("--set", a.sets, "override a scenario key for every row");
  cmd->add_flag("--json", a.json, "print JSON");
  cmd->add_option("--check", a.check, "exit 1 when the held-out median |error| exceeds this many percent")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->callback([] { run_validate_moe(a); });
}

}  // namespace servesim::cli
