// The report of a capacity plan (plan.json): the Pareto chart of per-GPU throughput
// against per-user speed, the candidates table, and the plan's settings.
#include <fmt/format.h>

#include <algorithm>
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

}  // namespace

std::string plan_section(const std::string& json_path) {
  const json plan = read_json_file(json_path);
  if (!plan.contains("candidates") || !plan["candidates"].is_array())
    throw Error(fmt::format("{}: no \"candidates\" array (not a plan)", json_path));
  const json& cands = plan["candidates"];
  Series all{"candidates", {}, {}, true, false}, front{"Pareto frontier", {}, {}, true, true};
  std::vector<std::pair<double, double>> frontier;
  std::vector<std::vector<std::string>> table;
  size_t not_ok = 0;
  for (const auto& c : cands) {
    const double user = num(c, "output_tokens_per_s_per_user"), gpu = num(c, "output_tokens_per_s_per_gpu");
    const bool ok = c.value("status", std::string()) == "ok";
    if (!ok) ++not_ok;
    if (ok) {
      all.x.push_back(user);
      all.y.push_back(gpu);
      if (c.value("pareto", false)) frontier.emplace_back(user, gpu);
    }
    table.push_back({text(c, "label"), text(c, "status"), format_number(num(c, "max_rate_per_replica")),
                     format_number(num(c, "replicas")), format_number(num(c, "gpus")),
                     format_number(num(c, "usd_per_hour")), format_number(num(c, "usd_per_million_output_tokens")),
                     format_number(num(c, "joules_per_output_token")), format_number(gpu), format_number(user),
                     c.value("pareto", false) ? "yes" : "", text(c, "binding"), text(c, "error")});
  }
  std::sort(frontier.begin(), frontier.end());  // a line along the frontier, left to right
  for (const auto& [x, y] : frontier) {
    front.x.push_back(x);
    front.y.push_back(y);
  }
  std::string out = fmt::format("<h2>Plan: {} candidates</h2>\n", cands.size());
  if (not_ok > 0)
    out += fmt::format("<p class=\"bad\">{} candidate(s) not ok (cannot serve the workload under the SLOs): see "
                       "status and error.</p>\n",
                       not_ok);
  out += "<div class=\"charts\">\n";
  out += render_svg_chart({"plan-pareto", "Pareto: throughput per GPU vs speed per user",
                           "output tok/s per user", "output tok/s per GPU", {all, front}});
  out += "</div>\n<h2>Candidates</h2>\n";
  out += html_table({"candidate", "status", "max req/s per replica", "replicas", "GPUs", "$/hour", "$/M out tok",
                     "J/out tok", "out tok/s/GPU", "out tok/s/user", "Pareto", "binding", "error"},
                    table);
  json settings = plan;
  settings.erase("candidates");
  out += "<h2>Configuration</h2>\n";
  out += html_pre(settings.dump(2, ' ', false, json::error_handler_t::replace));
  return out;
}

}  // namespace servesim::report
