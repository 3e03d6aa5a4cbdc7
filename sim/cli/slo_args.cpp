#include "cli/slo_args.h"

#include <fmt/format.h>

#include <algorithm>

#include "config/config_node.h"
#include "config/yaml_text.h"
#include "metrics/slo_spec.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim::cli {
namespace {

// "ttft_ms.p99" (a metric and a statistic) or "attainment"; throws naming --slo.
void check_slo_key(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size())
    throw Error(fmt::format("--slo '{}': expected KEY=VALUE, e.g. --slo ttft_ms.p99=500 (milliseconds) or --slo "
                            "attainment=0.99; --slo none for no SLOs",
                            assignment));
  const std::string key = trim(assignment.substr(0, eq));
  if (key == "attainment") return;
  const auto dot = key.find('.');
  const std::string metric = key.substr(0, dot);
  const auto& metrics = slo_metric_names();
  if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) {
    std::vector<std::string> valid = metrics;
    valid.push_back("attainment");
    throw Error(fmt::format("--slo '{}': unknown SLO metric '{}'{} (valid: {})", assignment, metric,
                            did_you_mean(metric, valid), join(valid)));
  }
  const auto& stats = slo_statistic_names();
  const std::string stat = dot == std::string::npos ? "" : key.substr(dot + 1);
  if (std::find(stats.begin(), stats.end(), stat) == stats.end())
    throw Error(fmt::format("--slo '{}': '{}' needs a statistic after the metric, one of {}{}, e.g. --slo {}.p99=500",
                            assignment, metric, join(stats), stat.empty() ? "" : did_you_mean(stat, stats), metric));
}

// The leaf keys under `slo:` of a document, dotted ("ttft_ms.p99", "attainment").
void slo_leaves(const ConfigNode& node, const std::string& prefix, std::vector<std::string>& out) {
  if (!node.is_map()) {
    if (!prefix.empty()) out.push_back(prefix);
    return;
  }
  for (const auto& e : node.entries())
    slo_leaves(e.value, prefix.empty() ? e.key.text() : prefix + "." + e.key.text(), out);
}

}  // namespace

void add_slo_option(CLI::App* cmd, std::vector<std::string>& slo) {
  cmd->add_option("--slo", slo,
                  "an SLO that replaces the scenario's whole slo: section (repeat for more): ttft_ms.p99=500 "
                  "(limits in ms on ttft_ms, tpot_ms, itl_ms, e2e_ms at mean, p50 ... p99), attainment=0.99; "
                  "--slo none for no SLOs. --set slo.KEY=V changes one limit and keeps the file's others");
}

std::vector<std::string> overrides_with_slo(const std::vector<std::string>& slo, const std::vector<std::string>& sets) {
  std::vector<std::string> out;
  if (!slo.empty()) {
    out.push_back("slo={}");
    for (const auto& s : slo) {
      if (trim(s) == "none") {
        if (slo.size() > 1) throw Error("--slo none means no SLOs: give it alone");
        continue;
      }
      check_slo_key(s);
      out.push_back("slo." + trim(s));
    }
  }
  out.insert(out.end(), sets.begin(), sets.end());
  return out;
}

std::string slo_sources_note(const std::string& scenario_path, const std::vector<std::string>& slo,
                             const std::vector<std::string>& sets) {
  std::vector<std::string> from_set;
  for (const auto& s : sets)
    if (s.rfind("slo.", 0) == 0 || s.rfind("slo=", 0) == 0) from_set.push_back(trim(s.substr(0, s.find('='))));
  if (slo.empty() && from_set.empty()) return "";
  if (!slo.empty()) {
    std::vector<std::string> keys;
    for (const auto& s : slo)
      if (trim(s) != "none") keys.push_back(trim(s));
    return fmt::format("SLOs from --slo only ({}); the scenario's slo: section is not used",
                       keys.empty() ? std::string("none: no SLOs") : join(keys));
  }
  std::vector<std::string> file_keys;
  if (!scenario_path.empty()) {
    const ConfigNode doc = load_yaml_file(scenario_path);
    if (const ConfigNode* s = doc.is_map() ? doc.find("slo") : nullptr) slo_leaves(*s, "", file_keys);
  }
  std::vector<std::string> kept;
  for (const auto& k : file_keys)
    if (std::find(from_set.begin(), from_set.end(), "slo." + k) == from_set.end()) kept.push_back(k);
  std::vector<std::string> set_keys;
  for (const auto& k : from_set) set_keys.push_back(k.size() > 4 ? k.substr(4) : k);
  if (kept.empty()) return fmt::format("SLOs: {} from --set", join(set_keys));
  return fmt::format("SLOs: {} from --set, {} from {} (--slo replaces the file's SLOs instead of adding to them)",
                     join(set_keys), join(kept), scenario_path);
}

}  // namespace servesim::cli
