#pragma once
// Multi-LoRA serving, the engine's side (`engine.lora`, read by config/read_lora.cpp):
// vLLM's --enable-lora with --max-loras, --max-cpu-loras and --max-lora-rank
// (vllm/config/lora.py LoRAConfig: max_loras 1, max_cpu_loras = max_loras, max_lora_rank
// 16 by default), and where adapters are loaded from. engine/lora_slots.h models what
// the engine does with them.
#include <cstdint>

namespace servesim {

struct LoraEngineSpec {
  bool enabled = false;            // engine.lora is set (vLLM --enable-lora)
  std::int64_t max_loras = 1;      // distinct adapters in one batch = the GPU's adapter slots
  std::int64_t max_cpu_loras = 0;  // adapters the host-memory LRU cache holds; 0 = max_loras
  std::int64_t max_lora_rank = 16;  // every GPU slot's rank (adapters of lower rank are padded to it)
  double load_bandwidth = 0;       // bytes/s of a host -> GPU adapter copy per GPU; 0 = the GPU's host link
  // bytes/s of reading an adapter from disk into host memory. Default: one data-centre
  // PCIe 4.0 NVMe drive's sequential read, Samsung PM9A3 U.2 at 6,500 MB/s (Samsung's
  // specification as reported by ComputerBase, 2020-05,
  // https://www.computerbase.de/2020-05/samsung-pm9a3-e1.s-pcie-4.0-ssd/).
  double disk_bandwidth = 6.5e9;
  std::int64_t cpu_loras() const { return max_cpu_loras > 0 ? max_cpu_loras : max_loras; }
};

}  // namespace servesim
