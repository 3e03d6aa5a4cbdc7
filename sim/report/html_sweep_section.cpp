// The report of a sweep CSV: latency against the first varied key (the load, in a
// rate sweep) and throughput against latency, one series per combination of the
// other varied keys, and the table of points.
#include <fmt/format.h>

#include <map>

#include "report/csv_table.h"
#include "report/html_escape.h"
#include "report/html_sections.h"
#include "report/svg_chart.h"
#include "util/error.h"

namespace servesim::report {
namespace {

// Groups rows into one Series per value of the grouping label, in first-seen order.
struct Grouped {
  std::vector<std::string> order;
  std::map<std::string, Series> by_label;
  void add(const std::string& label, double x, double y) {
    auto [it, fresh] = by_label.try_emplace(label);
    if (fresh) {
      order.push_back(label);
      it->second.name = label.empty() ? "all points" : label;
      it->second.markers = true;
    }
    it->second.x.push_back(x);
    it->second.y.push_back(y);
  }
  std::vector<Series> series() const {
    std::vector<Series> out;
    for (const auto& l : order) out.push_back(by_label.at(l));
    return out;
  }
};

}  // namespace

std::string sweep_section(const std::string& csv_path) {
  const CsvTable t = read_csv_table(csv_path);
  const auto status = t.column("status");
  if (!status || *status < 2)
    throw Error(fmt::format("{}: no varied column between \"point\" and \"status\" (not a sweep CSV)", csv_path));
  const size_t nvaried = *status - 1;  // columns 1 .. status-1 are the --vary keys
  const std::string x_key = t.header[1];
  auto need = [&](const char* name) {
    auto c = t.column(name);
    if (!c) throw Error(fmt::format("{}: no column {}", csv_path, name));
    return *c;
  };
  const size_t ttft50 = need("ttft_ms.p50"), ttft99 = need("ttft_ms.p99"), tpot50 = need("tpot_ms.p50"),
               tpot99 = need("tpot_ms.p99"), tput = need("throughput.output_tokens_per_s_per_gpu"),
               rps = need("throughput.requests_per_s");
  const auto reason = t.column("reason");
  bool numeric_x = true;
  for (size_t r = 0; r < t.rows.size(); ++r)
    if (!t.number(r, 1)) numeric_x = false;
  Grouped ttft_p50, ttft_p99, tpot_p50, tpot_p99, tput_vs_tpot;
  std::vector<std::vector<std::string>> table;
  size_t not_ok = 0;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    std::string group;
    // Legend labels name a key by its last part (kv_cache=fp8): the full key is in the table.
    for (size_t c = 2; c <= nvaried; ++c) {
      const std::string& key = t.header[c];
      group += (group.empty() ? "" : ", ") + key.substr(key.rfind('.') + 1) + "=" + t.rows[r][c];
    }
    const double x = numeric_x ? *t.number(r, 1) : static_cast<double>(r);
    const std::string sep = group.empty() ? "" : " " + group;
    ttft_p50.add("p50" + sep, x, t.number(r, ttft50).value_or(NAN));
    ttft_p99.add("p99" + sep, x, t.number(r, ttft99).value_or(NAN));
    tpot_p50.add("p50" + sep, x, t.number(r, tpot50).value_or(NAN));
    tpot_p99.add("p99" + sep, x, t.number(r, tpot99).value_or(NAN));
    tput_vs_tpot.add(group, t.number(r, tpot99).value_or(NAN), t.number(r, tput).value_or(NAN));
    if (t.rows[r][*status] != "ok") ++not_ok;
    std::vector<std::string> row;
    for (size_t c = 0; c <= *status; ++c) row.push_back(escape_html(t.rows[r][c]));
    row.push_back(reason ? escape_html(t.rows[r][*reason]) : "");
    for (size_t c : {rps, ttft99, tpot99, tput}) row.push_back(format_number(t.number(r, c).value_or(NAN)));
    table.push_back(std::move(row));
  }
  auto merge = [](const Grouped& a, const Grouped& b) {
    auto s = a.series();
    for (auto& x : b.series()) s.push_back(std::move(x));
    return s;
  };
  const std::string x_label = numeric_x ? x_key : "point (" + x_key + " is not numeric)";
  std::string out = fmt::format("<h2>Sweep: {} points</h2>\n", t.rows.size());
  if (not_ok > 0)
    out += fmt::format("<p class=\"bad\">{} point(s) not ok (infeasible or overloaded): see status and reason.</p>\n",
                       not_ok);
  out += "<div class=\"charts\">\n";
  out += render_svg_chart({"sweep-ttft", "TTFT vs " + x_key, x_label, "TTFT (ms)", merge(ttft_p50, ttft_p99)});
  out += render_svg_chart({"sweep-tpot", "TPOT vs " + x_key, x_label, "TPOT (ms)", merge(tpot_p50, tpot_p99)});
  out += render_svg_chart({"sweep-throughput", "Throughput vs latency", "TPOT p99 (ms)", "output tok/s per GPU",
                           tput_vs_tpot.series()});
  out += "</div>\n<h2>Points</h2>\n";
  std::vector<std::string> header;
  for (size_t c = 0; c <= *status; ++c) header.push_back(escape_html(t.header[c]));
  for (const char* h : {"reason", "req/s", "TTFT p99 ms", "TPOT p99 ms", "out tok/s/GPU"}) header.push_back(h);
  out += html_table(header, table);
  return out;
}

}  // namespace servesim::report
