// The top of a run's report: what was simulated, the verdict (SLOs met or missed with
// the attainment, OVERLOADED, failures by reason), the key figures with their
// uncertainty bands, energy and cost. Everything comes from summary.json, so the page
// says what `servesim run` printed, in the same words.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/html_escape.h"
#include "report/html_sections.h"

namespace servesim::report {
namespace {
using nlohmann::json;

const json& child(const json& j, const char* key) {
  static const json empty = json::object();
  return j.is_object() && j.contains(key) && j.at(key).is_object() ? j.at(key) : empty;
}
double number(const json& j, const char* key, double fallback = NAN) {
  return j.is_object() && j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : fallback;
}
std::string text(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return "";
  return j.at(key).is_string() ? j.at(key).get<std::string>() : j.at(key).dump();
}
bool flag(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_boolean() && j.at(key).get<bool>();
}
std::string fixed(double v, int decimals) { return std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : "-"; }

// "llama-3.1-8b on h100-sxm x1 (tp=1, pp=1, replicas=1), W16A16 bf16, KV bf16, vllm engine (framework vllm-v1)".
std::string setup_line(const json& config) {
  const json& par = child(config, "parallelism");
  const json& eng = child(config, "engine");
  const json& prec = child(config, "precision");
  std::string precision = text(prec, "label");
  if (flag(prec, "weight_only")) precision += " (weight-only: dequantized in the GEMM)";
  if (flag(prec, "emulated")) precision += " (emulated at the 16-bit rate)";
  return fmt::format("<b>{}</b> on <b>{}</b> x{} (tp={}, pp={}, replicas={}), <b>{}</b>, {} engine (framework {})",
                     escape_html(text(config, "model")), escape_html(text(config, "gpu")), text(par, "gpus"),
                     text(par, "tp"), text(par, "pp"), text(par, "replicas"), escape_html(precision),
                     escape_html(text(eng, "kind")), escape_html(text(eng, "framework")));
}

std::string verdict_box(const json& s) {
  const json& slo = child(s, "slo");
  const json& load = child(s, "load");
  const json& req = child(s, "requests");
  const bool has_slo = slo.contains("targets") && slo.at("targets").is_array() && !slo.at("targets").empty();
  const bool met = flag(slo, "met");
  const bool guard = flag(child(load, "guard"), "tripped");
  const bool overloaded = flag(load, "overloaded") || guard;
  const double failed = number(req, "failed", 0), completed = number(req, "completed", 0);
  std::vector<std::string> headline;
  headline.push_back(!has_slo ? "no SLOs set" : met ? "SLOs met" : "SLOs MISSED");
  if (overloaded) headline.push_back("OVERLOADED");
  if (failed > 0) headline.push_back(fmt::format("{:.0f} request{} failed", failed, failed == 1 ? "" : "s"));
  const bool good = (has_slo ? met : true) && !overloaded && failed == 0;
  std::string out = fmt::format("<div id=\"verdict\" class=\"verdict {}\">\n<div class=\"headline\">{}</div>\n",
                                good ? "good" : "bad", escape_html(join_words(headline, " · ")));
  if (has_slo) {
    out += fmt::format("<p>attainment <b>{}%</b> of {:.0f} offered requests meet every SLO; goodput {} req/s "
                       "(served {} req/s)</p>\n",
                       fixed(100 * number(slo, "attainment"), 1), completed + failed,
                       fixed(number(slo, "goodput_rps"), 2), fixed(number(child(s, "throughput"), "requests_per_s"), 2));
    std::vector<std::vector<std::string>> rows;
    for (const auto& t : slo.at("targets")) {
      const bool ok = flag(t, "met");
      rows.push_back({escape_html(text(t, "metric") + " " + text(t, "statistic")),
                      fmt::format("&le; {} ms", fixed(number(t, "limit_ms"), 1)),
                      t.contains("value_ms") && t.at("value_ms").is_number()
                          ? fmt::format("{} ms", fixed(number(t, "value_ms"), 2))
                          : std::string("- (no completed request)"),
                      ok ? "<span class=\"ok\">met</span>" : "<span class=\"bad\">MISSED</span>"});
    }
    out += html_table({"SLO", "limit", "this run", "verdict"}, rows);
  }
  if (guard)
    out += fmt::format("<p class=\"bad\">OVERLOADED: the run was STOPPED at {} s by the queue memory guard; the "
                       "waiting and all later requests failed overload_guard.</p>\n",
                       fixed(number(child(load, "guard"), "tripped_at_s"), 1));
  else if (overloaded && child(load, "queue_growth_by_stage").is_object() &&
           child(load, "queue_growth_by_stage").value("growing", 0) > 0) {
    const nlohmann::json& st = child(load, "queue_growth_by_stage");
    out += fmt::format("<p class=\"bad\">OVERLOADED in {} of {} arrival stages tested: stage {} ({}-{} s) cannot keep "
                       "up at its rate; its mean queue delay grows from {} ms (its requests 40-60% by arrival) to {} ms "
                       "(its last 20%).</p>\n",
                       st.value("growing", 0), st.value("tested", 0), st.value("worst_stage", 0),
                       fixed(number(st, "worst_start_s"), 0), fixed(number(st, "worst_end_s"), 0),
                       fixed(number(st, "worst_mid_ms"), 0), fixed(number(st, "worst_last_ms"), 0));
  } else if (overloaded)
    out += fmt::format("<p class=\"bad\">OVERLOADED: the server cannot keep up: offered {} req/s, served {} req/s; "
                       "the mean queue delay grows from {} ms (requests 40-60% by arrival) to {} ms (last 20%).</p>\n",
                       fixed(number(load, "offered_rps"), 2), fixed(number(load, "served_rps"), 2),
                       fixed(number(load, "queue_delay_mid_ms"), 0), fixed(number(load, "queue_delay_last_ms"), 0));
  if (failed > 0) {
    std::vector<std::string> reasons;
    for (const auto& [reason, count] : child(req, "failures").items())
      if (count.is_number() && count.get<double>() > 0)
        reasons.push_back(fmt::format("{:.0f} {}", count.get<double>(), escape_html(reason)));
    out += fmt::format("<p class=\"bad\" id=\"failures\">failures by reason: {} (a failure counts as a miss; "
                       "failed requests are left out of the latency CDFs)</p>\n",
                       join_words(reasons, ", "));
  }
  return out + "</div>\n";
}

// TTFT / TPOT / E2E with their 80% bands (the errors of the closest measured runs).
std::string bands_table(const json& s, const json& bands) {
  std::string out = "<h2 id=\"bands\">Latency and how far to trust it</h2>\n";
  const bool available = flag(bands, "available");
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> groups;
  for (const auto& [section, label] : {std::pair<const char*, const char*>{"ttft_ms", "TTFT"},
                                       {"tpot_ms", "TPOT"},
                                       {"e2e_ms", "E2E"}}) {
    std::vector<std::string> row = {label};
    for (const char* stat : {"mean", "p50", "p90", "p99"}) {
      const double v = number(child(s, section), stat);
      const json& b = child(child(bands, section), stat);
      std::string cell = fixed(v, 1);
      if (b.contains("lo") && b.contains("hi")) {
        cell += fmt::format(" <span class=\"band\">[{}, {}]</span>", fixed(number(b, "lo"), 1), fixed(number(b, "hi"), 1));
        const std::string g = fmt::format("{} (n={})", text(b, "label"), text(b, "n"));
        if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
      }
      row.push_back(cell);
    }
    rows.push_back(row);
  }
  out += html_table({"ms", "mean", "p50", "p90", "p99"}, rows);
  if (available)
    out += fmt::format("<p class=\"note\">In brackets: {:.0f}% bands from servesim's errors on the closest measured "
                       "serving runs ({}); docs/validation.md, \"Uncertainty bands\".</p>\n",
                       100 * number(bands, "coverage", 0.8), escape_html(join_words(groups, "; ")));
  else
    out += fmt::format("<p class=\"note\">No uncertainty band: {}.</p>\n", escape_html(text(bands, "reason")));
  return out;
}

std::string key_figures(const json& s, const json& cost) {
  const json& tp = child(s, "throughput");
  const json& en = child(s, "energy");
  const json& ut = child(s, "utilization");
  std::vector<std::vector<std::string>> rows = {
      {"throughput", fmt::format("{} req/s, {} output tok/s ({} per GPU)", fixed(number(tp, "requests_per_s"), 2),
                                 fixed(number(tp, "output_tokens_per_s"), 0),
                                 fixed(number(tp, "output_tokens_per_s_per_gpu"), 0))},
      {"GPU", fmt::format("busy {}%, MFU {}%, HBM bandwidth {}%, KV cache {}% mean / {}% max",
                          fixed(100 * number(ut, "busy_fraction"), 0), fixed(100 * number(ut, "mfu"), 1),
                          fixed(100 * number(ut, "memory_bandwidth"), 0), fixed(100 * number(ut, "kv_cache_mean"), 0),
                          fixed(100 * number(ut, "kv_cache_max"), 0))},
  };
  const double joules = number(en, "energy_j", 0);
  rows.push_back({"<span id=\"energy\">energy</span>",
                  joules > 0 ? fmt::format("{} W per GPU on average ({} W while stepping), {} J/output token, {} "
                                           "J/request, {} kWh in all",
                                           fixed(number(en, "power_w_per_gpu"), 0),
                                           fixed(number(en, "busy_power_w_per_gpu"), 0),
                                           format_number(number(en, "joules_per_output_token")),
                                           format_number(number(en, "joules_per_request")), format_number(joules / 3.6e6))
                             : std::string("not modelled for this GPU (no power figures in its file)")});
  const double usd = number(cost, "usd_per_hour", 0);
  rows.push_back({"<span id=\"cost\">cost</span>",
                  usd > 0 ? fmt::format("${}/hour; ${} per million output tokens at this run's throughput; ${} for the "
                                        "{} s simulated",
                                        fixed(usd, 2), fixed(number(cost, "usd_per_million_output_tokens"), 3),
                                        format_number(number(cost, "usd_for_run")), fixed(number(s, "duration_s"), 1))
                          : std::string("no price for this GPU (hardware.price_per_hour, or cost.on_demand in its file)")});
  return "<h2>Throughput, energy and cost</h2>\n" + html_table({"", "this run"}, rows);
}

}  // namespace

std::string join_words(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string run_verdict_section(const json& summary) {
  const json& config = child(summary, "config");
  std::string out;
  if (!config.empty())
    out += fmt::format("<p class=\"setup\" id=\"setup\">{}<br><span class=\"note\">scenario {}, servesim {}</span></p>\n",
                       setup_line(config), escape_html(text(config, "scenario")),
                       escape_html(text(config, "servesim_version")));
  out += verdict_box(summary);
  out += bands_table(summary, child(summary, "bands"));
  out += key_figures(summary, child(summary, "cost"));
  return out;
}

}  // namespace servesim::report
