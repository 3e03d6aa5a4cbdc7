#include "metrics/classes_json.h"

#include <fmt/format.h>

#include "metrics/summary_json.h"

namespace servesim {

nlohmann::json classes_json(const RunSummary& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const ClassReport& c : s.classes) {
    nlohmann::json slo = nlohmann::json::array();
    for (const auto& r : c.slo)
      slo.push_back({{"metric", r.metric}, {"statistic", r.statistic}, {"limit_ms", r.limit_ms},
                     {"value_ms", r.measured ? nlohmann::json(r.value_ms) : nlohmann::json(nullptr)}, {"met", r.met}});
    nlohmann::json j = {{"name", c.name},
                        {"priority", c.priority},
                        {"share", c.share},
                        {"completed", c.completed},
                        {"failed", c.failed},
                        {"failures", failures_json(c.failures)},
                        {"output_tokens", c.output_tokens},
                        {"ttft_ms", distribution_json(c.ttft_ms)},
                        {"tpot_ms", distribution_json(c.tpot_ms)},
                        {"e2e_ms", distribution_json(c.e2e_ms)},
                        {"queue_ms", distribution_json(c.queue_ms)},
                        {"slo",
                         {{"own", c.own_slo},
                          {"targets", slo},
                          {"met", c.slo_met},
                          {"attainment", c.slo_attainment},
                          {"goodput_rps", c.goodput_rps}}}};
    if (s.gateway)
      j["gateway"] = {{"held", c.gateway.held},
                      {"held_peak", c.gateway.held_peak},
                      {"held_wait_max_ms", c.gateway.held_wait_max_ms},
                      {"held_wait_mean_ms", c.gateway.held > 0 ? c.gateway.held_wait_total_ms / c.gateway.held : 0.0}};
    out.push_back(std::move(j));
  }
  return out;
}

std::string classes_text(const RunSummary& s) {
  if (s.classes.empty()) return "";
  std::string out = fmt::format("\n{:<12} {:>5} {:>6} {:>9} {:>7} {:>10} {:>10} {:>10} {:>9} {:>9}{}\n", "class",
                                "prio", "share", "completed", "failed", "TTFT p99", "TPOT p99", "E2E p99", "SLO %",
                                "goodput", s.gateway ? "   held (peak, max wait)" : "");
  const auto ms = [](const Distribution& d) { return d.count > 0 ? fmt::format("{:.1f}", d.p99) : std::string("-"); };
  for (const ClassReport& c : s.classes) {
    out += fmt::format("{:<12} {:>5} {:>5.0f}% {:>9} {:>7} {:>10} {:>10} {:>10} {:>9} {:>9.2f}", c.name, c.priority,
                       100 * c.share, c.completed, c.failed, ms(c.ttft_ms), ms(c.tpot_ms), ms(c.e2e_ms),
                       c.slo_set ? fmt::format("{:.1f}{}", 100 * c.slo_attainment, c.slo_met ? "" : "!")
                                 : std::string("-"),
                       c.goodput_rps);
    if (s.gateway)
      out += fmt::format("   {} ({}, {:.0f} ms)", c.gateway.held, c.gateway.held_peak, c.gateway.held_wait_max_ms);
    out += "\n";
    if (c.failed > 0) out += fmt::format("{:<12} failed: {}\n", "", failures_text(c.failures));
  }
  out += "  (SLO %: requests meeting the class's own SLO, else the scenario's; '!': its SLO is missed; goodput: such "
         "requests per second)\n";
  return out;
}

}  // namespace servesim
