// `servesim validate-static [--data DIR | --file CSV...] [--set K=V]... [--json] [--out DIR]`:
// published static-batch latencies and offline throughput against the step-cost model.
// `servesim validate-report --static F --experiments F [--trace F]...`: the Markdown
// report tools/validate-all writes (docs/validation-report.md) from their JSON.
#include <fmt/format.h>
#include <optional>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "cli/cli_checks.h"
#include "cli/commands.h"
#include "cli/validate_commands.h"
#include "util/atomic_file.h"
#include "util/output_dir.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/paths.h"
#include "util/text.h"
#include "util/untrusted_text.h"
#include "validation/static_batch.h"

namespace servesim::cli {
namespace {

using nlohmann::json;

struct StaticArgs {
  std::string data;
  std::vector<std::string> files;
  std::vector<std::string> sets;
  std::string only;
  bool json = false;
  std::string out;
  bool no_offline = false;
  std::int64_t offline_requests = 2000;
  std::int64_t offline_max_seqs = 1024;
  std::int64_t offline_max_tokens = 8192;
  double offline_mem = 0.95;
};

// 12345 -> "12345", 71.26 -> "71.3", 0.4567 -> "0.457": readable across the tables' ranges.
std::string num(double v) {
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.3g}", v);
}

std::string row_label(const RowResult& r) {
  std::string s = r.model.empty() ? r.row.model : r.model;
  s += fmt::format(" tp{}", r.row.tp);
  if (r.batch > 0) s += fmt::format(" B={}", r.batch);
  s += fmt::format(" {}/{}", r.row.isl_text, r.row.osl_text);
  return s;
}

std::string csv_field(const std::string& s) { return csv_cell(s); }


json row_json(const RowResult& r) {
  return {{"dataset", r.row.dataset}, {"line", r.row.line},        {"hardware", r.row.hardware},
          {"gpu", r.gpu},             {"model", r.row.model},      {"catalog_model", r.model},
          {"precision", r.row.precision}, {"tp", r.row.tp},        {"num_gpus", r.row.num_gpus},
          {"isl", r.row.isl_text},    {"osl", r.row.osl_text},     {"batch", r.batch},
          {"kind", r.batch > 0 ? "static" : "offline"},            {"metric", r.row.metric},
          {"unit", r.unit},           {"measured", r.measured},    {"predicted", r.predicted},
          {"error_pct", r.error_pct}, {"prediction", r.prediction}, {"label", row_label(r)}};
}

void run_static(const StaticArgs& a) {
  std::optional<OutputDir> out;  // checked before simulating, not after; its three files as a set
  if (!a.out.empty()) out.emplace(a.out, "--out");
  std::vector<std::string> files = a.files;
  if (files.empty()) {
    const std::string root = a.data.empty() ? data_root() + "/data" : a.data;
    for (const char* sub : {"static_batch", "offline_throughput"}) {
      const std::string dir = root + "/" + sub;
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec)) continue;
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".csv") found.push_back(e.path().string());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    }
    if (files.empty())
      throw Error(fmt::format("no CSV files in {0}/static_batch or {0}/offline_throughput (pass --data or --file)", root));
  }
  std::vector<BenchmarkRow> rows;
  for (const auto& f : files) {
    if (!a.only.empty() && std::filesystem::path(f).stem().string().find(a.only) == std::string::npos) continue;
    auto r = read_benchmark_csv(f);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  StaticValidationOptions o;
  o.edits = parse_edits(a.sets);
  o.offline = !a.no_offline;
  o.offline_requests = a.offline_requests;
  o.offline_max_num_seqs = a.offline_max_seqs;
  o.offline_max_num_batched_tokens = a.offline_max_tokens;
  o.offline_gpu_memory_utilization = a.offline_mem;
  if (isatty(STDERR_FILENO))
    o.progress = [](int done, int total) {
      std::cerr << fmt::format("\roffline simulations: {} / {}", done, total) << (done == total ? "\r\033[K" : "");
    };
  const std::vector<RowResult> results = validate_static_rows(rows, o);
  const std::vector<GroupErrors> groups = group_errors(results);

  std::int64_t compared = 0;
  std::map<std::string, std::int64_t> skipped;
  for (const auto& r : results) {
    if (r.compared) ++compared;
    else ++skipped[r.skip_reason];
  }
  const std::int64_t skipped_total = static_cast<std::int64_t>(results.size()) - compared;

  json jrows = json::array(), jgroups = json::array(), jskipped = json::object();
  for (const auto& r : results)
    if (r.compared) jrows.push_back(row_json(r));
  for (const auto& g : groups) {
    json worst = json::array();
    for (const RowResult* w : g.worst) worst.push_back(row_json(*w));
    jgroups.push_back({{"dataset", g.dataset}, {"gpu", g.gpu}, {"metric", g.metric},
                       {"kind", g.worst.empty() || g.worst[0]->batch > 0 ? "static" : "offline"},
                       {"unit", g.worst.empty() ? "" : g.worst[0]->unit}, {"count", g.count},
                       {"median_abs_error_pct", g.median_abs_pct}, {"median_signed_error_pct", g.median_signed_pct},
                       {"worst", worst}});
  }
  for (const auto& [why, n] : skipped) jskipped[why] = n;
  json overall = json::object();
  for (const std::string kind : {"static", "offline"}) {
    std::vector<double> abs, sig;
    for (const auto& r : results) {
      if (!r.compared || (r.batch > 0) != (kind == "static")) continue;
      abs.push_back(std::fabs(r.error_pct));
      sig.push_back(r.error_pct);
    }
    overall[kind] = {{"count", abs.size()}, {"median_abs_error_pct", median_of(abs)},
                     {"median_signed_error_pct", median_of(sig)}};
  }
  json shown_files = json::array();
  for (const auto& f : files) {
    std::error_code ec;
    const auto rel = std::filesystem::relative(f, ec);
    shown_files.push_back(ec || rel.empty() || rel.string().rfind("..", 0) == 0 ? f : rel.string());
  }
  const json doc = {{"files", shown_files},
                    {"rows_read", results.size()},
                    {"compared", compared},
                    {"skipped", {{"count", skipped_total}, {"by_reason", jskipped}}},
                    {"offline", {{"simulated", o.offline}, {"requests", o.offline_requests},
                                 {"max_num_seqs", o.offline_max_num_seqs},
                                 {"max_num_batched_tokens", o.offline_max_num_batched_tokens},
                                 {"gpu_memory_utilization", o.offline_gpu_memory_utilization}}},
                    {"overrides", a.sets},
                    {"overall", overall},
                    {"groups", jgroups},
                    {"rows", jrows}};

  if (!a.out.empty()) {
    json summary = doc;  // the rows are in static_rows.csv
    summary.erase("rows");
    out->write("static.json", summary.dump(1) + "\n");
    std::string csv =
        "dataset,line,hardware,gpu,model,catalog_model,precision,tp,num_gpus,isl,osl,concurrency_or_rate,batch,metric,"
        "unit,measured,predicted,error_pct,prediction,skip_reason\n";
    for (const auto& r : results)
      csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(r.row.dataset), r.row.line,
                         csv_field(r.row.hardware), csv_field(r.gpu), csv_field(r.row.model), csv_field(r.model), csv_field(r.row.precision),
                         r.row.tp, r.row.num_gpus, csv_field(r.row.isl_text), csv_field(r.row.osl_text),
                         csv_field(r.row.concurrency), r.batch, r.row.metric, r.unit,
                         r.compared ? fmt::format("{:.6g}", r.measured) : "",
                         r.compared ? fmt::format("{:.6g}", r.predicted) : "",
                         r.compared ? fmt::format("{:.2f}", r.error_pct) : "", csv_field(r.prediction),
                         csv_field(r.skip_reason));
    out->write("static_rows.csv", csv);
    std::string gcsv = "dataset,gpu,metric,count,median_abs_error_pct,median_signed_error_pct\n";
    for (const auto& g : groups)
      gcsv += fmt::format("{},{},{},{},{:.2f},{:.2f}\n", csv_field(g.dataset), csv_field(g.gpu), g.metric, g.count, g.median_abs_pct,
                          g.median_signed_pct);
    out->write("static_groups.csv", gcsv);
    out->commit();
  }
  if (a.json) {
    std::cout << doc.dump(2) << "\n";
    return;
  }
  fmt::print("{} rows in {} file{}: {} compared, {} skipped\n\n", results.size(), files.size(),
             files.size() == 1 ? "" : "s", compared, skipped_total);
  fmt::print("{:<34} {:<15} {:<24} {:>4} {:>9} {:>9}  {}\n", "data set", "GPU", "metric", "n", "med|err|",
             "med err", "worst row (measured -> predicted)");
  for (const auto& g : groups) {
    std::string worst;
    if (!g.worst.empty()) {
      const RowResult& w = *g.worst[0];
      worst = fmt::format("{}: {} -> {} {} ({:+.0f}%)", row_label(w), num(w.measured), num(w.predicted), w.unit,
                          w.error_pct);
    }
    fmt::print("{:<34} {:<15} {:<24} {:>4} {:>8.1f}% {:>+8.1f}%  {}\n", csv_field(g.dataset), csv_field(g.gpu), g.metric, g.count,
               g.median_abs_pct, g.median_signed_pct, worst);
  }
  fmt::print("\nskipped rows: {}\n", skipped_total);
  for (const auto& [why, n] : skipped) fmt::print("  {:>4}  {}\n", n, why);
  fmt::print("overall: static batch {} rows, median |error| {:.1f}% (bias {:+.1f}%); offline throughput {} rows, median "
             "|error| {:.1f}% (bias {:+.1f}%)\n",
             overall["static"]["count"].get<std::int64_t>(), overall["static"]["median_abs_error_pct"].get<double>(),
             overall["static"]["median_signed_error_pct"].get<double>(), overall["offline"]["count"].get<std::int64_t>(),
             overall["offline"]["median_abs_error_pct"].get<double>(),
             overall["offline"]["median_signed_error_pct"].get<double>());
  if (!a.out.empty()) fmt::print("\nwrote {0}/static.json, {0}/static_rows.csv, {0}/static_groups.csv\n", a.out);
}

// ---- validate-report ---------------------------------------------------------------

struct ReportArgs {
  std::string static_json;
  std::string experiments_json;
  std::vector<std::string> traces;
  std::vector<std::string> calibrations;
  std::vector<std::string> notes;
  std::string output;
};

json load(const std::string& path) { return read_json_file(path); }

std::string pct(double v, bool sign = false) { return sign ? fmt::format("{:+.1f}%", v) : fmt::format("{:.1f}%", v); }

std::string worst_text(const json& w) {
  return fmt::format("{} ({}:{}): {} → {} {} ({:+.0f}%)", w.value("label", ""), w.value("dataset", ""),
                     w.value("line", 0), num(w.value("measured", 0.0)), num(w.value("predicted", 0.0)),
                     w.value("unit", ""), w.value("error_pct", 0.0));
}

void static_tables(std::string& md, const json& doc) {
  for (const std::string kind : {"static", "offline"}) {
    md += kind == "static"
              ? "## Static batch (closed-form step costs)\n\n"
                "One batch run to completion: prefill of the whole batch in one step, decode steps with growing "
                "context (see docs/validation.md for each metric's prediction).\n\n"
              : "## Offline throughput (vLLM-engine simulation, all requests at once)\n\n";
    md += "| data set | GPU | metric | n | median \\|error\\| | median error (bias) | worst row |\n"
          "|---|---|---|---:|---:|---:|---|\n";
    for (const json& g : doc.at("groups")) {
      if (g.value("kind", "") != kind) continue;
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", g.value("dataset", ""), g.value("gpu", ""),
                        g.value("metric", ""), g.value("count", 0), pct(g.value("median_abs_error_pct", 0.0)),
                        pct(g.value("median_signed_error_pct", 0.0), true),
                        g.at("worst").empty() ? "" : worst_text(g.at("worst")[0]));
    }
    // All rows of the kind together.
    if (doc.contains("overall") && doc.at("overall").contains(kind) && doc.at("overall").at(kind).value("count", 0) > 0) {
      const json& all = doc.at("overall").at(kind);
      md += fmt::format("| **all** | | | {} | **{}** | {} | |\n", all.value("count", 0),
                        pct(all.value("median_abs_error_pct", 0.0)), pct(all.value("median_signed_error_pct", 0.0), true));
    }
    md += "\n";
  }
  const json& sk = doc.at("skipped");
  md += fmt::format("Skipped rows: {} of {}.", sk.value("count", 0), doc.value("rows_read", 0));
  if (!sk.at("by_reason").empty()) {
    md += "\n\n| reason | rows |\n|---|---:|\n";
    for (const auto& [why, n] : sk.at("by_reason").items()) md += fmt::format("| {} | {} |\n", why, n.get<std::int64_t>());
  }
  md += "\n";
}

void experiment_tables(std::string& md, const json& doc) {
  md += "## Serving experiments (`servesim validate-experiments`)\n\n"
        "Measured vLLM v0.15.1 serving runs (data/serving/vllm_serving_experiments.json) replayed stage by stage.\n\n"
        "| GPU | metric | n | median \\|error\\| | median error (bias) | worst experiment |\n"
        "|---|---|---:|---:|---:|---|\n";
  const char* metrics[] = {"ttft_mean", "ttft_p90", "ttft_p99", "tpot_mean", "e2e_mean", "e2e_p90", "e2e_p99"};
  std::set<std::string> gpus;
  for (const json& e : doc.at("experiments")) gpus.insert(e.value("gpu", ""));
  std::vector<std::string> order(gpus.begin(), gpus.end());
  order.push_back("all");
  for (const auto& gpu : order) {
    for (const char* m : metrics) {
      std::vector<double> abs, sig;
      double worst = -1;
      std::string worst_key;
      for (const json& e : doc.at("experiments")) {
        if (gpu != "all" && e.value("gpu", "") != gpu) continue;
        if (!e.contains(m)) continue;
        const json& x = e.at(m);
        if (x.value("measured_ms", 0.0) <= 0) continue;
        const double err = x.value("error_pct", 0.0);
        abs.push_back(std::fabs(err));
        sig.push_back(err);
        if (std::fabs(err) > worst) {
          worst = std::fabs(err);
          worst_key = fmt::format("{}: {} → {} ms ({:+.0f}%)", e.value("key", ""), num(x.value("measured_ms", 0.0)),
                                  num(x.value("predicted_ms", 0.0)), err);
        }
      }
      if (abs.empty()) continue;
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", gpu == "all" ? "**all**" : gpu, m, abs.size(),
                        gpu == "all" ? "**" + pct(median_of(abs)) + "**" : pct(median_of(abs)),
                        pct(median_of(sig), true), worst_key);
    }
  }
  md += "\n";
}

void trace_table(std::string& md, const json& doc) {
  md += fmt::format("## Trace replay: {} on {} x{} (`servesim validate`)\n\n", doc.value("model", ""),
                    doc.value("gpu", ""), doc.value("gpus", 0));
  md += fmt::format("Scenario `{}`, trace `{}` ({}, {} requests). Simulated: {} completed, {} failed, {} "
                    "preemptions.\n\n",
                    doc.value("scenario", ""), std::filesystem::path(doc.value("trace", "")).filename().string(),
                    doc.value("format", ""), doc.value("requests", 0), doc.at("simulated").value("completed", 0),
                    doc.at("simulated").value("failed", 0), doc.at("simulated").value("preemptions", 0));
  if (doc.value("no_token_requests", 0) > 0)
    md += fmt::format("{} requests streamed no token (output_lens 0, ttft 0 in the file): replayed with one output "
                      "token, left out of the measured statistics.\n\n",
                      doc.value("no_token_requests", 0));
  md += "| metric | stat | measured (ms) | predicted (ms) | error | Pearson (per request) |\n"
        "|---|---|---:|---:|---:|---:|\n";
  for (const std::string m : {"ttft", "tpot", "itl", "e2e"}) {
    if (!doc.at("metrics").contains(m)) continue;
    const json& x = doc.at("metrics").at(m);
    for (const std::string stat : {"mean", "p50", "p90", "p99"}) {
      const bool first = stat == "mean";
      std::string corr;
      if (first && !x.at("pearson").is_null()) corr = fmt::format("{:.3f} (n={})", x.at("pearson").get<double>(), x.value("paired", 0));
      std::string label = m;
      for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      md += fmt::format("| {} | {} | {:.1f} | {:.1f} | {} | {} |\n", first ? label : "", stat,
                        x.at("measured_ms").value(stat, 0.0), x.at("predicted_ms").value(stat, 0.0),
                        pct(x.at("error_pct").value(stat, 0.0), true), corr);
    }
  }
  const json& t = doc.at("output_throughput");
  if (t.value("measured_tokens_per_s", 0.0) > 0)
    md += fmt::format("\nOutput throughput: measured {:.1f} tok/s, predicted {:.1f} tok/s ({}).\n",
                      t.value("measured_tokens_per_s", 0.0), t.value("predicted_tokens_per_s", 0.0),
                      pct(t.value("error_pct", 0.0), true));
  md += fmt::format("\nVerdict: {}\n\n", doc.value("verdict", ""));
}

void run_report(const ReportArgs& a) {
  std::string md = "# servesim validation report\n\n";
  for (const auto& n : a.notes) md += n + "  \n";
  if (!a.notes.empty()) md += "\n";
  md += "Errors are (predicted − measured) / measured. \"median |error|\" is the median absolute error of the rows "
        "in the group, \"median error\" the signed median (bias: negative = servesim predicts too little).\n\n";
  if (!a.static_json.empty()) static_tables(md, load(a.static_json));
  if (!a.calibrations.empty()) {
    std::vector<json> docs;
    for (const auto& c : a.calibrations) docs.push_back(load(c));
    static_calibration_tables(md, docs);
  }
  if (!a.experiments_json.empty()) experiment_tables(md, load(a.experiments_json));
  for (const auto& t : a.traces) trace_table(md, load(t));
  if (a.output.empty()) {
    std::cout << md;
    return;
  }
  write_file_atomically(a.output, md);
}

}  // namespace

void register_validate_static(CLI::App& app) {
  static StaticArgs a;
  auto* cmd = app.add_subcommand(
      "validate-static",
      "Compare published static-batch latencies (LMDeploy, Splitwise, TensorRT-LLM) and offline throughput "
      "(TensorRT-LLM 0.11) with servesim's predictions, per data set, GPU and metric");
  cmd->add_option("--data", a.data, "folder holding static_batch/*.csv and offline_throughput/*.csv (default: data/)");
  cmd->add_option("--file", a.files, "read these CSV files instead");
  cmd->add_option("--only", a.only, "only files whose name contains this text");
  cmd->add_option("--set", a.sets, "override a scenario key for every row (e.g. hardware efficiency)");
  cmd->add_flag("--no-offline", a.no_offline, "skip the offline-throughput simulations");
  // Ranges as the scenario keys these become have (config/read_engine.cpp, config/workload_limits.h).
  cmd->add_option("--offline-requests", a.offline_requests, "requests per offline simulation (default 2000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  cmd->add_option("--offline-max-seqs", a.offline_max_seqs, "engine.max_num_seqs of the offline simulations (1024)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000}));
  cmd->add_option("--offline-max-batched-tokens", a.offline_max_tokens,
                  "engine.max_num_batched_tokens of the offline simulations (8192)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{100'000'000}));
  cmd->add_option("--offline-memory", a.offline_mem, "engine.gpu_memory_utilization of the offline simulations (0.95)")
      ->check(real_range(0.01, 1.0));
  cmd->add_flag("--json", a.json, "print JSON");
  cmd->add_option("--out", a.out, "write static.json, static_rows.csv and static_groups.csv here");
  cmd->callback([] { run_static(a); });
}

void register_validate_report(CLI::App& app) {
  static ReportArgs a;
  auto* cmd = app.add_subcommand("validate-report",
                                 "Write the Markdown validation report from the JSON of validate-static, "
                                 "validate-experiments and validate (used by tools/validate-all)");
  cmd->add_option("--static", a.static_json, "validate-static --json output");
  cmd->add_option("--experiments", a.experiments_json, "validate-experiments --json output");
  cmd->add_option("--trace", a.traces, "validate --json output (repeatable)");
  cmd->add_option("--calibration", a.calibrations, "calibrate static --json output (repeatable)");
  cmd->add_option("--note", a.notes, "a line for the report's header (repeatable)");
  cmd->add_option("-o,--output", a.output, "write here instead of standard output");
  cmd->callback([] { run_report(a); });
}

}  // namespace servesim::cli
