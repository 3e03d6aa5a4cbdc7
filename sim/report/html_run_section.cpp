// The report of one run: summary tables, latency CDFs from requests.csv, the
// bottleneck timeline from timeline.csv, and the resolved configuration.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "report/csv_table.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_sections.h"
#include "report/svg_chart.h"
#include "util/error.h"
#include "util/json_file.h"

namespace servesim::report {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// The timeline has one row per engine step (millions in a long run); the chart keeps
// every k-th so that at most this many points per series reach the page.
constexpr size_t kTimelinePoints = 2000;

std::string num(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? format_number(j[key].get<double>()) : "-";
}

std::string summary_tables(const json& s) {
  std::string out = "<h2>All figures</h2>\n";
  const json& req = s.value("requests", json::object());
  const json& tp = s.value("throughput", json::object());
  std::vector<std::vector<std::string>> rows = {
      {"requests completed", num(req, "completed")},
      {"requests failed", num(req, "failed")},
      {"preemptions", num(req, "preemptions")},
      {"duration (s)", num(s, "duration_s")},
      {"GPUs", num(s, "gpus")},
      {"requests/s", num(tp, "requests_per_s")},
      {"output tokens/s", num(tp, "output_tokens_per_s")},
      {"output tokens/s per GPU", num(tp, "output_tokens_per_s_per_gpu")},
  };
  if (req.contains("failures") && req["failures"].is_object())
    for (const auto& [reason, count] : req["failures"].items())
      if (count.is_number() && count.get<double>() > 0)
        rows.push_back({"failed: " + escape_html(reason), format_number(count.get<double>())});
  out += html_table({"", "value"}, rows);
  std::vector<std::vector<std::string>> lat;
  for (const char* m : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "queue_ms"}) {
    const json& d = s.value(m, json::object());
    lat.push_back({m, num(d, "mean"), num(d, "p50"), num(d, "p90"), num(d, "p95"), num(d, "p99"), num(d, "count")});
  }
  out += html_table({"ms", "mean", "p50", "p90", "p95", "p99", "count"}, lat);
  return out;
}

std::string latency_cdfs(const std::string& requests_csv) {
  std::string out = "<h2>Latency CDFs</h2>\n<div class=\"charts\">\n";
  auto cols = read_csv_columns(requests_csv, {"failed", "ttft_ms", "tpot_ms", "e2e_ms"});
  const std::vector<double>& failed = cols[0];
  // A failed request's latency is not a served latency: kept out of the CDFs, counted below.
  size_t failed_rows = 0;
  for (double f : failed)
    if (f != 0 && !std::isnan(f)) ++failed_rows;
  const char* labels[] = {"TTFT", "TPOT", "E2E"};
  const char* names[] = {"ttft_ms", "tpot_ms", "e2e_ms"};
  for (size_t k = 0; k < 3; ++k) {
    std::vector<double> values;
    values.reserve(failed.size());
    for (size_t r = 0; r < failed.size(); ++r)
      if ((failed[r] == 0 || std::isnan(failed[r])) && !std::isnan(cols[k + 1][r])) values.push_back(cols[k + 1][r]);
    std::vector<double>().swap(cols[k + 1]);  // the column's memory back before the next
    Chart chart{fmt::format("cdf-{}", names[k]), fmt::format("{} CDF ({} requests)", labels[k], values.size()),
                fmt::format("{} (ms)", labels[k]), "fraction of requests", {}};
    chart.series.push_back(cdf_series(labels[k], std::move(values)));
    out += render_svg_chart(chart);
  }
  out += "</div>\n";
  if (failed_rows > 0)
    out += fmt::format("<p class=\"bad\">{} failed request(s) are not in the CDFs (see the summary).</p>\n",
                       failed_rows);
  return out;
}

std::string timeline_charts(const std::string& timeline_csv) {
  std::string out = "<h2>Bottleneck timeline</h2>\n";
  const auto cols =
      read_csv_columns(timeline_csv, {"time_s", "batch_size", "queue_length", "kv_blocks_used", "kv_blocks_total"});
  const auto& t = cols[0];
  const size_t rows = t.size();
  const size_t stride = std::max<size_t>(1, (rows + kTimelinePoints - 1) / kTimelinePoints);
  Series b{"batch size", {}, {}}, q{"queue length", {}, {}}, kv{"KV cache used %", {}, {}};
  for (size_t r = 0; r < rows; r += stride) {
    b.x.push_back(t[r]);
    b.y.push_back(cols[1][r]);
    q.x.push_back(t[r]);
    q.y.push_back(cols[2][r]);
    kv.x.push_back(t[r]);
    kv.y.push_back(cols[4][r] > 0 ? 100.0 * cols[3][r] / cols[4][r] : NAN);
  }
  out += fmt::format("<p class=\"note\">{} engine steps{}.</p>\n", rows,
                     stride > 1 ? fmt::format(", one in {} drawn (peaks between drawn steps can be missed)", stride)
                                : std::string());
  out += "<div class=\"charts\">\n";
  out += render_svg_chart({"timeline-batch", "Batch size and waiting queue", "time (s)", "requests", {b, q}});
  out += render_svg_chart({"timeline-kv", "KV cache use", "time (s)", "% of blocks", {kv}});
  out += "</div>\n";
  return out;
}

}  // namespace

std::string run_section(const std::string& run_dir) {
  const fs::path dir(run_dir);
  const std::string summary_path = (dir / "summary.json").string();
  const json summary = read_json_file(summary_path);
  if (!summary.is_object())
    throw Error(fmt::format("{}: {}, not an object (not a summary as `servesim run --out` writes it)", summary_path,
                            summary.type_name()));
  std::string out = run_verdict_section(summary);
  out += summary_tables(summary);
  out += latency_cdfs((dir / "requests.csv").string());
  out += timeline_charts((dir / "timeline.csv").string());
  // The resolved configuration last, folded: the setup line at the top says the essentials.
  out += "<h2>Configuration</h2>\n<details><summary>resolved configuration (summary.json's config)</summary>\n";
  out += html_pre(summary.contains("config") ? summary["config"].dump(2, ' ', false, json::error_handler_t::replace) : std::string("(no config in summary.json)"));
  out += "</details>\n";
  return out;
}

}  // namespace servesim::report
