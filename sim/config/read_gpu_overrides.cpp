// A GPU's efficiency knobs (GPU file `efficiency:`, scenario `hardware.efficiency`)
// and a scenario's `hardware.interconnect` overrides. The efficiency keys are made
// from hardware/efficiency.h's knob table, so a knob is declared in one place.
#include <fmt/format.h>

#include <deque>
#include <string>

#include "config/catalog_keys.h"
#include "config/catalog_reader.h"
#include "util/error.h"

namespace servesim {
namespace {

Dimension knob_dimension(const EfficiencyKnob& k) {
  return k.kind == KnobKind::duration ? Dimension::time : Dimension::fraction;
}

// One Key per knob. Key holds string_views: the composed texts live in `texts`,
// which is static and never shrinks (a deque keeps its elements in place).
const std::vector<Key>& efficiency_keys() {
  static std::deque<std::string> texts;
  static const std::vector<Key> keys = [] {
    std::vector<Key> out;
    for (const EfficiencyKnob& k : efficiency_knobs()) {
      Key key;
      key.name = k.name;
      const bool plain = k.kind == KnobKind::tokens || k.kind == KnobKind::sm_rate || k.kind == KnobKind::cycles ||
                         k.kind == KnobKind::tokens_per_sm || k.kind == KnobKind::fp32_per_byte;
      key.type = plain ? KeyType::number : KeyType::quantity;
      key.dimension = knob_dimension(k);
      key.unit = k.kind == KnobKind::tokens          ? "tokens"
                 : k.kind == KnobKind::sm_rate       ? "bytes per SM-cycle"
                 : k.kind == KnobKind::cycles        ? "SM cycles"
                 : k.kind == KnobKind::tokens_per_sm ? "tokens per SM"
                 : k.kind == KnobKind::fp32_per_byte ? "FP32 instructions per byte"
                                                     : "";
      key.doc = texts.emplace_back(fmt::format("{}; {}. Default from: {}; `calibrate` fits it in [{:g}, {:g}]{}",
                                               k.doc, knob_range_text(k), k.citation, k.fit_lo, k.fit_hi,
                                               k.fit_unit.empty() ? std::string() : fmt::format(" {}", k.fit_unit)));
      key.spec = texts.emplace_back(fmt::format("Efficiency::{}", k.name));
      key.default_number = k.default_value;
      // Key ranges are inclusive: a fraction's (0, 1] is stated in the doc instead.
      if (k.kind != KnobKind::fraction) key.min = 0;
      if (k.kind == KnobKind::share) key.max = 1;
      key.why = knob_range_text(k);
      out.push_back(key);
    }
    return out;
  }();
  return keys;
}

KeySection efficiency_section(std::string_view path, std::string_view doc) {
  KeySection s{path, doc, {}, {}, {}};
  for (const Key& k : efficiency_keys()) s.keys.push_back(&k);
  return s;
}

// Scenario overrides of one link; absent keys keep the GPU file's value.
const Key kLinkBandwidth{.name = "bandwidth",
                         .type = KeyType::quantity,
                         .doc = "replaces the GPU file's link bandwidth (per GPU, per direction); must be positive",
                         .spec = "GpuSpec::<link>.bandwidth",
                         .dimension = Dimension::bandwidth,
                         .default_note = "the GPU file's",
                         .why = "must be positive"};
const Key kLinkLatency{.name = "latency",
                       .type = KeyType::quantity,
                       .doc = "replaces the GPU file's per-message latency; a collective pays 2 x ceil(log2 TP) of "
                              "them, so engines whose collectives cost more than the link fit a larger one",
                       .spec = "GpuSpec::<link>.latency",
                       .dimension = Dimension::time,
                       .default_note = "the GPU file's",
                       .min = 0,
                       .why = "a duration >= 0"};
const Key kIntraNode{.name = "intra_node", .type = KeyType::section, .doc = "GPU-GPU link inside a node (NVLink, xGMI, PCIe)"};
const Key kInterNode{.name = "inter_node", .type = KeyType::section, .doc = "network between nodes"};
const Key kHost{.name = "host", .type = KeyType::section, .doc = "GPU <-> CPU memory link (KV offload)"};

void read_link_override(ConfigMap& l, Link& link) {
  if (has_key(l, kLinkBandwidth)) {
    link.bandwidth = l.quantity(std::string(kLinkBandwidth.name), kLinkBandwidth.dimension);
    if (!(link.bandwidth > 0)) throw Error(fmt::format("{}: must be positive", l.where("bandwidth")));
  }
  if (has_key(l, kLinkLatency)) {
    link.latency = l.quantity(std::string(kLinkLatency.name), kLinkLatency.dimension);
    if (link.latency < 0) throw Error(fmt::format("{}: must be a duration >= 0", l.where("latency")));
  }
  l.finish();
}

}  // namespace

void apply_efficiency_overrides(ConfigMap& m, Efficiency& e) {
  for (const EfficiencyKnob& k : efficiency_knobs()) {
    const std::string name(k.name);
    if (!m.has(name)) continue;
    const double v = m.quantity(name, knob_dimension(k));
    if (!knob_value_valid(k, v)) throw Error(fmt::format("{}: {} must be {}", m.where(name), name, knob_range_text(k)));
    e.*k.member = v;
  }
  m.finish();
}

void apply_interconnect_overrides(ConfigMap& m, GpuSpec& g) {
  const std::pair<const Key*, Link*> links[] = {{&kIntraNode, &g.intra_node}, {&kInterNode, &g.inter_node}, {&kHost, &g.host}};
  for (const auto& [key, link] : links) {
    ConfigMap l = m.map(std::string(key->name));
    read_link_override(l, *link);
  }
  m.finish();
}

std::vector<const KeySection*> gpu_override_key_sections() {
  static const KeySection gpu_file = efficiency_section(
      "(gpu file).efficiency", "the roofline's calibratable knobs for this GPU (absent: the defaults below)");
  static const KeySection scenario = efficiency_section(
      "hardware.efficiency", "overrides of the GPU file's efficiency knobs for this scenario");
  static const KeySection interconnect{"hardware.interconnect",
                                       "overrides of the GPU file's links (e.g. a fitted intra_node latency)",
                                       {}, {}, {&kIntraNode, &kInterNode, &kHost}};
  static const KeySection intra{"hardware.interconnect.intra_node", "GPU-GPU link inside a node", {}, {},
                                {&kLinkBandwidth, &kLinkLatency}};
  static const KeySection inter{"hardware.interconnect.inter_node", "network between nodes", {}, {},
                                {&kLinkBandwidth, &kLinkLatency}};
  static const KeySection host{"hardware.interconnect.host", "GPU <-> CPU memory link", {}, {},
                               {&kLinkBandwidth, &kLinkLatency}};
  return {&gpu_file, &scenario, &interconnect, &intra, &inter, &host};
}

}  // namespace servesim
