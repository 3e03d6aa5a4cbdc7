#include "hardware/gpu_catalog.h"

#include <fmt/format.h>

#include <limits>

#include "config/yaml_text.h"
#include "util/error.h"
#include "util/parsed_file_cache.h"
#include "util/paths.h"
#include "util/text.h"
#include "config/config_ranges.h"

namespace servesim {

double GpuSpec::peak(DType compute) const {
  const auto it = peak_flops.find(compute);
  if (it != peak_flops.end()) return it->second;
  std::vector<std::string> have;
  for (const auto& [t, _] : peak_flops) have.push_back(dtype_name(t));
  throw Error(fmt::format("{} has no {} tensor cores (it supports: {})", name, dtype_name(compute),
                          join(have)));
}

std::vector<std::string> gpu_catalog_names() { return list_catalog("hardware"); }

void apply_efficiency_overrides(ConfigMap& m, Efficiency& e) {
  for (const auto& field : efficiency_field_names()) {
    if (!m.has(field)) continue;
    const double v = efficiency_field_is_time(field) ? m.quantity(field, Dimension::time)
                                                     : m.quantity(field, Dimension::fraction);
    // Durations and the token count may be 0; an efficiency fraction of 0 would make
    // every kernel take forever (division by zero), so fractions must be in (0, 1].
    // gemm_overlap is a share, not a divisor: 0 (no overlap) is allowed.
    const bool is_share = field == "gemm_overlap";
    const bool is_fraction = !efficiency_field_is_time(field) && field != "gemm_tokens_half" && !is_share;
    const bool bad = is_share ? (v < 0 || v > 1.0) : is_fraction ? (v <= 0 || v > 1.0) : v < 0;
    if (bad) {
      throw Error(fmt::format("{}: {} must be {}", m.where(field), field,
                              efficiency_field_is_time(field) ? "a duration >= 0"
                              : is_share                       ? "a fraction in [0, 1]"
                              : is_fraction                    ? "a fraction in (0, 1]"
                                                               : "a token count >= 0"));
    }
    efficiency_field(e, field) = v;
  }
  m.finish();
}

void apply_interconnect_overrides(ConfigMap& m, GpuSpec& g) {
  const std::pair<const char*, Link*> links[] = {{"intra_node", &g.intra_node}, {"inter_node", &g.inter_node},
                                                 {"host", &g.host}};
  for (const auto& [name, link] : links) {
    ConfigMap l = m.map(name);
    if (l.has("bandwidth")) {
      link->bandwidth = l.quantity("bandwidth", Dimension::bandwidth);
      if (!(link->bandwidth > 0)) throw Error(fmt::format("{}: must be positive", l.where("bandwidth")));
    }
    if (l.has("latency")) {
      link->latency = l.quantity("latency", Dimension::time);
      if (link->latency < 0) throw Error(fmt::format("{}: must be a duration >= 0", l.where("latency")));
    }
    l.finish();
  }
  m.finish();
}

namespace {
Link parse_link(ConfigMap m, bool required) {
  Link l;
  if (!required && !m.node().is_map()) return l;
  l.kind = m.string("kind", "");
  // A link's bandwidth divides message sizes: it must be positive when given.
  const RealRange positive{1.0, std::numeric_limits<double>::infinity()};  // at least 1 B/s
  l.bandwidth = required ? quantity_in(m, "bandwidth", Dimension::bandwidth, positive)
              : m.has("bandwidth") ? quantity_in(m, "bandwidth", Dimension::bandwidth, positive)
                                   : 0.0;
  l.latency = quantity_in(m, "latency", Dimension::time, 0.0, RealRange{0.0, kMaxDurationSeconds});
  m.finish();
  return l;
}
}  // namespace

GpuSpec parse_gpu(ConfigMap& doc) {
  GpuSpec g;
  g.source_file = doc.file();
  check_schema_version(doc);
  g.name = doc.string("name");
  g.display_name = doc.string("display_name", g.name);
  g.vendor = doc.string("vendor", "");
  g.architecture = doc.string("architecture", "");
  g.gpus_per_node = static_cast<int>(integer_in(doc, "gpus_per_node", 8, {1, 1024}, "GPUs in one node"));

  ConfigMap compute = doc.map("compute");
  for (const auto& name : dtype_names()) {
    if (compute.has(name)) {
      const double f = compute.quantity(name, Dimension::flop_rate);
      if (f <= 0) throw Error(fmt::format("{}: must be positive", compute.where(name)));
      g.peak_flops[parse_dtype(name, compute.where(name))] = f;
    }
  }
  compute.finish();
  if (g.peak_flops.empty()) throw Error(fmt::format("{}: no compute precisions given", doc.where("compute")));

  ConfigMap memory = doc.map("memory");
  g.memory_capacity = memory.quantity("capacity", Dimension::bytes);
  g.memory_bandwidth = memory.quantity("bandwidth", Dimension::bandwidth);
  memory.finish();
  if (g.memory_capacity <= 0 || g.memory_bandwidth <= 0)
    throw Error(fmt::format("{}: capacity and bandwidth must be positive", doc.where("memory")));

  ConfigMap ic = doc.map("interconnect");
  g.intra_node = parse_link(ic.map("intra_node"), true);
  g.inter_node = parse_link(ic.map("inter_node"), false);
  g.host = parse_link(ic.map("host"), false);
  ic.finish();

  ConfigMap power = doc.map("power");
  g.tdp_watts = quantity_in(power, "tdp", Dimension::power, RealRange{1.0, 1e5}, "a board's power limit");
  // Idle power cannot exceed the board's limit (energy per token would turn negative).
  g.idle_watts = quantity_in(power, "idle", Dimension::power, 0.1 * g.tdp_watts, RealRange{0.0, g.tdp_watts},
                             "idle power is at most the TDP");
  power.finish();

  ConfigMap cost = doc.map("cost");
  g.price_per_hour = quantity_in(cost, "on_demand", Dimension::price_per_hour, 0.0,
                                 RealRange{0.0, std::numeric_limits<double>::infinity()});
  cost.finish();

  ConfigMap eff = doc.map("efficiency");
  apply_efficiency_overrides(eff, g.efficiency);
  doc.allow({"calibration"});  // provenance block written by `servesim calibrate`
  doc.finish();
  return g;
}

GpuSpec load_gpu(const std::string& name_or_path) {
  std::string path = name_or_path;
  if (!looks_like_path(name_or_path)) {
    path = catalog_dir("hardware") + "/" + name_or_path + ".yaml";
    if (!file_exists(path)) {
      const auto names = gpu_catalog_names();
      throw Error(fmt::format("unknown GPU '{}'{} (known GPUs: {}; or give a path to a GPU YAML)",
                              name_or_path, did_you_mean(name_or_path, names), join(names)));
    }
  } else if (!file_exists(path)) {
    reject_directory(path);
    throw Error(fmt::format("{}: GPU file not found", path));
  }
  static ParsedFileCache<GpuSpec> cache;  // sweeps load the same file per point
  return cache.get(path, [&] {
    const ConfigNode file = load_yaml_file(path);
    ConfigMap doc(file, path);
    return parse_gpu(doc);
  });
}

}  // namespace servesim
