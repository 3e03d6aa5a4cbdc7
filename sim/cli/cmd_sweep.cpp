// `servesim sweep SCENARIO.yaml --vary KEY=V1,V2 [--vary KEY=START:STOP:STEP]... [-j N]
//  [--out FILE.csv|FILE.json] [--csv] [--json] [--set K=V]... [--shard K/N --out SHARD_FILE]`
// and `servesim merge OUT.csv|OUT.json SHARD_FILE...` (docs/cluster.md).
// Also registers `plan` and `whatif` (cmd_plan.cpp, cmd_whatif.cpp).
#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "cli/commands.h"
#include "cli/slo_args.h"
#include "cli/varied_run.h"
#include "cli/scenario_args.h"
#include "planning/progress.h"
#include "planning/sweep.h"
#include "planning/sweep_checkpoint.h"
#include "planning/sweep_shard.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim::cli {

void register_plan(CLI::App& app);
void register_whatif(CLI::App& app);

namespace {

struct SweepArgs : VariedRunArgs {
  bool csv = false, json = false;
  std::string shard;  // "K/N": simulate only shard K of N and write its shard file to --out
};

// A summary number of a point's JSON row (null, e.g. no completed request: NaN).
double summary_number(const nlohmann::ordered_json& j, const char* section, const char* field) {
  const auto& s = j.at("summary");
  if (!s.contains(section) || !s[section].contains(field) || !s[section][field].is_number()) return std::nan("");
  return s[section][field].get<double>();
}

// The GPU-hours a point held when something in it is autoscaled: the fleet's (the
// autoscale section), or a disaggregated deployment's pools (an autoscaled pool's
// held hours, a fixed pool's GPUs over the run); NaN otherwise.
double held_gpu_hours(const nlohmann::ordered_json& j) {
  const auto& s = j.at("summary");
  if (s.contains("autoscale")) return summary_number(j, "autoscale", "gpu_hours");
  if (!s.contains("disaggregation")) return std::nan("");
  const auto& d = s.at("disaggregation");
  double hours = 0;
  bool scaled = false;
  for (const char* pool : {"prefill", "decode"}) {
    if (!d.contains(pool)) return std::nan("");
    const auto& p = d.at(pool);
    if (p.contains("autoscale")) {
      scaled = true;
      hours += p.at("autoscale").at("gpu_hours").get<double>();
    } else {
      hours += p.at("gpus").get<double>() * s.value("duration_s", 0.0) / 3600.0;
    }
  }
  return scaled ? hours : std::nan("");
}

// Built from the rows (not the live results), so points read back from a
// checkpoint print the same way as fresh ones.
std::string summary_line_table(const std::vector<planning::PointRecord>& points,
                               const std::vector<planning::SweepAxis>& axes) {
  std::string out;
  std::vector<std::size_t> w;
  for (const auto& a : axes) {
    std::size_t width = a.key.size();
    for (const auto& v : a.values) width = std::max(width, v.size());
    w.push_back(width);
  }
  // Autoscaled fleets (the autoscale section) and autoscaled disaggregated pools: the
  // GPU-hours each point held, the figure their trade-off is about (a column only then:
  // other sweeps print as before).
  bool autoscaled = false;
  for (const auto& p : points) {
    const nlohmann::ordered_json j = p.json();
    autoscaled = autoscaled || (j.at("status") == "ok" && !std::isnan(held_gpu_hours(j)));
  }
  out += fmt::format("{:>5}", "point");
  for (std::size_t a = 0; a < axes.size(); ++a) out += fmt::format("  {:>{}}", axes[a].key, w[a]);
  out += fmt::format("  {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>5}  {}\n", "req/s", "out tok/s", "TTFT p50",
                     "TTFT p99", "TPOT p50", "TPOT p99", "SLO %", "SLO", autoscaled ? "GPU-h    load" : "load");
  for (const auto& record : points) {
    const planning::PointRecord& p = record;
    const nlohmann::ordered_json json = p.json();
    out += fmt::format("{:>5}", p.index);
    for (std::size_t a = 0; a < axes.size(); ++a) out += fmt::format("  {:>{}}", p.values[a], w[a]);
    if (json.at("status") != "ok") {
      out += fmt::format("  infeasible: {}\n", json.at("reason").get<std::string>());
      continue;
    }
    const auto& slo = json.at("summary").at("slo");
    const bool no_slo = slo.at("targets").empty();
    // A point whose queue grows without bound is said to be so, SLOs or not: its
    // percentiles depend on how many requests were simulated.
    const auto& load = json.at("summary").at("load");
    const bool overloaded = load.value("overloaded", false);
    out += fmt::format("  {:>8.2f} {:>9.0f} {:>9.1f} {:>9.1f} {:>9.2f} {:>9.2f} {:>7.1f} {:>5}  {}\n",
                       summary_number(json, "throughput", "requests_per_s"),
                       summary_number(json, "throughput", "output_tokens_per_s"),
                       summary_number(json, "ttft_ms", "p50"), summary_number(json, "ttft_ms", "p99"),
                       summary_number(json, "tpot_ms", "p50"), summary_number(json, "tpot_ms", "p99"),
                       100 * summary_number(json, "slo", "attainment"),
                       no_slo ? "-" : (slo.at("met").get<bool>() ? "met" : "MISS"),
                       (autoscaled ? fmt::format("{:>8.2f} ", held_gpu_hours(json)) : std::string()) +
                           (overloaded ? fmt::format("OVERLOADED (offered {:.2f} req/s)",
                                                load.value("offered_rps", 0.0))
                                  : std::string("ok")));
  }
  return out;
}

// `sweep --shard K/N --out FILE`: this shard's points only, into a shard file that
// `servesim merge` joins with the others (planning/sweep_shard.h).
void run_shard(const SweepArgs& a) {
  const planning::Shard shard = planning::parse_shard(a.shard);
  if (a.out.empty()) throw Error("--shard: give --out FILE for the shard file (`servesim merge` joins them)");
  if (a.csv || a.json || ends_with(a.out, ".csv") || ends_with(a.out, ".json"))
    throw Error(fmt::format("--shard writes a shard file (JSON lines, e.g. --out shard-{}.jsonl), not the sweep's CSV "
                            "or JSON: `servesim merge OUT.csv SHARD...` makes those",
                            shard.index));
  VariedRunArgs plain = a;
  plain.out.clear();  // a shard file, not the .csv/.json varied_axes checks for
  const auto axes = varied_axes(plain);
  check_output_file(a.out, "--out");  // before any simulation
  const ConfigNode doc = load_document(a.scenario, overrides_with_slo(a.slo, a.sets));
  planning::SweepOptions opt;
  opt.threads = varied_threads(a);
  opt.max_points = a.max_points;
  planning::ProgressBar bar("points", planning::stderr_is_terminal());
  opt.progress = [&bar](std::size_t done, std::size_t total) { bar.update(done, total); };
  const std::string fingerprint =
      planning::sweep_fingerprint(a.scenario.empty() ? "" : read_text_file(a.scenario), overrides_with_slo(a.slo, a.sets), axes);
  std::string text;
  try {
    text = planning::run_sweep_shard(doc, a.scenario, axes, opt, shard, fingerprint);
  } catch (const Interrupted&) {
    bar.finish();
    throw Interrupted(fmt::format("interrupted: shard {}/{} stopped; nothing written to {}", shard.index,
                                  shard.count, a.out));
  }
  bar.finish();
  write_out_file(a.out, text);
  std::size_t total = 1;
  for (const auto& ax : axes) total *= ax.values.size();
  const std::size_t mine = total / shard.count + (shard.index < total % shard.count ? 1 : 0);
  fmt::print("shard {}/{}: {} of {} points over {}\nwrote {}\n", shard.index, shard.count, mine, total, a.scenario,
             a.out);
}

void run(const SweepArgs& a) {
  if (!a.shard.empty()) return run_shard(a);
  const auto axes = varied_axes(a);  // --out checked here, before any simulation
  const ConfigNode doc = load_document(a.scenario, overrides_with_slo(a.slo, a.sets));
  planning::SweepOptions opt;
  opt.threads = varied_threads(a);
  opt.max_points = a.max_points;
  planning::ProgressBar bar("points", planning::stderr_is_terminal());
  opt.progress = [&bar](std::size_t done, std::size_t total) { bar.update(done, total); };
  const std::string fingerprint =
      planning::sweep_fingerprint(a.scenario.empty() ? "" : read_text_file(a.scenario), overrides_with_slo(a.slo, a.sets), axes);
  planning::CheckpointedSweep r;
  try {
    r = planning::run_sweep_checkpointed(doc, a.scenario, axes, opt, a.out, fingerprint);
  } catch (const Interrupted&) {
    bar.finish();
    throw;
  }
  bar.finish();
  if (r.resumed > 0)
    std::cerr << fmt::format("resumed: {} of {} points read back from {}\n", r.resumed, r.records.size(),
                             planning::partial_path(a.out));
  const auto& points = r.records;
  if (a.json) {
    std::cout << planning::records_json_text(points) << "\n";
  } else if (a.csv) {
    std::cout << planning::records_csv(points, axes);
  } else {
    std::size_t ok = 0;
    for (const auto& p : points) ok += p.json().at("status") == "ok" ? 1 : 0;
    fmt::print("{} points ({} feasible) over {}\n\n", points.size(), ok, a.scenario);
    fmt::print("{}", summary_line_table(points, axes));
    if (!a.out.empty()) fmt::print("\nwrote {}\n", a.out);
  }
}

}  // namespace

void register_sweep(CLI::App& app) {
  static SweepArgs a;
  a.no_vary_hint = "give at least one --vary KEY=V1,V2,... or --vary KEY=START:STOP:STEP";
  auto* cmd = app.add_subcommand("sweep", "Simulate the cartesian product of scenario keys, one row per point");
  cmd->add_option("scenario", a.scenario, "scenario YAML")->required();
  cmd->add_option("--vary", a.vary,
                  "KEY=V1,V2,... or KEY=START:STOP:STEP (inclusive), e.g. --vary workload.arrival.rate=2:20:2");
  cmd->add_option("--set", a.sets, "override a scenario key for every point");
  add_slo_option(cmd, a.slo);
  cmd->add_option("-j,--jobs", a.threads, "points simulated in parallel (default: all cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--max-points", a.max_points,
                  fmt::format("refuse sweeps of more points than this (default {})", planning::kDefaultMaxSweepPoints))
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000'000}));
  cmd->add_option("--out", a.out, "write every point's full summary to FILE.csv or FILE.json");
  cmd->add_flag("--csv", a.csv, "print the CSV to stdout instead of the table");
  cmd->add_flag("--json", a.json, "print JSON to stdout instead of the table");
  cmd->add_option("--shard", a.shard,
                  "K/N: simulate only the points i with i mod N = K (K from 0) and write them to --out as a "
                  "shard file for `servesim merge`");
  cmd->callback([] { run(a); });
}

// `servesim merge OUT.csv|OUT.json SHARD...`: the shard files of `sweep --shard K/N`
// joined into exactly the file the unsharded `sweep --out OUT` writes.
void register_merge(CLI::App& app) {
  static std::string out;
  static std::vector<std::string> shards;
  auto* cmd = app.add_subcommand("merge", "Join the shard files of `sweep --shard K/N` into the sweep's CSV or JSON");
  cmd->add_option("out", out, "FILE.csv or FILE.json (byte-identical to `sweep --out` of the whole sweep)")
      ->required();
  cmd->add_option("shards", shards, "the shard files, one per K = 0..N-1, in any order")->required();
  cmd->callback([] {
    if (!ends_with(out, ".csv") && !ends_with(out, ".json"))
      throw Error(fmt::format("merge {}: name a .csv or .json file", out));
    check_output_file(out, "merge");
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& s : shards) files.emplace_back(s, read_text_file(s));
    const planning::MergedSweep merged = planning::merge_sweep_shards(files);
    write_out_file(out, planning::sweep_output_text(merged, ends_with(out, ".json")));
    fmt::print("merged {} shard files, {} points\nwrote {}\n", files.size(), merged.records.size(), out);
  });
}

void register_planning(CLI::App& app) {
  register_sweep(app);
  register_plan(app);
  register_whatif(app);
  register_merge(app);
}

}  // namespace servesim::cli
