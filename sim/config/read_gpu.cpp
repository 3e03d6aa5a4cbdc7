// Reading a GPU file (hardware/*.yaml): the keys, each declared once, and the reader
// that fills GpuSpec through them.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "config/catalog_keys.h"
#include "config/catalog_reader.h"
#include "config/config_ranges.h"
#include "config/schema_version.h"
#include "config/yaml_text.h"
#include "hardware/power_model.h"
#include "util/error.h"
#include "util/parsed_file_cache.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// --- (gpu file) ---
const Key kName{.name = "name", .type = KeyType::text, .doc = "catalog name, e.g. h100-sxm", .spec = "GpuSpec::name",
                .required = true};
const Key kDisplayName{.name = "display_name", .type = KeyType::text, .doc = "name shown in reports",
                       .spec = "GpuSpec::display_name", .default_note = "the name"};
const Key kVendor{.name = "vendor", .type = KeyType::text, .doc = "nvidia, amd, ...", .spec = "GpuSpec::vendor"};
const Key kArchitecture{.name = "architecture", .type = KeyType::text, .doc = "hopper, ampere, cdna3, ...",
                        .spec = "GpuSpec::architecture"};
const Key kGpusPerNode{.name = "gpus_per_node", .type = KeyType::integer,
                       .doc = "GPUs in one node; tensor parallelism beyond it crosses the inter-node network",
                       .spec = "GpuSpec::gpus_per_node", .unit = "GPUs", .default_number = 8, .min = 1, .max = 1024,
                       .why = "GPUs in one node"};
const Key kSmCount{.name = "sm_count", .type = KeyType::integer,
                   .doc = "streaming multiprocessors (NVIDIA SMs) of the whole GPU, from the vendor's datasheet or "
                          "whitepaper; with boost_clock it caps elementwise kernels at "
                          "efficiency.elementwise_bytes_per_sm_cycle x SMs x clock",
                   .spec = "GpuSpec::sm_count", .unit = "SMs",
                   .default_note = "absent: elementwise kernels are bound by memory bandwidth alone",
                   .min = 1, .max = 100000, .why = "a count of SMs"};
const Key kBoostClock{.name = "boost_clock", .type = KeyType::quantity,
                      .doc = "the SMs' boost clock (the clock of the datasheet's peak rates); needs sm_count",
                      .spec = "GpuSpec::boost_clock", .dimension = Dimension::frequency,
                      .default_note = "absent: elementwise kernels are bound by memory bandwidth alone", .min = 1e6,
                      .max = 1e11, .why = "a clock between 1 MHz and 100 GHz"};
const Key kL2Cache{.name = "l2_cache", .type = KeyType::quantity,
                   .doc = "last-level (L2) cache of the whole GPU, from the vendor's whitepaper; with sm_count and "
                          "boost_clock, an elementwise kernel of the per-kind form whose bytes fit in it runs at "
                          "efficiency.<kind>_l2_bytes_per_sm_cycle",
                   .spec = "GpuSpec::l2_cache", .dimension = Dimension::bytes,
                   .default_note = "absent: one elementwise rate at every kernel size", .min = 1, .max = kInf,
                   .why = "a cache size of at least one byte"};
const Key kCompute{.name = "compute", .type = KeyType::section,
                   .doc = "dense tensor-core peak per compute precision (no 2:4 sparsity); at least one"};
const Key kMemory{.name = "memory", .type = KeyType::section, .doc = "device memory: capacity and bandwidth"};
const Key kInterconnect{.name = "interconnect", .type = KeyType::section, .doc = "links: intra_node, inter_node, host"};
const Key kPower{.name = "power", .type = KeyType::section, .doc = "board power, for energy per token"};
const Key kCost{.name = "cost", .type = KeyType::section, .doc = "price, for cost per token"};
const Key kEfficiency{.name = "efficiency", .type = KeyType::section,
                      .doc = "the roofline's calibratable knobs (see (gpu file).efficiency)"};
const Key kCalibration{.name = "calibration", .type = KeyType::section,
                       .doc = "provenance written by `servesim calibrate` (data, fit, errors); kept, not read"};

// --- (gpu file).compute: one key per precision, as dtype_names() lists them ---
#define SERVESIM_PEAK_KEY(NAME)                                                                       \
  Key {                                                                                               \
    .name = NAME, .type = KeyType::quantity, .doc = "dense " NAME " tensor peak; must be positive",   \
    .spec = "GpuSpec::peak_flops[" NAME "]", .dimension = Dimension::flop_rate,                      \
    .default_note = "absent: no " NAME " tensor cores"                                                \
  }
const Key kPeaks[] = {SERVESIM_PEAK_KEY("fp32"), SERVESIM_PEAK_KEY("tf32"), SERVESIM_PEAK_KEY("fp16"),
                      SERVESIM_PEAK_KEY("bf16"), SERVESIM_PEAK_KEY("fp8"),  SERVESIM_PEAK_KEY("int8"),
                      SERVESIM_PEAK_KEY("int4"), SERVESIM_PEAK_KEY("fp4")};
#undef SERVESIM_PEAK_KEY

// --- (gpu file).memory ---
const Key kCapacity{.name = "capacity", .type = KeyType::quantity,
                    .doc = "device memory as the device reports it (vLLM sizes the KV cache from this total); "
                           "must be positive",
                    .spec = "GpuSpec::memory_capacity", .dimension = Dimension::bytes, .required = true};
const Key kBandwidth{.name = "bandwidth", .type = KeyType::quantity, .doc = "peak memory bandwidth; must be positive",
                     .spec = "GpuSpec::memory_bandwidth", .dimension = Dimension::bandwidth, .required = true};

// --- (gpu file).interconnect.<link> ---
// A link's bandwidth divides message sizes: it must be positive (at least 1 B/s) when given,
// and at most 1 PB/s (NVLink 5 is 0.9 TB/s per direction; past that a typo makes every
// collective free).
constexpr double kMaxLinkBandwidth = 1e15;
constexpr std::string_view kLinkWhy = "no interconnect comes near it";
const Key kLinkKind{.name = "kind", .type = KeyType::text, .doc = "nvlink4, pcie5, xgmi, infiniband, ... (shown only)",
                    .spec = "Link::kind"};
const Key kLinkBandwidthRequired{.name = "bandwidth", .type = KeyType::quantity,
                                 .doc = "per GPU, per direction", .spec = "Link::bandwidth",
                                 .dimension = Dimension::bandwidth, .required = true, .min = 1, .max = kMaxLinkBandwidth,
                                 .why = kLinkWhy};
const Key kLinkBandwidthOptional{.name = "bandwidth", .type = KeyType::quantity,
                                 .doc = "per GPU, per direction", .spec = "Link::bandwidth",
                                 .dimension = Dimension::bandwidth, .default_note = "0: no such link", .min = 1,
                                 .max = kMaxLinkBandwidth, .why = kLinkWhy};
const Key kLinkLatency{.name = "latency", .type = KeyType::quantity, .doc = "one message (NCCL small-message latency)",
                       .spec = "Link::latency", .dimension = Dimension::time, .default_number = 0, .min = 0,
                       .max = kMaxDurationSeconds};
const Key kIntraNode{.name = "intra_node", .type = KeyType::section,
                     .doc = "GPU-GPU link inside a node (NVLink, xGMI, PCIe); required"};
const Key kInterNode{.name = "inter_node", .type = KeyType::section,
                     .doc = "network between nodes (absent: bandwidth 0, no multi-node parallelism cost)"};
const Key kHost{.name = "host", .type = KeyType::section, .doc = "GPU <-> CPU memory link, used by KV offload"};

// --- (gpu file).power, .cost ---
const Key kTdp{.name = "tdp", .type = KeyType::quantity,
               .doc = "board power limit: the cap of the load-following power (docs/energy.md)",
               .spec = "GpuSpec::tdp_watts", .dimension = Dimension::power, .required = true, .min = 1.0, .max = 1e5,
               .why = "a board's power limit"};
// Idle power cannot exceed the board's limit (energy per token would turn negative).
const Key kIdle{.name = "idle", .type = KeyType::quantity,
                .doc = "power with no step running (between steps and requests); at most the TDP",
                .spec = "GpuSpec::idle_watts", .dimension = Dimension::power, .default_note = "10% of the TDP",
                .min = 0.0, .why = "idle power is at most the TDP"};
// Load-following power (hardware/power_model.h, docs/energy.md), while a step runs:
//   P = active + (tdp - active) * min(1, compute_weight * U_compute + memory_weight * U_memory).
// Absent keys take the GPU architecture's values (architecture_power(), power_model.cpp).
const Key kActive{.name = "active", .type = KeyType::quantity,
                  .doc = "power while a step runs at zero utilisation (clocks up, weights resident): the floor of the "
                         "load-following power; between idle and the TDP",
                  .spec = "GpuSpec::active_watts", .dimension = Dimension::power,
                  .default_note = "the architecture's share of the TDP (Hopper, Blackwell: 0.203, from an H100's "
                                  "142 W), at least idle",
                  .min = 0.0, .why = "between idle power and the TDP"};
const Key kComputeWeight{.name = "compute_weight", .type = KeyType::number,
                         .doc = "share of the active-to-TDP span per unit of compute utilisation (FLOP/s over the "
                                "peak); 1/weight is the MFU at which the board reaches its power limit",
                         .spec = "GpuSpec::power_compute_weight",
                         .default_note = "the architecture's fit: hopper 2.6, blackwell 2.0, others Hopper's",
                         .min = 0.0, .max = 100.0, .why = "a non-negative weight"};
const Key kMemoryWeight{.name = "memory_weight", .type = KeyType::number,
                        .doc = "share of the active-to-TDP span per unit of memory-bandwidth utilisation (bytes/s "
                               "over the peak)",
                        .spec = "GpuSpec::power_memory_weight",
                        .default_note = "the architecture's fit: hopper 0.91, blackwell 1.2, others Hopper's",
                        .min = 0.0, .max = 100.0, .why = "a non-negative weight"};
const Key kOnDemand{.name = "on_demand", .type = KeyType::quantity, .doc = "price per GPU-hour (an assumption: cite it)",
                    .spec = "GpuSpec::price_per_hour", .dimension = Dimension::price_per_hour, .default_number = 0,
                    .min = 0, .max = kInf};

RealRange range_of(const Key& k) { return {k.min, k.max}; }

Link parse_link(ConfigMap m, bool required) {
  Link l;
  if (!required && !m.node().is_map()) return l;
  l.kind = read_text(m, kLinkKind);
  const Key& bw = required ? kLinkBandwidthRequired : kLinkBandwidthOptional;
  l.bandwidth = required || has_key(m, bw) ? quantity_in(m, "bandwidth", bw.dimension, range_of(bw)) : 0.0;
  l.latency = read_quantity(m, kLinkLatency);
  m.finish();
  return l;
}

void read_compute(ConfigMap& compute, GpuSpec& g) {
  for (const Key& k : kPeaks) {
    const std::string name(k.name);
    if (!compute.has(name)) continue;
    const double f = compute.quantity(name, k.dimension);
    if (f <= 0) throw Error(fmt::format("{}: must be positive", compute.where(name)));
    g.peak_flops[parse_dtype(name, compute.where(name))] = f;
  }
  compute.finish();
}

}  // namespace

GpuSpec parse_gpu(ConfigMap& doc) {
  GpuSpec g;
  g.source_file = doc.file();
  check_schema_version(doc);
  g.name = read_text(doc, kName);
  g.display_name = doc.string(std::string(kDisplayName.name), g.name);
  g.vendor = read_text(doc, kVendor);
  g.architecture = read_text(doc, kArchitecture);
  g.gpus_per_node = static_cast<int>(read_integer(doc, kGpusPerNode));
  if (has_key(doc, kSmCount) != has_key(doc, kBoostClock))
    throw Error(fmt::format("{}: sm_count and boost_clock go together (the SM-cycle rate needs both); give both or "
                            "neither",
                            doc.where(std::string(has_key(doc, kSmCount) ? kSmCount.name : kBoostClock.name))));
  if (has_key(doc, kSmCount)) {
    g.sm_count = static_cast<int>(read_integer(doc, kSmCount));
    g.boost_clock = read_quantity(doc, kBoostClock);
  }
  if (has_key(doc, kL2Cache)) g.l2_cache = read_quantity(doc, kL2Cache);

  ConfigMap compute = doc.map("compute");
  read_compute(compute, g);
  if (g.peak_flops.empty()) throw Error(fmt::format("{}: no compute precisions given", doc.where("compute")));

  ConfigMap memory = doc.map("memory");
  g.memory_capacity = memory.quantity("capacity", kCapacity.dimension);
  g.memory_bandwidth = memory.quantity("bandwidth", kBandwidth.dimension);
  memory.finish();
  if (g.memory_capacity <= 0 || g.memory_bandwidth <= 0)
    throw Error(fmt::format("{}: capacity and bandwidth must be positive", doc.where("memory")));

  ConfigMap ic = doc.map("interconnect");
  g.intra_node = parse_link(ic.map("intra_node"), true);
  g.inter_node = parse_link(ic.map("inter_node"), false);
  g.host = parse_link(ic.map("host"), false);
  ic.finish();

  ConfigMap power = doc.map("power");
  g.tdp_watts = read_quantity(power, kTdp);
  g.idle_watts = quantity_in(power, "idle", kIdle.dimension, 0.1 * g.tdp_watts, RealRange{kIdle.min, g.tdp_watts},
                             kIdle.why);
  const ArchitecturePower& arch = architecture_power(g.architecture);
  g.active_watts = quantity_in(power, "active", kActive.dimension,
                               std::clamp(arch.active_share * g.tdp_watts, g.idle_watts, g.tdp_watts),
                               RealRange{g.idle_watts, g.tdp_watts}, kActive.why);
  g.power_compute_weight = power.has("compute_weight") ? read_number(power, kComputeWeight) : arch.compute_weight;
  g.power_memory_weight = power.has("memory_weight") ? read_number(power, kMemoryWeight) : arch.memory_weight;
  power.finish();

  ConfigMap cost = doc.map("cost");
  g.price_per_hour = read_quantity(cost, kOnDemand);
  cost.finish();

  ConfigMap eff = doc.map("efficiency");
  apply_efficiency_overrides(eff, g.efficiency);
  doc.allow({std::string(kCalibration.name)});  // provenance block written by `servesim calibrate`
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

std::vector<const KeySection*> gpu_file_key_sections() {
  static const KeySection top{"(gpu file)", "a GPU file (hardware/*.yaml, or any path given as hardware.gpu)", {}, {},
                              {&schema_version_key(), &kName, &kDisplayName, &kVendor, &kArchitecture, &kGpusPerNode,
                               &kSmCount, &kBoostClock, &kL2Cache,
                               &kCompute, &kMemory, &kInterconnect, &kPower, &kCost, &kEfficiency, &kCalibration}};
  static const KeySection compute = [] {
    KeySection s{"(gpu file).compute", "dense tensor peak per compute precision; absent ones are unsupported", {}, {}, {}};
    for (const Key& k : kPeaks) s.keys.push_back(&k);
    return s;
  }();
  static const KeySection memory{"(gpu file).memory", "device memory", {}, {}, {&kCapacity, &kBandwidth}};
  static const KeySection interconnect{"(gpu file).interconnect", "links of one GPU", {}, {},
                                       {&kIntraNode, &kInterNode, &kHost}};
  static const KeySection intra{"(gpu file).interconnect.intra_node", "GPU-GPU link inside a node (required)", {}, {},
                                {&kLinkKind, &kLinkBandwidthRequired, &kLinkLatency}};
  static const KeySection inter{"(gpu file).interconnect.inter_node", "network between nodes (optional)", {}, {},
                                {&kLinkKind, &kLinkBandwidthOptional, &kLinkLatency}};
  static const KeySection host{"(gpu file).interconnect.host", "GPU <-> CPU memory link (optional)", {}, {},
                               {&kLinkKind, &kLinkBandwidthOptional, &kLinkLatency}};
  static const KeySection power{"(gpu file).power", "board power", {}, {}, {&kTdp, &kIdle, &kActive, &kComputeWeight, &kMemoryWeight}};
  static const KeySection cost{"(gpu file).cost", "price", {}, {}, {&kOnDemand}};
  return {&top, &compute, &memory, &interconnect, &intra, &inter, &host, &power, &cost};
}

}  // namespace servesim
