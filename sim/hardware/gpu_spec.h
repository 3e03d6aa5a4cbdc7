#pragma once
// Immutable description of one GPU, read once from hardware/*.yaml.
// Units: FLOP/s, bytes, bytes/s, seconds, watts, USD per hour.
#include <map>
#include <optional>
#include <string>

#include "hardware/device_family.h"
#include "hardware/efficiency.h"
#include "model/dtype.h"

namespace servesim {

struct Link {
  std::string kind;        // "nvlink4", "pcie5", "xgmi", "infiniband", ...
  double bandwidth = 0.0;  // bytes/s, per GPU, per direction
  double latency = 0.0;    // seconds, one message
};

struct GpuSpec {
  std::string name;          // catalog name, e.g. "h100-sxm"
  std::string display_name;  // "NVIDIA H100 SXM5 80GB"
  std::string vendor;
  std::string architecture;
  std::string source_file;   // YAML it came from (for messages)
  // What kind of device (hardware/device_family.h): a GPU (default), an Apple silicon GPU
  // on unified memory, or a CPU socket (then `cpu` holds what its peaks come from).
  DeviceFamily family = DeviceFamily::gpu;
  CpuSpec cpu;

  std::map<DType, double> peak_flops;  // dense tensor peak per compute precision (no 2:4 sparsity)
  double memory_capacity = 0.0;        // bytes of HBM/GDDR
  double memory_bandwidth = 0.0;       // bytes/s
  // Share of memory_capacity a model process can hold: 1 for a GPU's own memory; on
  // unified memory what the OS lets the GPU wire (macOS recommendedMaxWorkingSetSize)
  // or leaves to a process beside itself and the page cache.
  double usable_memory_fraction = 1.0;
  Link intra_node;                     // NVLink / xGMI / PCIe between GPUs of one node
  Link inter_node;                     // network between nodes
  Link host;                           // GPU <-> CPU memory (PCIe or C2C), used by KV offload
  int gpus_per_node = 8;
  // Streaming multiprocessors (NVIDIA SMs; 0: not given) and their boost clock (Hz; 0:
  // not given). With both, elementwise kernels are capped at
  // efficiency.elementwise_bytes_per_sm_cycle x sm_count x boost_clock; without, they are
  // bound by memory bandwidth alone.
  int sm_count = 0;
  double boost_clock = 0.0;
  // Last-level (L2) cache, bytes (0: not given). With it, the per-kind elementwise form
  // times a kernel whose bytes fit in it at <kind>_l2_bytes_per_sm_cycle (efficiency.h).
  double l2_cache = 0.0;

  double tdp_watts = 0.0;
  double idle_watts = 0.0;
  // Load-following board power (hardware/power_model.h): the share of the active-to-TDP
  // span drawn per unit of compute and of memory-bandwidth utilisation, and the floor while
  // stepping; the GPU file's values or its architecture's (architecture_power()).
  double power_compute_weight = 1.8;
  double power_memory_weight = 0.6;
  double active_watts = 0.0;  // power while a step runs at zero utilisation; 0: idle_watts
  double price_per_hour = 0.0;  // USD per GPU-hour, an assumption (see YAML)

  Efficiency efficiency;

  // SM-cycles per second over the whole GPU; 0 when sm_count or boost_clock is not given.
  double sm_cycles_per_second() const { return sm_count > 0 && boost_clock > 0 ? sm_count * boost_clock : 0.0; }
  double usable_memory() const { return memory_capacity * usable_memory_fraction; }
  bool supports(DType compute) const { return peak_flops.count(compute) > 0; }
  // Peak for a compute precision; throws naming the supported ones if absent.
  double peak(DType compute) const;
};

}  // namespace servesim
