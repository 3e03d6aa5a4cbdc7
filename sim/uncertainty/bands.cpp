#include "uncertainty/bands.h"
#include "uncertainty/source_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <set>

#include "util/json_file.h"
#include "util/error.h"
#include "util/paths.h"

namespace servesim::bands {

std::string load_regime(double batch_occupancy, double kv_utilization, bool overloaded) {
  return overloaded || batch_occupancy >= kHighLoadOccupancy || kv_utilization >= kHighLoadOccupancy ? "high" : "low";
}

std::string framework_family(const std::string& preset) {
  const auto dash = preset.find('-');
  return dash == std::string::npos ? preset : preset.substr(0, dash);
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double h = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(h));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (h - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

std::pair<double, double> conformal_bounds(std::vector<double> v, double coverage) {
  if (v.empty()) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  auto k = static_cast<std::size_t>(std::floor((n + 1) * (1 - coverage) / 2));
  k = std::clamp<std::size_t>(k, 1, (v.size() + 1) / 2);
  return {v[k - 1], v[v.size() - k]};
}

std::vector<std::string> fallback_chain(const BandKey& k) {
  const std::string cal = k.calibrated ? "calibrated" : "defaults";
  const std::string& fw = k.framework;
  // GPU family before load: a profile's error is mostly the GPU's (the calibrated
  // profiles are per GPU), the load regime second. Calibration is pooled last.
  return {fmt::format("{}/{}/{}/{}", cal, k.family, fw, k.load), fmt::format("{}/{}/{}/*", cal, k.family, fw),
          fmt::format("{}/*/{}/{}", cal, fw, k.load), fmt::format("{}/*/{}/*", cal, fw),
          fmt::format("*/*/{}/*", fw)};
}

std::string group_label(const std::string& id) {
  std::vector<std::string> part;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= id.size(); ++i)
    if (i == id.size() || id[i] == '/') {
      part.push_back(id.substr(start, i - start));
      start = i + 1;
    }
  if (part.size() != 4) return id;
  std::vector<std::string> words;
  words.push_back(part[0] == "*" ? "defaults and calibrated" : part[0]);
  words.push_back(part[1] == "*" ? "all GPU families" : part[1] + " GPUs");
  words.push_back(part[2] == "*" ? "all frameworks" : part[2]);
  words.push_back(part[3] == "*" ? "any load" : part[3] + " load");
  return fmt::format("{}, {}, {}, {}", words[0], words[1], words[2], words[3]);
}

BandTable build_table(const std::vector<Residual>& residuals, int min_points, double coverage, BandMethod method,
                      bool with_source_spread) {
  BandTable t;
  t.method = method;
  t.min_points = min_points;
  t.coverage = coverage;
  std::set<std::string> families, frameworks;
  std::map<std::string, std::map<std::string, std::vector<double>>> values;  // metric -> id -> residuals
  for (const auto& r : residuals) {
    if (!std::isfinite(r.value)) continue;
    families.insert(r.key.family);
    frameworks.insert(r.key.framework);
    for (const auto& id : fallback_chain(r.key)) values[r.metric][id].push_back(r.value);
  }
  const double lo = (1 - coverage) / 2, hi = (1 + coverage) / 2;
  for (const auto& [metric, ids] : values)
    for (const auto& [id, v] : ids) {
      const auto [q_lo, q_hi] =
          method == BandMethod::conformal ? conformal_bounds(v, coverage) : std::pair{quantile(v, lo), quantile(v, hi)};
      t.groups[metric][id] = Group{static_cast<int>(v.size()), q_lo, q_hi};
    }
  t.families.assign(families.begin(), families.end());
  t.frameworks.assign(frameworks.begin(), frameworks.end());
  if (with_source_spread) {
    const SourceSpread s = source_spread(residuals);
    t.source_tau = s.tau;
    t.source_cells = s.cells;
    t.source_df = s.df;
  }
  return t;
}

std::string source_metric(const std::string& metric, const std::string& stat) {
  if (metric == "ttft" || metric == "e2e") {
    if (stat == "mean" || stat == "p50") return metric + "_mean";
    if (stat == "p90" || stat == "p99") return metric + "_" + stat;
    return "";
  }
  if (metric == "tpot" || metric == "itl") return "tpot_mean";
  return "";
}

double half_width_pct(double lo, double hi) { return lo > 0 && hi > 0 ? 100 * (std::sqrt(hi / lo) - 1) : 0.0; }

Band lookup(const BandTable& t, const BandKey& key, const std::string& measured_metric, double predicted,
            bool pool_unseen_family) {
  Band b;
  b.from = measured_metric;
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  if (!key.uncovered.empty()) {
    b.reason = fmt::format("no measured run covers: {} (the band table's runs are co-located, 16-bit, "
                           "non-speculative, on dense models and Mixtral's 8-expert top-2 MoE, all with full attention): no band",
                           fmt::join(key.uncovered, ", "));
    return b;
  }
  const auto m = t.groups.find(measured_metric);
  // A family is seen per metric: the ML.ENERGY runs give Blackwell a TPOT error but no TTFT
  // or E2E one, and those are not borrowed from other hardware either.
  std::set<std::string> metric_families;
  if (m != t.groups.end())
    for (const auto& [id, g] : m->second) {
      const auto a = id.find('/'), b = id.find('/', a + 1);
      if (a != std::string::npos && b != std::string::npos && id.substr(a + 1, b - a - 1) != "*")
        metric_families.insert(id.substr(a + 1, b - a - 1));
    }
  const bool unseen_family = !metric_families.count(key.family);
  if (!has(t.frameworks, key.framework)) {
    b.reason = fmt::format("no measured serving run with framework {} (the data covers {}): no band",
                           key.framework, fmt::join(t.frameworks, ", "));
    return b;
  }
  if (m == t.groups.end()) {
    b.reason = fmt::format("no measured residuals for {}: no band", measured_metric);
    return b;
  }
  if (unseen_family && !pool_unseen_family) {
    if (!has(t.families, key.family))
      b.reason = fmt::format("no measured serving run on a {} GPU (the data covers {}): no band",
                             key.family.empty() ? "unnamed-architecture" : key.family, fmt::join(t.families, ", "));
    else
      b.reason = fmt::format("the measured runs on {} GPUs do not measure it (only those on {} do)", key.family,
                             fmt::join(metric_families, ", "));
    return b;
  }
  // A group too wide to inform (often a small one whose band is its extremes, one outlier
  // included) gives way to a coarser group, but only to one measured at the run's own load:
  // pooling loads would put low-load scatter around a run near saturation.
  const std::string own_load = "/" + key.load;
  auto same_load = [&](const std::string& id) {
    return id.size() >= own_load.size() && id.compare(id.size() - own_load.size(), own_load.size(), own_load) == 0;
  };
  for (const auto& id : fallback_chain(key)) {
    if (unseen_family && id.find("/*/") == std::string::npos) continue;  // only groups pooled over families
    if (!b.reason.empty() && !same_load(id)) continue;
    const auto g = m->second.find(id);
    if (g == m->second.end() || g->second.n < t.min_points) continue;
    if (!(predicted > 0) || !std::isfinite(predicted)) {
      b.reason = "no prediction to put a band around";
      return b;
    }
    const auto [q_lo, q_hi] = widen_by_source(g->second.q_lo, g->second.q_hi, t.source_tau, t.coverage);
    const double width = half_width_pct(std::exp(q_lo), std::exp(q_hi));
    if (width > t.max_half_width_pct) {
      if (!b.reason.empty()) continue;  // the closest too-wide group's reason stands
      b.common_reason = fmt::format("the closest measured runs ({}, n={}) miss them by more than a band of +-{:.0f}% "
                                    "may span (near saturation a small capacity error decides whether the queue is "
                                    "stable)",
                                    group_label(id), g->second.n, t.max_half_width_pct);
      b.reason = fmt::format("the closest measured runs ({}, n={}) miss {} by {:+.0f}% to {:+.0f}%: a band of +-{:.0f}% "
                             "(more than +-{:.0f}%) says nothing: no band (near saturation a small capacity error "
                             "decides whether the queue is stable)",
                             group_label(id), g->second.n, measured_metric, 100 * (std::exp(q_lo) - 1),
                             100 * (std::exp(q_hi) - 1), width, t.max_half_width_pct);
      continue;
    }
    b.available = true;
    b.reason.clear();
    b.common_reason.clear();
    b.group = id;
    b.n = g->second.n;
    b.lo = predicted * std::exp(q_lo);
    b.hi = predicted * std::exp(q_hi);
    return b;
  }
  if (b.reason.empty())
    b.reason = fmt::format("fewer than {} measured runs in every group for {}: no band", t.min_points, measured_metric);
  return b;
}

nlohmann::json table_to_json(const BandTable& t) {
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [metric, ids] : t.groups)
    for (const auto& [id, g] : ids)
      groups[metric][id] = {{"n", g.n}, {"q_lo", g.q_lo}, {"q_hi", g.q_hi}};
  return {{"schema_version", 1},
          {"provenance", t.provenance},
          {"residual", "log(measured / predicted)"},
          {"coverage", t.coverage},
          {"method", t.method == BandMethod::conformal ? "conformal" : "quantile"},
          {"min_points", t.min_points},
          {"max_half_width_pct", t.max_half_width_pct},
          {"high_load_occupancy", kHighLoadOccupancy},
          {"families", t.families},
          {"frameworks", t.frameworks},
          {"between_source", {{"tau", t.source_tau}, {"cells", t.source_cells}, {"df", t.source_df},
                              {"note", "log-space sd of a source's bias; every band is widened by it "
                                       "(uncertainty/source_spread.h)"}}},
          {"groups", groups}};
}

BandTable table_from_json(const nlohmann::json& j, const std::string& source) {
  try {
    BandTable t;
    if (j.at("schema_version").get<int>() != 1)
      throw Error(fmt::format("{}: schema_version {} not understood (expected 1)", source,
                              j.at("schema_version").dump()));
    t.coverage = j.at("coverage").get<double>();
    t.min_points = j.at("min_points").get<int>();
    t.max_half_width_pct = j.value("max_half_width_pct", 100.0);
    t.method = j.value("method", std::string("conformal")) == "quantile" ? BandMethod::quantile : BandMethod::conformal;
    t.families = j.at("families").get<std::vector<std::string>>();
    t.frameworks = j.at("frameworks").get<std::vector<std::string>>();
    if (j.contains("provenance")) t.provenance = j.at("provenance");
    if (j.contains("between_source")) {
      const auto& bs = j.at("between_source");
      t.source_tau = bs.at("tau").get<double>();
      t.source_cells = bs.value("cells", 0);
      t.source_df = bs.value("df", 0);
      if (!(t.source_tau >= 0) || !std::isfinite(t.source_tau))
        throw Error(fmt::format("{}: between_source.tau must be a finite number >= 0", source));
    }
    for (const auto& [metric, ids] : j.at("groups").items())
      for (const auto& [id, g] : ids.items())
        t.groups[metric][id] = Group{g.at("n").get<int>(), g.at("q_lo").get<double>(), g.at("q_hi").get<double>()};
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not a band table ({})", source, e.what()));
  }
}

BandTable load_table(const std::string& path) {
  return table_from_json(read_json_file(path), path);
}

const BandTable* shipped_table(std::string* why) {
  // Read once: sweep and plan look the table up for every point, from several threads.
  static std::once_flag once;
  static std::optional<BandTable> table;
  static std::string error;
  std::call_once(once, [] {
    const std::string path = data_root() + "/data/uncertainty/bands.json";
    if (!file_exists(path)) {
      error = fmt::format("no uncertainty band table at {} ({}): no bands", path, catalog_search_help());
      return;
    }
    try {
      table = load_table(path);
    } catch (const Error& e) {
      error = fmt::format("{}: no bands", e.what());
    }
  });
  if (why) *why = error;
  return table ? &*table : nullptr;
}

nlohmann::json summary_bands_json(const BandTable* t, const std::string& why, const BandKey& key,
                                  const nlohmann::json& summary) {
  nlohmann::json out = {{"key",
                         {{"calibrated", key.calibrated}, {"gpu_family", key.family}, {"framework", key.framework},
                          {"load", key.load}, {"uncovered", key.uncovered}}}};
  if (!t) {
    out["available"] = false;
    out["reason"] = why;
    return out;
  }
  out["coverage"] = t->coverage;
  bool any = false;
  std::string reason;
  static const std::map<std::string, std::string> kLabels = {{"ttft", "TTFT"}, {"tpot", "TPOT"}, {"e2e", "E2E"}};
  // why -> (the statistics without a band, each metric's own reason when `why` is the common one)
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> missing;
  for (const char* metric : {"ttft", "tpot", "e2e"}) {
    const std::string section = std::string(metric) + "_ms";
    if (!summary.contains(section)) continue;
    nlohmann::json m = nlohmann::json::object();
    for (const char* stat : {"mean", "p50", "p90", "p99"}) {
      const auto& v = summary.at(section).at(stat);
      const double predicted = v.is_number() ? v.get<double>() : 0.0;
      const Band b = lookup(*t, key, source_metric(metric, stat), predicted);
      if (!b.available) {
        reason = b.reason;
        auto& gap = missing[b.common_reason.empty() ? b.reason : b.common_reason];
        gap.first.push_back(fmt::format("{} {}", kLabels.at(metric), stat));
        if (!b.common_reason.empty() && std::find(gap.second.begin(), gap.second.end(), b.reason) == gap.second.end())
          gap.second.push_back(b.reason);
        continue;
      }
      any = true;
      m[stat] = {{"lo", b.lo}, {"hi", b.hi}, {"half_width_pct", half_width_pct(b.lo, b.hi)}, {"group", b.group},
                 {"label", group_label(b.group)}, {"n", b.n}, {"from", b.from}};
    }
    out[section] = m;
  }
  out["available"] = any;
  if (!any) out["reason"] = reason;
  // Some statistics banded, others not: say which and why (never a silent gap).
  if (any && !missing.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [why, gap] : missing) {
      nlohmann::json entry = {{"statistics", gap.first}, {"reason", why}};
      if (!gap.second.empty()) entry["details"] = gap.second;
      list.push_back(entry);
    }
    out["missing"] = list;
  }
  return out;
}

std::string summary_bands_text(const nlohmann::json& bands) {
  if (!bands.value("available", false))
    return fmt::format("\n80% bands: {}\n", bands.value("reason", std::string("none")));
  std::string out = fmt::format("\n{:.0f}% bands, ms (from the errors of the closest measured runs):\n",
                                100 * bands.value("coverage", 0.8));
  std::set<std::string> groups;
  for (const char* section : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
    if (!bands.contains(section)) continue;
    std::string label = section == std::string("ttft_ms") ? "TTFT" : section == std::string("tpot_ms") ? "TPOT" : "E2E";
    out += fmt::format("{:<5}", label);
    for (const char* stat : {"mean", "p50", "p90", "p99"}) {
      const auto& s = bands.at(section);
      if (!s.contains(stat)) {
        out += fmt::format("  {:<4} {:<26}", stat, "-");
        continue;
      }
      out += fmt::format("  {:<4} {:<26}", stat,
                         fmt::format("[{:.1f}, {:.1f}] +-{:.0f}%", s.at(stat).at("lo").get<double>(),
                                     s.at(stat).at("hi").get<double>(),
                                     half_width_pct(s.at(stat).at("lo").get<double>(), s.at(stat).at("hi").get<double>())));
      groups.insert(fmt::format("{}: n={}", s.at(stat).at("label").get<std::string>(), s.at(stat).at("n").get<int>()));
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();  // no trailing blanks
    out += "\n";
  }
  for (const auto& g : groups) out += fmt::format("  from {}\n", g);
  if (bands.contains("missing"))
    for (const auto& x : bands.at("missing")) {
      // "TTFT mean", "TTFT p50", "E2E mean" -> "TTFT mean, p50; E2E mean"
      std::string stats, last;
      for (const auto& st : x.at("statistics").get<std::vector<std::string>>()) {
        const std::string label = st.substr(0, st.find(' ')), stat = st.substr(st.find(' ') + 1);
        stats += label == last ? ", " + stat : (stats.empty() ? "" : "; ") + st;
        last = label;
      }
      out += fmt::format("  no band for {}: {}\n", stats, x.at("reason").get<std::string>());
    }
  if (bands.contains("seed_spread")) out += fmt::format("  {}\n", bands.at("seed_spread").value("note", std::string()));
  return out;
}

void widen_by_seed_spread(nlohmann::json& bands, const nlohmann::json& summary,
                          const std::vector<nlohmann::json>& replicate_summaries,
                          const std::vector<std::uint64_t>& seeds) {
  if (replicate_summaries.empty()) return;
  double widest = 0;  // largest |log ratio| over every statistic
  std::string widest_at;
  for (const char* section : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
    if (!summary.contains(section)) continue;
    for (const char* stat : {"mean", "p50", "p90", "p99"}) {
      const auto& v = summary.at(section).at(stat);
      if (!v.is_number() || !(v.get<double>() > 0)) continue;
      const double main = v.get<double>();
      double lo = 1, hi = 1;
      for (const auto& rep : replicate_summaries) {
        const auto& r = rep.at(section).at(stat);
        if (!r.is_number() || !(r.get<double>() > 0)) continue;
        const double ratio = r.get<double>() / main;
        lo = std::min(lo, ratio);
        hi = std::max(hi, ratio);
        if (std::abs(std::log(ratio)) > widest) {
          widest = std::abs(std::log(ratio));
          widest_at = fmt::format("{} {}", std::string(section).substr(0, std::string(section).size() - 3), stat);
        }
      }
      if (!bands.contains(section) || !bands.at(section).contains(stat)) continue;
      auto& b = bands[section][stat];
      b["lo"] = b.at("lo").get<double>() * lo;
      b["hi"] = b.at("hi").get<double>() * hi;
      b["half_width_pct"] = half_width_pct(b.at("lo").get<double>(), b.at("hi").get<double>());
      b["seed_lo"] = lo;
      b["seed_hi"] = hi;
    }
  }
  bands["seed_spread"] = {
      {"seeds", seeds},
      {"largest_pct", 100 * (std::exp(widest) - 1)},
      {"note", fmt::format("widened by the simulation's own spread over {} more seed(s) ({}): at most {:.1f}% ({})",
                           seeds.size(), fmt::join(seeds, ", "), 100 * (std::exp(widest) - 1),
                           widest_at.empty() ? "none" : widest_at)}};
}

}  // namespace servesim::bands
