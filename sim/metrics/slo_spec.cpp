#include "metrics/slo_spec.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

const std::vector<std::string>& slo_metric_names() {
  static const std::vector<std::string> n = {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"};
  return n;
}
const std::vector<std::string>& slo_statistic_names() {
  static const std::vector<std::string> n = {"mean", "p50", "p90", "p95", "p99"};
  return n;
}

SloSpec parse_slo(ConfigMap& m) {
  SloSpec slo;
  slo.attainment = m.quantity("attainment", Dimension::fraction, 0.0);
  if (slo.attainment < 0 || slo.attainment > 1)
    throw Error(fmt::format("{}: attainment must be a fraction in [0, 1]", m.where("attainment")));
  for (const auto& metric : slo_metric_names()) {
    if (!m.has(metric)) continue;
    ConfigMap stats = m.map(metric);
    for (const auto& stat : slo_statistic_names()) {
      if (!stats.has(stat)) continue;
      const double v = stats.number(stat);
      if (v <= 0) throw Error(fmt::format("{}: an SLO limit must be positive (milliseconds)", stats.where(stat)));
      slo.targets.push_back({metric, stat, v});
    }
    stats.finish();
  }
  m.finish();
  return slo;
}

}  // namespace servesim
