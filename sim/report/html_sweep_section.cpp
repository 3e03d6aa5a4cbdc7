// The report of a sweep CSV: a verdict per point (feasible, OVERLOADED, SLOs met or
// MISSED with the attainment), the knee of each series (the highest load of the first
// run of points that all pass), latency against the first varied key (the load, in a
// rate sweep) and throughput against latency with the knee ringed, and the table of
// points with its feasibility and SLO columns.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

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

// What one point's row says about it.
struct PointVerdict {
  bool feasible = true;     // status ok and no request failed
  bool overloaded = false;  // load.overloaded (the queue grows) or the memory guard tripped
  std::optional<bool> slo_met;  // absent when the sweep has no SLOs
  double attainment = NAN;
  std::string problems;     // "SLOs MISSED, OVERLOADED", "" when it passes
  bool passes() const { return feasible && !overloaded && slo_met.value_or(true); }
};

bool truthy(const std::string& cell) { return cell == "true" || cell == "1"; }

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
  const auto reason = t.column("reason"), failed = t.column("requests.failed"), slo_met = t.column("slo.met"),
             attainment = t.column("slo.attainment"), overloaded = t.column("load.overloaded"),
             guard = t.column("load.guard.tripped"), jtok = t.column("energy.joules_per_output_token"),
             usd = t.column("cost.usd_per_million_output_tokens");
  bool numeric_x = true;
  for (size_t r = 0; r < t.rows.size(); ++r)
    if (!t.number(r, 1)) numeric_x = false;

  std::vector<PointVerdict> verdicts(t.rows.size());
  std::vector<std::string> groups(t.rows.size());
  for (size_t r = 0; r < t.rows.size(); ++r) {
    PointVerdict& v = verdicts[r];
    v.feasible = t.rows[r][*status] == "ok" && (!failed || t.number(r, *failed).value_or(0) == 0);
    v.overloaded = (overloaded && truthy(t.rows[r][*overloaded])) || (guard && truthy(t.rows[r][*guard]));
    if (slo_met && !t.rows[r][*slo_met].empty()) v.slo_met = truthy(t.rows[r][*slo_met]);
    if (attainment) v.attainment = t.number(r, *attainment).value_or(NAN);
    std::vector<std::string> p;
    if (!v.feasible)
      p.push_back(t.rows[r][*status] == "ok" ? "infeasible: requests failed" : "infeasible");
    if (v.overloaded) p.push_back("OVERLOADED");
    if (v.slo_met && !*v.slo_met) p.push_back("SLOs MISSED");
    v.problems = join_words(p, ", ");
    // Legend labels name a key by its last part (kv_cache=fp8): the full key is in the table.
    for (size_t c = 2; c <= nvaried; ++c) {
      const std::string& key = t.header[c];
      groups[r] += (groups[r].empty() ? "" : ", ") + key.substr(key.rfind('.') + 1) + "=" + t.rows[r][c];
    }
  }

  // The knee of each group: along increasing x, the last point of the leading run of
  // points that pass (feasible, not overloaded, SLOs met). Only for a numeric first key.
  std::vector<bool> knee(t.rows.size(), false);
  if (numeric_x) {
    std::map<std::string, std::vector<size_t>> by_group;
    for (size_t r = 0; r < t.rows.size(); ++r) by_group[groups[r]].push_back(r);
    for (auto& [g, rows] : by_group) {
      std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) { return *t.number(a, 1) < *t.number(b, 1); });
      std::optional<size_t> last;
      for (size_t r : rows) {
        if (!verdicts[r].passes()) break;
        last = r;
      }
      if (last && *last != rows.back()) knee[*last] = true;  // a knee only where a later point fails
    }
  }

  Grouped ttft_p50, ttft_p99, tpot_p50, tpot_p99, tput_vs_tpot;
  Series knee_ttft{"knee (last point meeting every SLO)", {}, {}, true, false, true},
      knee_tput{"knee", {}, {}, true, false, true};
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> row_classes;
  size_t passing = 0;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const PointVerdict& v = verdicts[r];
    const double x = numeric_x ? *t.number(r, 1) : static_cast<double>(r);
    const std::string sep = groups[r].empty() ? "" : " " + groups[r];
    ttft_p50.add("p50" + sep, x, t.number(r, ttft50).value_or(NAN));
    ttft_p99.add("p99" + sep, x, t.number(r, ttft99).value_or(NAN));
    tpot_p50.add("p50" + sep, x, t.number(r, tpot50).value_or(NAN));
    tpot_p99.add("p99" + sep, x, t.number(r, tpot99).value_or(NAN));
    tput_vs_tpot.add(groups[r], t.number(r, tpot99).value_or(NAN), t.number(r, tput).value_or(NAN));
    if (knee[r]) {
      knee_ttft.x.push_back(x);
      knee_ttft.y.push_back(t.number(r, ttft99).value_or(NAN));
      knee_tput.x.push_back(t.number(r, tpot99).value_or(NAN));
      knee_tput.y.push_back(t.number(r, tput).value_or(NAN));
    }
    passing += v.passes() ? 1 : 0;
    std::vector<std::string> row;
    for (size_t c = 0; c <= nvaried; ++c) row.push_back(escape_html(t.rows[r][c]));
    row.push_back(v.feasible ? "<span class=\"ok\">feasible</span>"
                             : fmt::format("<span class=\"bad\">infeasible</span>{}",
                                           reason && !t.rows[r][*reason].empty()
                                               ? ": " + escape_html(t.rows[r][*reason])
                                               : std::string()));
    row.push_back(v.overloaded ? "<span class=\"bad\">OVERLOADED</span>" : "no");
    row.push_back(!v.slo_met ? "-" : *v.slo_met ? "<span class=\"ok\">met</span>" : "<span class=\"bad\">MISSED</span>");
    row.push_back(std::isfinite(v.attainment) ? fmt::format("{:.1f}", 100 * v.attainment) : "-");
    for (size_t c : {rps, ttft99, tpot99, tput}) row.push_back(format_number(t.number(r, c).value_or(NAN)));
    row.push_back(jtok ? format_number(t.number(r, *jtok).value_or(NAN)) : "-");
    row.push_back(usd ? format_number(t.number(r, *usd).value_or(NAN)) : "-");
    row.push_back(knee[r] ? "<b>knee</b>" : v.passes() ? "ok" : escape_html(v.problems));
    table.push_back(std::move(row));
    row_classes.push_back(knee[r] ? "knee" : "");
  }
  auto merge = [](const Grouped& a, const Grouped& b) {
    auto s = a.series();
    for (auto& x : b.series()) s.push_back(std::move(x));
    return s;
  };
  const std::string x_label = numeric_x ? x_key : "point (" + x_key + " is not numeric)";
  std::string out = fmt::format("<h2>Sweep: {} points</h2>\n", t.rows.size());
  // The verdict first: how many points pass, and where each series' knee is.
  const bool all_pass = passing == t.rows.size();
  out += fmt::format("<div id=\"verdict\" class=\"verdict {}\">\n<div class=\"headline\">{} of {} points pass{}</div>\n",
                     all_pass ? "good" : "bad", passing, t.rows.size(),
                     slo_met ? " (feasible, not overloaded, SLOs met)" : " (feasible, not overloaded; no SLOs set)");
  std::vector<std::string> knees;
  for (size_t r = 0; r < t.rows.size(); ++r)
    if (knee[r])
      knees.push_back(fmt::format("{}={}{} ({} req/s served, TTFT p99 {} ms, TPOT p99 {} ms)", escape_html(x_key),
                                  escape_html(t.rows[r][1]), groups[r].empty() ? "" : " with " + escape_html(groups[r]),
                                  format_number(t.number(r, rps).value_or(NAN)),
                                  format_number(t.number(r, ttft99).value_or(NAN)),
                                  format_number(t.number(r, tpot99).value_or(NAN))));
  if (!knees.empty())
    out += fmt::format("<p id=\"knee\">knee (the highest {} before the first point that fails): {}</p>\n",
                       escape_html(x_key), join_words(knees, "; "));
  else if (numeric_x && !all_pass)
    out += "<p id=\"knee\">no knee: the first point of each series already fails</p>\n";
  out += "</div>\n<div class=\"charts\">\n";
  auto ttft_series = merge(ttft_p50, ttft_p99);
  if (!knee_ttft.x.empty()) ttft_series.push_back(knee_ttft);
  out += render_svg_chart({"sweep-ttft", "TTFT vs " + x_key, x_label, "TTFT (ms)", ttft_series});
  out += render_svg_chart({"sweep-tpot", "TPOT vs " + x_key, x_label, "TPOT (ms)", merge(tpot_p50, tpot_p99)});
  auto tput_series = tput_vs_tpot.series();
  if (!knee_tput.x.empty()) tput_series.push_back(knee_tput);
  out += render_svg_chart({"sweep-throughput", "Throughput vs latency", "TPOT p99 (ms)", "output tok/s per GPU",
                           tput_series});
  out += "</div>\n<h2>Points</h2>\n";
  std::vector<std::string> header;
  for (size_t c = 0; c <= nvaried; ++c) header.push_back(escape_html(t.header[c]));
  for (const char* h : {"<span id=\"feasibility\">feasibility</span>", "overloaded", "SLOs", "attainment %", "req/s",
                        "TTFT p99 ms", "TPOT p99 ms", "out tok/s/GPU", "J/out tok", "$/M out tok", "verdict"})
    header.push_back(h);
  out += html_table(header, table, row_classes);
  return out;
}

}  // namespace servesim::report
