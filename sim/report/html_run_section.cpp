// The report of one run: summary tables, latency CDFs from requests.csv, the
// bottleneck timeline from timeline.csv, and the resolved configuration.
#include <fmt/format.h>

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
  std::string out = "<h2>Summary</h2>\n";
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

std::string latency_cdfs(const CsvTable& req) {
  std::string out = "<h2>Latency CDFs</h2>\n<div class=\"charts\">\n";
  size_t failed_rows = 0;
  const auto failed = req.column("failed");
  for (const auto& [col, label] : {std::pair{"ttft_ms", "TTFT"}, {"tpot_ms", "TPOT"}, {"e2e_ms", "E2E"}}) {
    const auto c = req.column(col);
    if (!c) throw Error(fmt::format("{}: no column {}", req.path, col));
    std::vector<double> values;
    values.reserve(req.rows.size());
    for (size_t r = 0; r < req.rows.size(); ++r) {
      // A failed request's latency is not a served latency: kept out of the CDF, counted below.
      if (failed && req.number(r, *failed).value_or(0) != 0) {
        if (col == std::string("ttft_ms")) ++failed_rows;
        continue;
      }
      if (auto v = req.number(r, *c)) values.push_back(*v);
    }
    Chart chart{fmt::format("cdf-{}", col), fmt::format("{} CDF ({} requests)", label, values.size()),
                fmt::format("{} (ms)", label), "fraction of requests", {}};
    chart.series.push_back(cdf_series(label, std::move(values)));
    out += render_svg_chart(chart);
  }
  out += "</div>\n";
  if (failed_rows > 0)
    out += fmt::format("<p class=\"bad\">{} failed request(s) are not in the CDFs (see the summary).</p>\n",
                       failed_rows);
  return out;
}

std::string timeline_charts(const CsvTable& tl) {
  std::string out = "<h2>Bottleneck timeline</h2>\n";
  const auto t = tl.column("time_s"), batch = tl.column("batch_size"), queue = tl.column("queue_length"),
             used = tl.column("kv_blocks_used"), total = tl.column("kv_blocks_total");
  if (!t || !batch || !queue || !used || !total)
    throw Error(fmt::format("{}: expected columns time_s, batch_size, queue_length, kv_blocks_used, kv_blocks_total",
                            tl.path));
  const size_t stride = std::max<size_t>(1, (tl.rows.size() + kTimelinePoints - 1) / kTimelinePoints);
  Series b{"batch size", {}, {}}, q{"queue length", {}, {}}, kv{"KV cache used %", {}, {}};
  for (size_t r = 0; r < tl.rows.size(); r += stride) {
    const double x = tl.number(r, *t).value_or(NAN);
    b.x.push_back(x);
    b.y.push_back(tl.number(r, *batch).value_or(NAN));
    q.x.push_back(x);
    q.y.push_back(tl.number(r, *queue).value_or(NAN));
    const double tot = tl.number(r, *total).value_or(NAN);
    kv.x.push_back(x);
    kv.y.push_back(tot > 0 ? 100.0 * tl.number(r, *used).value_or(NAN) / tot : NAN);
  }
  out += fmt::format("<p class=\"note\">{} engine steps{}.</p>\n", tl.rows.size(),
                     stride > 1 ? fmt::format(", one in {} drawn (peaks between drawn steps can be missed)", stride) : std::string());
  out += "<div class=\"charts\">\n";
  out += render_svg_chart({"timeline-batch", "Batch size and waiting queue", "time (s)", "requests", {b, q}});
  out += render_svg_chart({"timeline-kv", "KV cache use", "time (s)", "% of blocks", {kv}});
  out += "</div>\n";
  return out;
}

}  // namespace

std::string run_section(const std::string& run_dir) {
  const fs::path dir(run_dir);
  const json summary = read_json_file((dir / "summary.json").string());
  std::string out = summary_tables(summary);
  out += latency_cdfs(read_csv_table((dir / "requests.csv").string()));
  out += timeline_charts(read_csv_table((dir / "timeline.csv").string()));
  out += "<h2>Configuration</h2>\n";
  out += html_pre(summary.contains("config") ? summary["config"].dump(2, ' ', false, json::error_handler_t::replace) : std::string("(no config in summary.json)"));
  return out;
}

}  // namespace servesim::report
