#pragma once
// What kind of device a hardware file describes, beyond its peaks and memory: a GPU
// with its own memory or a CUDA system-on-chip (family gpu, the default), an Apple
// silicon GPU sharing unified memory with the CPU (apple_gpu: no FP16 matrix rate above
// FP32 before M5, and only part of the unified memory can be wired for the GPU), or a
// CPU socket running the model on its cores (cpu: vector and matrix units per core,
// DDR channels, NUMA nodes). The family picks a local runtime's back end (llama.cpp:
// CUDA, Metal or CPU; cost/ggml_kernels.h) and what a CPU file's peaks are derived from.
// Units: Hz, FLOP (or integer operations) per cycle per core, transfers per second.
#include <string>
#include <vector>

namespace servesim {

enum class DeviceFamily { gpu, apple_gpu, cpu };

std::string device_family_name(DeviceFamily f);
std::vector<std::string> device_family_names();  // "gpu", "apple_gpu", "cpu"
// Throws naming the valid families; `where` prefixes the message.
DeviceFamily parse_device_family(const std::string& text, const std::string& where);

// One CPU socket's execution and memory resources (family cpu). The compute peaks of a
// CPU file are derived from these (config/read_gpu.cpp): peak = sockets x cores x
// all_core_clock x operations per cycle per core.
struct CpuSpec {
  int sockets = 1;               // sockets of the machine the file describes
  int cores = 0;                 // physical cores per socket
  double all_core_clock = 0;     // Hz, sustained with every core busy
  // Per core per cycle: vector units (AVX-512, AVX2, NEON, SVE)...
  double fp32_flop_per_cycle = 0;
  double bf16_flop_per_cycle = 0;  // bf16 dot products (AVX512-BF16); 0: none
  double fp16_flop_per_cycle = 0;  // fp16 arithmetic (AVX512-FP16); 0: none
  double int8_op_per_cycle = 0;    // int8 dot products (AVX-512 VNNI, AVX-VNNI); 0: none
  // ... and matrix units (Intel AMX tiles); 0: none.
  double amx_bf16_flop_per_cycle = 0;
  double amx_int8_op_per_cycle = 0;
  int memory_channels = 0;         // DDR channels per socket
  double memory_transfer_rate = 0; // transfers per second per channel (DDR5-4800: 4.8e9)
  int numa_nodes = 1;              // NUMA nodes per socket (AMD NPS1/2/4, Intel SNC)

  // Peak of the vector units for int8 dot products, and the larger of vector and matrix
  // (AMX) units: llama.cpp reaches AMX only for some weight types (cost/ggml_kernels.h).
  double vector_int8_ops() const { return sockets * cores * all_core_clock * int8_op_per_cycle; }
  double matrix_int8_ops() const { return sockets * cores * all_core_clock * amx_int8_op_per_cycle; }
  // Bytes per second of one socket's channels: channels x transfers/s x 8 bytes (64-bit DIMM channels).
  double socket_bandwidth() const { return memory_channels * memory_transfer_rate * 8.0; }
};

}  // namespace servesim
