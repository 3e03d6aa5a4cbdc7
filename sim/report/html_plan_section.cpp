// The report of a capacity plan (plan.json): the goal and the SLOs, the best candidate
// and why it won (the ranking, the runner-up, its latencies against the limits and
// what binds it), the Pareto chart of per-GPU throughput against per-user speed, the
// candidates table with the best row marked, and the plan's settings.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_sections.h"
#include "report/svg_chart.h"
#include "util/error.h"
#include "util/json_file.h"

namespace servesim::report {
namespace {
using nlohmann::json;

double num(const json& c, const char* key) {
  return c.contains(key) && c[key].is_number() ? c[key].get<double>() : NAN;
}
std::string text(const json& c, const char* key) {
  if (!c.contains(key)) return "";
  return c[key].is_string() ? escape_html(c[key].get<std::string>()) : escape_html(c[key].dump());
}

// A field that must be this exact string or true (a hand-edited plan.json may hold anything there).
bool text_is(const json& c, const char* key, const char* value) {
  return c.contains(key) && c[key].is_string() && c[key].get<std::string>() == value;
}
bool flag(const json& c, const char* key) { return c.contains(key) && c[key].is_boolean() && c[key].get<bool>(); }

std::string fixed(double v, int decimals) { return std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : "-"; }

// The goal and SLOs, then the best candidate and why (plan_table's "best:" line, explained).
std::string best_section(const json& plan) {
  const json& cands = plan["candidates"];
  const bool by_cost = plan.contains("target_rate") && plan["target_rate"].is_number();
  std::vector<std::string> slos;
  if (plan.contains("slo") && plan["slo"].is_object()) {
    const json& slo = plan["slo"];
    if (slo.contains("targets") && slo["targets"].is_array())
      for (const auto& t : slo["targets"])
        slos.push_back(fmt::format("{} {} &le; {} ms", text(t, "metric"), text(t, "statistic"), format_number(num(t, "limit_ms"))));
    if (num(plan["slo"], "attainment") > 0)
      slos.push_back(fmt::format("attainment &ge; {}%", format_number(100 * num(plan["slo"], "attainment"))));
  }
  std::string out = fmt::format(
      "<p id=\"goal\">goal: <b>{}</b>; SLOs: {}; ranked by {}</p>\n",
      by_cost ? fmt::format("{} req/s", format_number(num(plan, "target_rate")))
              : plan.contains("gpu_budget") && plan["gpu_budget"].is_number()
                  ? fmt::format("most goodput within {} GPUs", format_number(num(plan, "gpu_budget")))
                  : std::string("most goodput"),
      slos.empty() ? "none" : join_words(slos, ", "), by_cost ? "$ per million output tokens" : "total goodput");
  const json* best = nullptr;
  const json* second = nullptr;
  size_t ranked = 0;
  for (const auto& c : cands) {
    if (num(c, "rank") == 1) best = &c;
    if (num(c, "rank") == 2) second = &c;
    if (num(c, "rank") >= 1) ++ranked;
  }
  if (!best) {
    return out + "<div id=\"best\" class=\"verdict bad\"><div class=\"headline\">no candidate meets the SLOs at the "
                 "goal</div><p>See the candidates' errors and binding constraints below.</p></div>\n";
  }
  const json& b = *best;
  out += fmt::format("<div id=\"best\" class=\"verdict good\">\n<div class=\"headline\">best: {}</div>\n"
                     "<p>{} &middot; {} replica(s) x {} GPU(s) = <b>{} GPUs</b>, <b>${}/hour</b>, <b>${} per million "
                     "output tokens</b>, {} J/output token</p>\n",
                     text(b, "label"), text(b, "precision"), format_number(num(b, "replicas")),
                     format_number(num(b, "gpus_per_replica")), format_number(num(b, "gpus")),
                     fixed(num(b, "usd_per_hour"), 2), fixed(num(b, "usd_per_million_output_tokens"), 3),
                     fixed(num(b, "joules_per_output_token"), 3));
  std::string why = by_cost ? fmt::format("the lowest $ per million output tokens of the {} candidate(s) that serve "
                                          "{} req/s within the SLOs",
                                          ranked, format_number(num(plan, "target_rate")))
                            : fmt::format("the most total goodput of the {} ranked candidate(s)", ranked);
  if (second)
    why += by_cost ? fmt::format("; the runner-up, {}, costs ${} (+{}%)", text(*second, "label"),
                                 fixed(num(*second, "usd_per_million_output_tokens"), 3),
                                 fixed(100 * (num(*second, "usd_per_million_output_tokens") /
                                                  num(b, "usd_per_million_output_tokens") -
                                              1),
                                       1))
                   : fmt::format("; the runner-up, {}, serves {} req/s", text(*second, "label"),
                                 format_number(num(*second, "total_rate")));
  out += fmt::format("<p>why: {}.</p>\n", why);
  if (b.contains("operating_point") && b["operating_point"].is_object()) {
    const json& op = b["operating_point"];
    out += fmt::format("<p>each replica at {} req/s: TTFT p99 {} ms, TPOT p99 {} ms, batch {}, GPU busy {}%; at most "
                       "{} req/s per replica, where {}</p>\n",
                       format_number(num(op, "rate_per_replica")), fixed(num(op, "ttft_p99_ms"), 0),
                       fixed(num(op, "tpot_p99_ms"), 1), fixed(num(op, "batch_size_mean"), 1),
                       fixed(100 * num(op, "busy_fraction"), 0), format_number(num(b, "max_rate_per_replica")),
                       text(b, "binding_detail").empty() ? "the search stopped" : text(b, "binding_detail"));
  }
  return out + "</div>\n";
}

}  // namespace

std::string plan_section(const std::string& json_path) {
  const json plan = read_json_file(json_path);
  if (!plan.contains("candidates") || !plan["candidates"].is_array())
    throw Error(fmt::format("{}: no \"candidates\" array (not a plan)", json_path));
  const json& cands = plan["candidates"];
  for (std::size_t i = 0; i < cands.size(); ++i)
    if (!cands[i].is_object())
      throw Error(fmt::format("{}: candidates[{}] is {}, not an object (not a plan as `servesim plan --out` writes it)",
                              json_path, i, cands[i].type_name()));
  Series all{"candidates", {}, {}, true, false}, front{"Pareto frontier", {}, {}, true, true};
  std::vector<std::pair<double, double>> frontier;
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> row_classes;
  size_t not_ok = 0;
  for (const auto& c : cands) {
    const double user = num(c, "output_tokens_per_s_per_user"), gpu = num(c, "output_tokens_per_s_per_gpu");
    const bool ok = text_is(c, "status", "ok");
    if (!ok) ++not_ok;
    if (ok) {
      all.x.push_back(user);
      all.y.push_back(gpu);
      if (flag(c, "pareto")) frontier.emplace_back(user, gpu);
    }
    row_classes.push_back(num(c, "rank") == 1 ? "knee" : "");
    table.push_back({num(c, "rank") >= 1 ? format_number(num(c, "rank")) : "-", text(c, "label"), text(c, "status"), format_number(num(c, "max_rate_per_replica")),
                     format_number(num(c, "replicas")), format_number(num(c, "gpus")),
                     format_number(num(c, "usd_per_hour")), format_number(num(c, "usd_per_million_output_tokens")),
                     format_number(num(c, "joules_per_output_token")), format_number(gpu), format_number(user),
                     flag(c, "pareto") ? "yes" : "", text(c, "binding"), text(c, "error")});
  }
  std::sort(frontier.begin(), frontier.end());  // a line along the frontier, left to right
  for (const auto& [x, y] : frontier) {
    front.x.push_back(x);
    front.y.push_back(y);
  }
  std::string out = fmt::format("<h2>Plan: {} candidates for {}</h2>\n", cands.size(), text(plan, "model"));
  out += best_section(plan);
  if (not_ok > 0)
    out += fmt::format("<p class=\"bad\">{} candidate(s) not ok (cannot serve the workload under the SLOs): see "
                       "status and error.</p>\n",
                       not_ok);
  out += "<div class=\"charts\">\n";
  out += render_svg_chart({"plan-pareto", "Pareto: throughput per GPU vs speed per user",
                           "output tok/s per user", "output tok/s per GPU", {all, front}});
  out += "</div>\n<h2>Candidates</h2>\n";
  out += html_table({"rank", "candidate", "status", "max req/s per replica", "replicas", "GPUs", "$/hour", "$/M out tok",
                     "J/out tok", "out tok/s/GPU", "out tok/s/user", "Pareto", "binding", "error"},
                    table, row_classes);
  json settings = plan;
  settings.erase("candidates");
  out += "<h2>Configuration</h2>\n<details><summary>the plan's settings (plan.json without its candidates)</summary>\n";
  out += html_pre(settings.dump(2, ' ', false, json::error_handler_t::replace));
  out += "</details>\n";
  return out;
}

}  // namespace servesim::report
