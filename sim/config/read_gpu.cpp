// Reading a GPU file (hardware/*.yaml): the keys, each declared once, and the reader
// that fills GpuSpec through them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
// The family's names, kept alive for the declaration's string_views.
std::vector<std::string_view> family_choices() {
  static const std::vector<std::string> names = device_family_names();
  return {names.begin(), names.end()};
}
const Key kFamily{.name = "family", .type = KeyType::choice,
                  .doc = "what kind of device: gpu (its own memory, or a CUDA system-on-chip), apple_gpu (Apple "
                         "silicon GPU on unified memory: Metal back end) or cpu (a CPU socket running the model on "
                         "its cores: compute peaks derived from the cpu: section)",
                  .spec = "GpuSpec::family", .default_text = "gpu", .choices = family_choices()};
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
                   .doc = "dense tensor-core peak per compute precision (no 2:4 sparsity); at least one (family cpu: "
                          "derived from cpu:, not given)"};
const Key kCpu{.name = "cpu", .type = KeyType::section,
               .doc = "family cpu only: cores, clock, operations per cycle of the vector and matrix units, DDR "
                      "channels and NUMA nodes, from which the compute peaks are derived"};
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
// At most 1 PB/s: HBM3e on B200 is 8 TB/s; past 1 PB/s a typo ("1e30 TB/s") makes every
// memory-bound step free.
const Key kBandwidth{.name = "bandwidth", .type = KeyType::quantity, .doc = "peak memory bandwidth; must be positive",
                     .spec = "GpuSpec::memory_bandwidth", .dimension = Dimension::bandwidth, .required = true,
                     .min = 1, .max = 1e15, .why = "no memory comes near it"};
const Key kUsableFraction{
    .name = "usable_fraction", .type = KeyType::quantity,
    .doc = "share of the capacity a model process can hold: on unified memory what the OS lets the GPU wire "
           "(macOS recommendedMaxWorkingSetSize) or leaves beside itself; the memory planner sizes from "
           "capacity x this",
    .spec = "GpuSpec::usable_memory_fraction", .dimension = Dimension::fraction, .default_number = 1.0,
    .default_note = "1 (a GPU's own memory)", .min = 0.01, .max = 1.0, .why = "a share of the memory, above 0"};

// --- (gpu file).cpu (family cpu) ---
const Key kSockets{.name = "sockets", .type = KeyType::integer,
                   .doc = "sockets of the machine described; peaks and bandwidth are the sockets' sum",
                   .spec = "CpuSpec::sockets", .unit = "sockets", .default_number = 1, .min = 1, .max = 16,
                   .why = "sockets of one machine"};
const Key kCores{.name = "cores", .type = KeyType::integer, .doc = "physical cores per socket",
                 .spec = "CpuSpec::cores", .unit = "cores", .required = true, .min = 1, .max = 4096,
                 .why = "cores of one socket"};
const Key kAllCoreClock{.name = "all_core_clock", .type = KeyType::quantity,
                        .doc = "clock the cores sustain when all are busy (the vendor's all-core boost)",
                        .spec = "CpuSpec::all_core_clock", .dimension = Dimension::frequency, .required = true,
                        .min = 1e8, .max = 1e10, .why = "a core clock between 100 MHz and 10 GHz"};
#define SERVESIM_PER_CYCLE_KEY(NAME, SPEC, DOC, REQUIRED)                                                 \
  Key {                                                                                                  \
    .name = NAME, .type = KeyType::number, .doc = DOC, .spec = SPEC, .unit = "per core per cycle",       \
    .required = REQUIRED, .default_number = 0, .default_note = REQUIRED ? "" : "0: none", .min = 0,      \
    .max = 1e5, .why = "operations per core per cycle"                                                   \
  }
const Key kFp32PerCycle = SERVESIM_PER_CYCLE_KEY(
    "fp32_flop_per_cycle", "CpuSpec::fp32_flop_per_cycle",
    "FP32 FLOP per core per cycle of the vector units (FMA = 2): AVX-512 with two 512-bit FMA ports 64", true);
const Key kBf16PerCycle = SERVESIM_PER_CYCLE_KEY("bf16_flop_per_cycle", "CpuSpec::bf16_flop_per_cycle",
                                                 "bf16 dot-product FLOP per core per cycle (AVX512-BF16)", false);
const Key kFp16PerCycle = SERVESIM_PER_CYCLE_KEY("fp16_flop_per_cycle", "CpuSpec::fp16_flop_per_cycle",
                                                 "fp16 FLOP per core per cycle (AVX512-FP16); without, fp16 "
                                                 "weights are multiplied at the FP32 rate",
                                                 false);
const Key kInt8PerCycle = SERVESIM_PER_CYCLE_KEY("int8_op_per_cycle", "CpuSpec::int8_op_per_cycle",
                                                 "int8 dot-product operations per core per cycle (AVX-512 VNNI)",
                                                 false);
const Key kAmxBf16PerCycle = SERVESIM_PER_CYCLE_KEY("amx_bf16_flop_per_cycle", "CpuSpec::amx_bf16_flop_per_cycle",
                                                    "bf16 FLOP per core per cycle of the AMX tile unit", false);
const Key kAmxInt8PerCycle = SERVESIM_PER_CYCLE_KEY("amx_int8_op_per_cycle", "CpuSpec::amx_int8_op_per_cycle",
                                                    "int8 operations per core per cycle of the AMX tile unit", false);
#undef SERVESIM_PER_CYCLE_KEY
const Key kMemoryChannels{.name = "memory_channels", .type = KeyType::integer,
                          .doc = "DDR channels per socket; with memory_transfer_rate they must give "
                                 "memory.bandwidth (channels x MT/s x 8 bytes x sockets)",
                          .spec = "CpuSpec::memory_channels", .unit = "channels", .required = true, .min = 1,
                          .max = 64, .why = "DDR channels of one socket"};
const Key kMemoryTransferRate{.name = "memory_transfer_rate", .type = KeyType::number,
                              .doc = "DDR transfers per second per channel, in MT/s (DDR5-4800: 4800)",
                              .spec = "CpuSpec::memory_transfer_rate", .unit = "MT/s", .required = true,
                              .min = 100, .max = 100000, .why = "a DDR transfer rate in MT/s"};
const Key kNumaNodes{.name = "numa_nodes", .type = KeyType::integer,
                     .doc = "NUMA nodes per socket (AMD NPS1/2/4, Intel sub-NUMA clustering)",
                     .spec = "CpuSpec::numa_nodes", .unit = "nodes", .default_number = 1, .min = 1, .max = 16,
                     .why = "NUMA nodes of one socket"};

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

// A CPU file's compute peaks, from its cores: sockets x cores x all-core clock x operations
// per core per cycle. fp16 weights without AVX512-FP16 are converted and multiplied at the
// FP32 rate (ggml's CPU back end), so fp16 is always present; bf16 and int8 take the
// faster of the vector and matrix (AMX) units.
void read_cpu(ConfigMap& cpu, GpuSpec& g) {
  CpuSpec& c = g.cpu;
  c.sockets = static_cast<int>(read_integer(cpu, kSockets));
  c.cores = static_cast<int>(read_integer(cpu, kCores));
  c.all_core_clock = read_quantity(cpu, kAllCoreClock);
  c.fp32_flop_per_cycle = read_number(cpu, kFp32PerCycle);
  c.bf16_flop_per_cycle = read_number(cpu, kBf16PerCycle);
  c.fp16_flop_per_cycle = read_number(cpu, kFp16PerCycle);
  c.int8_op_per_cycle = read_number(cpu, kInt8PerCycle);
  c.amx_bf16_flop_per_cycle = read_number(cpu, kAmxBf16PerCycle);
  c.amx_int8_op_per_cycle = read_number(cpu, kAmxInt8PerCycle);
  c.memory_channels = static_cast<int>(read_integer(cpu, kMemoryChannels));
  c.memory_transfer_rate = read_number(cpu, kMemoryTransferRate) * 1e6;
  c.numa_nodes = static_cast<int>(read_integer(cpu, kNumaNodes));
  cpu.finish();
  if (c.fp32_flop_per_cycle <= 0)
    throw Error(fmt::format("{}: must be positive", cpu.where(std::string(kFp32PerCycle.name))));
  const double per_cycle = c.sockets * c.cores * c.all_core_clock;
  g.peak_flops[DType::fp32] = per_cycle * c.fp32_flop_per_cycle;
  g.peak_flops[DType::fp16] = per_cycle * std::max(c.fp32_flop_per_cycle, c.fp16_flop_per_cycle);
  const double bf16 = std::max(c.bf16_flop_per_cycle, c.amx_bf16_flop_per_cycle);
  if (bf16 > 0) g.peak_flops[DType::bf16] = per_cycle * bf16;
  const double int8 = std::max(c.int8_op_per_cycle, c.amx_int8_op_per_cycle);
  if (int8 > 0) g.peak_flops[DType::int8] = per_cycle * int8;
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
  if (has_key(doc, kFamily)) g.family = parse_device_family(read_choice(doc, kFamily), doc.where("family"));
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

  if (g.family == DeviceFamily::cpu) {
    if (doc.has("compute"))
      throw Error(fmt::format("{}: a family cpu file derives its peaks from cpu: (cores x clock x operations per "
                              "cycle); remove compute:",
                              doc.where("compute")));
    if (!doc.has("cpu"))
      throw Error(fmt::format("{}: a family cpu file needs a cpu: section (cores, all_core_clock, "
                              "fp32_flop_per_cycle, memory_channels, memory_transfer_rate)",
                              doc.where()));
    ConfigMap cpu = doc.map("cpu");
    read_cpu(cpu, g);
  } else {
    if (doc.has("cpu"))
      throw Error(fmt::format("{}: only a family cpu file has a cpu: section (this file's family is {})",
                              doc.where("cpu"), device_family_name(g.family)));
    ConfigMap compute = doc.map("compute");
    read_compute(compute, g);
    if (g.peak_flops.empty()) throw Error(fmt::format("{}: no compute precisions given", doc.where("compute")));
  }

  ConfigMap memory = doc.map("memory");
  g.memory_capacity = memory.quantity("capacity", kCapacity.dimension);
  g.memory_bandwidth = quantity_in(memory, "bandwidth", kBandwidth.dimension, range_of(kBandwidth));
  g.usable_memory_fraction = read_quantity(memory, kUsableFraction);
  memory.finish();
  if (g.memory_capacity <= 0 || g.memory_bandwidth <= 0)
    throw Error(fmt::format("{}: capacity and bandwidth must be positive", doc.where("memory")));
  if (g.family == DeviceFamily::cpu) {
    // The channels must account for the bandwidth the file states (within 1%: vendors round).
    const double channels = g.cpu.sockets * g.cpu.socket_bandwidth();
    if (std::abs(channels - g.memory_bandwidth) > 0.01 * g.memory_bandwidth)
      throw Error(fmt::format("{}: {} sockets x {} channels x {} MT/s x 8 bytes = {:.1f} GB/s, but memory.bandwidth "
                              "is {:.1f} GB/s; make them agree",
                              doc.where("cpu"), g.cpu.sockets, g.cpu.memory_channels, g.cpu.memory_transfer_rate / 1e6,
                              channels / 1e9, g.memory_bandwidth / 1e9));
  }

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
                              {&schema_version_key(), &kName, &kDisplayName, &kVendor, &kArchitecture, &kFamily, &kGpusPerNode,
                               &kSmCount, &kBoostClock, &kL2Cache,
                               &kCompute, &kCpu, &kMemory, &kInterconnect, &kPower, &kCost, &kEfficiency, &kCalibration}};
  static const KeySection compute = [] {
    KeySection s{"(gpu file).compute", "dense tensor peak per compute precision; absent ones are unsupported", {}, {}, {}};
    for (const Key& k : kPeaks) s.keys.push_back(&k);
    return s;
  }();
  static const KeySection cpu{"(gpu file).cpu", "a CPU socket's cores and memory channels (family cpu)", {}, {},
                              {&kSockets, &kCores, &kAllCoreClock, &kFp32PerCycle, &kBf16PerCycle, &kFp16PerCycle,
                               &kInt8PerCycle, &kAmxBf16PerCycle, &kAmxInt8PerCycle, &kMemoryChannels,
                               &kMemoryTransferRate, &kNumaNodes}};
  static const KeySection memory{"(gpu file).memory", "device memory", {}, {},
                                 {&kCapacity, &kBandwidth, &kUsableFraction}};
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
  return {&top, &compute, &cpu, &memory, &interconnect, &intra, &inter, &host, &power, &cost};
}

}  // namespace servesim
