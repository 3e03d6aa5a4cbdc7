// The `slo:` section of a scenario: `attainment` and one mapping per metric
// (ttft_ms, tpot_ms, itl_ms, e2e_ms) of limits per statistic (mean, p50 ... p99).
// The metric and statistic names are the collector's (metrics/slo_spec.h); the
// keys are declared from them, so a metric added there is a key here.
#include <fmt/format.h>

#include <memory>

#include "config/scenario_sections.h"
#include "util/error.h"

namespace servesim {
namespace {

constexpr std::string_view kSloPath = "slo";

const Key kAttainment{
    .name = "attainment",
    .type = KeyType::quantity,
    .doc = "share of requests that must meet every per-request limit (goodput, as DistServe's SLO attainment)",
    .spec = "SloSpec::attainment",
    .dimension = Dimension::fraction,
    .default_number = SloSpec{}.attainment,
    .default_note = "not set",
    .min = 0,
    .max = 1,
};

// One key per statistic, the same in every metric's mapping.
const std::vector<Key>& statistic_keys() {
  static const std::vector<Key> keys = [] {
    std::vector<Key> out;
    for (const auto& stat : slo_statistic_names())
      out.push_back(Key{
          .name = stat,
          .type = KeyType::number,
          .doc = stat == "mean" ? "limit on the mean, positive" : "limit on this percentile, positive",
          .spec = "SloTarget::limit_ms",
          .unit = "ms",
          .default_note = "no limit",
      });
    return out;
  }();
  return keys;
}

struct MetricSection {
  std::string path;  // "slo.ttft_ms", kept alive for the section's string_view
  Key key;           // the metric's key in `slo:`
  KeySection section;
};

const std::vector<std::unique_ptr<MetricSection>>& metric_sections() {
  static const std::vector<std::unique_ptr<MetricSection>> out = [] {
    std::vector<std::unique_ptr<MetricSection>> v;
    for (const auto& metric : slo_metric_names()) {
      auto m = std::make_unique<MetricSection>();
      m->path = fmt::format("{}.{}", kSloPath, metric);
      m->key = Key{.name = metric,
                   .type = KeyType::section,
                   .doc = "limits on this metric, per statistic (milliseconds)",
                   .spec = "SloSpec::targets"};
      m->section.path = m->path;
      m->section.doc = "limits on one latency metric, in milliseconds";
      for (const Key& k : statistic_keys()) m->section.keys.push_back(&k);
      v.push_back(std::move(m));
    }
    return v;
  }();
  return out;
}

}  // namespace

const KeySection& slo_key_section() {
  static const KeySection slo = [] {
    KeySection s{.path = kSloPath, .doc = "service-level objectives: latency limits and the share of requests to meet them"};
    s.keys.push_back(&kAttainment);
    for (const auto& m : metric_sections()) s.keys.push_back(&m->key);
    return s;
  }();
  return slo;
}

std::vector<const KeySection*> slo_metric_key_sections() {
  std::vector<const KeySection*> out;
  for (const auto& m : metric_sections()) out.push_back(&m->section);
  return out;
}

SloSpec read_slo(ConfigMap& m) {
  SloSpec slo;
  const std::string attainment(kAttainment.name);
  slo.attainment = m.quantity(attainment, kAttainment.dimension, kAttainment.default_number);
  if (slo.attainment < kAttainment.min || slo.attainment > kAttainment.max)
    throw Error(fmt::format("{}: attainment must be a fraction in [0, 1]", m.where(attainment)));
  for (const auto& section : metric_sections()) {
    const std::string metric(section->key.name);
    if (!m.has(metric)) continue;
    ConfigMap stats = m.map(metric);
    for (const Key* k : section->section.keys) {
      const std::string stat(k->name);
      if (!stats.has(stat)) continue;
      const double v = stats.number(stat);
      if (v <= 0) stats.fail(stat, "an SLO limit must be positive (milliseconds)");
      slo.targets.push_back({metric, stat, v});
    }
    stats.finish();
  }
  m.finish();
  return slo;
}

}  // namespace servesim
