// `servesim validate SCENARIO.yaml [--trace FILE] [--format auto|csv|vllm_bench|vllm_bench_summary|guidellm|aiperf|aiperf_summary] [--set K=V]... [--json]
//  [--out DIR] [--no-plots]`: replays a trace with measured per-request latencies through the
// scenario's hardware, model and engine and reports the error of each metric.
#include <fmt/format.h>
#include <optional>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli_checks.h"
#include "cli/commands.h"
#include "cli/slo_args.h"
#include "cli/scenario_args.h"
#include "cli/validate_commands.h"
#include "metrics/summary_json.h"
#include "util/atomic_file.h"
#include "util/output_dir.h"
#include "util/error.h"
#include "util/text.h"
#include "config/scenario_reader.h"

namespace servesim::cli {
namespace {

struct Args {
  std::string scenario;
  std::string trace;
  std::string format = "auto";
  std::vector<std::string> sets, slo;
  bool json = false;
  std::string out;
  bool no_plots = false;
  ValidationTargets targets;
};

const char* metric_label(const std::string& m) {
  if (m == "ttft") return "TTFT";
  if (m == "tpot") return "TPOT";
  if (m == "itl") return "ITL";
  return "E2E";
}

// A path relative to the working directory when it lies below it (reports stay portable).
std::string shown(const std::string& path) {
  std::error_code ec;
  const auto rel = std::filesystem::relative(path, ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0) return path;
  return rel.string();
}

nlohmann::json stats_json(const Distribution& d) {
  return {{"count", d.count}, {"mean", d.mean}, {"p50", d.p50}, {"p90", d.p90}, {"p99", d.p99}};
}

void run(const Args& a) {
  // Checked before simulating, not after; every file (plots too) is staged and the
  // folder committed as a set at the end.
  std::optional<OutputDir> out;
  if (!a.out.empty()) out.emplace(a.out, "--out");
  ConfigNode doc = load_document(a.scenario, overrides_with_slo(a.slo, a.sets));
  std::string trace = a.trace;
  TraceFormat format = parse_trace_format(a.format, "--format");
  if (trace.empty()) {
    // Fall back on the scenario's own trace.
    const ConfigNode* w = doc.find("workload");
    if (!w || !w->is_map() || !w->find("trace"))
      throw Error(fmt::format("{}: no --trace given and the scenario's workload has no trace", a.scenario));
    const Scenario own = parse_scenario(doc, a.scenario);
    trace = own.workload.trace->path;
    if (a.format == "auto") format = own.workload.trace->format;
  }
  const Scenario sc = trace_scenario(std::move(doc), a.scenario, trace, format);
  const TraceValidation v = validate_trace(sc, a.targets);
  for (const auto& w : v.warnings) std::cerr << "warning: " << w << "\n";

  if (!a.out.empty()) {
    out->write("predicted_vs_measured.csv", predicted_vs_measured_csv(v));
    out->write("validation.json", trace_validation_json(sc, v).dump(2) + "\n");
  }
  std::vector<std::string> images;
  if (!a.out.empty() && !a.no_plots) {
    const std::string title = fmt::format("{} on {} x{}, {}", sc.model.name, sc.gpu.name, sc.parallelism.total_gpus(),
                                          std::filesystem::path(v.trace_path).filename().string());
    for (const std::string& staged : write_validation_plots(v, out->staging(), title))
      images.push_back(out->path() + "/" + std::filesystem::path(staged).filename().string());
  }
  if (out) out->commit();
  if (a.json) {
    std::cout << trace_validation_json(sc, v).dump(2) << "\n";
    return;
  }
  fmt::print("{} on {} x{} (tp={}, pp={}, replicas={}), {}, {} engine\n", sc.model.name, sc.gpu.name,
             sc.parallelism.total_gpus(), sc.parallelism.tp, sc.parallelism.pp, sc.parallelism.replicas,
             sc.resolved.describe(), sc.engine.kind);
  fmt::print("trace: {} ({}, {} requests{})\n", shown(v.trace_path), trace_format_name(v.format), v.requests,
             v.format == TraceFormat::vllm_bench && v.replay_note.empty()
                 ? fmt::format("; send times regenerated from request_rate, seed {}", sc.workload.seed)
             : v.replay_note.empty() ? ""
                                     : "; " + v.replay_note);
  if (v.no_token_requests > 0)
    fmt::print("{} requests streamed no token (output_lens 0, ttft 0): replayed with 1 output token, not compared\n",
               v.no_token_requests);
  fmt::print("simulated: {} completed, {} failed, {} preemptions, prefix hit rate {:.1f}%\n\n", v.predicted_completed,
             v.predicted_failed, v.preemptions, 100 * v.prefix_hit_rate);
  fmt::print("{:<6} {:>6} {:<5} {:>12} {:>12} {:>9} {:>8}\n", "metric", "n", "stat", "measured", "predicted", "error",
             "|error|");
  for (const auto& c : v.metrics) {
    const char* label = metric_label(c.name);
    const double mv[] = {c.measured.mean, c.measured.p50, c.measured.p90, c.measured.p99};
    const double pv[] = {c.predicted.mean, c.predicted.p50, c.predicted.p90, c.predicted.p99};
    const char* stat[] = {"mean", "p50", "p90", "p99"};
    for (int i = 0; i < 4; ++i) {
      if (std::isnan(mv[i])) {  // a statistic the file does not give (vllm bench serve: p99 only by default)
        fmt::print("{:<6} {:>6} {:<5} {:>12} {:>9.1f} ms {:>9} {:>8}\n", i == 0 ? label : "",
                   i == 0 ? std::to_string(c.measured.count) : "", stat[i], "-", pv[i], "-", "-");
        continue;
      }
      const double err = percent_error(pv[i], mv[i]);
      fmt::print("{:<6} {:>6} {:<5} {:>9.1f} ms {:>9.1f} ms {:>+8.1f}% {:>7.1f}%\n", i == 0 ? label : "",
                 i == 0 ? std::to_string(c.measured.count) : "", stat[i], mv[i], pv[i], err, std::fabs(err));
    }
  }
  if (v.aggregate_only) {
    fmt::print("\nper-request Pearson correlation: none (an aggregate-only export: measured statistics from the file, "
               "predicted over the regenerated requests)\n");
  } else {
    fmt::print("\nper-request Pearson correlation (requests matched by index):");
    for (const auto& c : v.metrics) {
      if (c.name == "itl") continue;
      fmt::print(" {} {} (n={})", metric_label(c.name), c.pearson ? fmt::format("{:.3f}", *c.pearson) : "n/a", c.paired);
    }
    fmt::print("\n");
  }
  if (v.measured_output_tps > 0 && v.measured_duration_s <= 0)  // a summary with the rate but not the duration
    fmt::print("output throughput: measured {:.1f} tok/s, predicted {:.1f} tok/s ({} tokens in {:.1f} s): {:+.1f}%\n",
               v.measured_output_tps, v.predicted_output_tps, v.predicted_output_tokens, v.predicted_duration_s,
               percent_error(v.predicted_output_tps, v.measured_output_tps));
  else if (v.measured_output_tps > 0)
    fmt::print("output throughput: measured {:.1f} tok/s ({} tokens in {:.1f} s), predicted {:.1f} tok/s ({} tokens in "
               "{:.1f} s): {:+.1f}%\n",
               v.measured_output_tps, v.measured_output_tokens, v.measured_duration_s, v.predicted_output_tps,
               v.predicted_output_tokens, v.predicted_duration_s,
               percent_error(v.predicted_output_tps, v.measured_output_tps));
  else
    fmt::print("output throughput: predicted {:.1f} tok/s (not measured in the trace)\n", v.predicted_output_tps);
  fmt::print("verdict: {}\n", v.verdict);
  if (!a.out.empty()) {
    fmt::print("\nwrote {0}/predicted_vs_measured.csv, {0}/validation.json", a.out);
    for (const auto& i : images)
      if (ends_with(i, ".png")) fmt::print(", {}", std::filesystem::path(i).filename().string());
    fmt::print("{}\n", images.empty() ? "" : " (+ .svg)");
  }
}

}  // namespace

nlohmann::json trace_validation_json(const Scenario& sc, const TraceValidation& v) {
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& c : v.metrics) {
    nlohmann::json err = nlohmann::json::object(), abs = nlohmann::json::object();
    const std::pair<const char*, double> pairs[] = {{"mean", percent_error(c.predicted.mean, c.measured.mean)},
                                                    {"p50", percent_error(c.predicted.p50, c.measured.p50)},
                                                    {"p90", percent_error(c.predicted.p90, c.measured.p90)},
                                                    {"p99", percent_error(c.predicted.p99, c.measured.p99)}};
    for (const auto& [k, e] : pairs) {
      err[k] = e;
      abs[k] = std::fabs(e);
    }
    metrics[c.name] = {{"measured_ms", stats_json(c.measured)},
                       {"predicted_ms", stats_json(c.predicted)},
                       {"error_pct", err},
                       {"abs_error_pct", abs},
                       {"pearson", c.pearson ? nlohmann::json(*c.pearson) : nlohmann::json(nullptr)},
                       {"paired", c.paired}};
  }
  nlohmann::json out = {{"scenario", sc.source},
          {"gpu", sc.gpu.name},
          {"model", sc.model.name},
          {"tp", sc.parallelism.tp},
          {"gpus", sc.parallelism.total_gpus()},
          {"engine", sc.engine.kind},
          {"trace", shown(v.trace_path)},
          {"format", trace_format_name(v.format)},
          {"requests", v.requests},
          {"no_token_requests", v.no_token_requests},
          {"warnings", v.warnings},
          {"simulated", {{"completed", v.predicted_completed}, {"failed", v.predicted_failed},
                         {"preemptions", v.preemptions}, {"prefix_hit_rate", v.prefix_hit_rate}}},
          {"metrics", metrics},
          {"output_throughput",
           {{"measured_tokens_per_s", v.measured_output_tps},
            {"predicted_tokens_per_s", v.predicted_output_tps},
            {"error_pct", v.measured_output_tps > 0 ? nlohmann::json(percent_error(v.predicted_output_tps,
                                                                                   v.measured_output_tps))
                                                    : nlohmann::json(nullptr)},
            {"measured_tokens", v.measured_output_tokens},
            {"predicted_tokens", v.predicted_output_tokens},
            {"measured_duration_s", v.measured_duration_s},
            {"predicted_duration_s", v.predicted_duration_s}}},
          {"within_targets", v.within_targets},
          {"verdict", v.verdict}};
  // Only for the formats that have them, so the csv and vllm_bench files stay as they were.
  if (!v.replay_note.empty()) out["replay"] = v.replay_note;
  if (v.aggregate_only) out["aggregate_only"] = true;
  return out;
}

void register_validate(CLI::App& app) {
  static Args a;
  auto* cmd = app.add_subcommand(
      "validate",
      "Replay a trace with measured per-request latencies (generic CSV, vllm bench serve JSON, GuideLLM report, "
      "AIPerf profile_export.jsonl; or an AIPerf / genai-perf aggregate summary) and report the error of each "
      "metric. Summaries of multi-stage serving runs (no per-request data) are replayed by "
      "`validate-experiments`; static-batch and offline-throughput tables by `validate-static`.");
  cmd->add_option("scenario", a.scenario, "scenario YAML (its hardware, model, parallelism and engine are used; "
                                          "the workload is replaced by the trace)")
      ->required();
  cmd->add_option("--trace", a.trace,
                  "trace with measured latencies: CSV arrival_s,input_tokens,output_tokens[,hash_ids]"
                  "[,ttft_ms,tpot_ms,e2e_ms], a vllm bench serve --save-result JSON (input_lens, output_lens, "
                  "ttfts, itls), a GuideLLM report (JSON/YAML), an AIPerf profile_export.jsonl, or an AIPerf "
                  "profile_export_aiperf.json / genai-perf profile_export_genai_perf.json summary; default: the "
                  "scenario's workload.trace");
  cmd->add_option("--format", a.format,
                  "trace format: auto, csv, vllm_bench, vllm_bench_summary, guidellm, aiperf or aiperf_summary (default auto: "
                  "detected)");
  cmd->add_option("--set", a.sets, "override a scenario key, e.g. --set engine.max_num_seqs=512");
  add_slo_option(cmd, a.slo);
  cmd->add_flag("--json", a.json, "print the comparison as JSON");
  cmd->add_option("--out", a.out,
                  "write predicted_vs_measured.csv, validation.json and plots (TTFT/E2E CDFs, E2E scatter; "
                  "PNG + SVG via gnuplot) here");
  cmd->add_flag("--no-plots", a.no_plots, "with --out: skip the gnuplot plots");
  // A target is an error size in percent: negative (or NaN) could never be met, and
  // past 1000% it says nothing.
  const auto percent = real_range(0.0, 1000.0);
  cmd->add_option("--e2e-target", a.targets.e2e_mean_pct, "target |error| of mean E2E, % (default 10)")->check(percent);
  cmd->add_option("--tpot-target", a.targets.tpot_mean_pct, "target |error| of mean TPOT, % (default 10)")
      ->check(percent);
  cmd->add_option("--ttft-target", a.targets.ttft_mean_pct, "target |error| of mean TTFT, % (default 20)")
      ->check(percent);
  cmd->callback([] { run(a); });
  register_validate_static(app);
  register_validate_report(app);
  register_validate_moe(app);
}

}  // namespace servesim::cli
