#pragma once
// The settings of the local runtimes, as their users write them: llama.cpp's server
// (llama-server; Ollama runs it with its own defaults) and Hugging Face Transformers'
// generate(). config/read_local_engine.cpp reads them (engine.llama_cpp,
// engine.transformers) and maps them onto the engine servesim runs:
//   llama.cpp: continuous batching over `parallel` slots, prompts in ubatches of
//     `ubatch_size` tokens mixed with the slots' decodes (the vllm engine, chunked prefill,
//     token budget = ubatch), KV for `ctx_size` tokens allocated up front (per slot
//     ctx_size / parallel unless the cache is unified), flash attention on or off, the
//     first `n_gpu_layers` layers on the device and the rest on the host's CPU.
//   Transformers: generate() on a static batch of `batch_size` requests, prompts padded
//     to the longest, every sequence decoding until the longest is done and all of them
//     returned together; eager or SDPA attention; eager PyTorch launches every kernel from
//     Python unless a static cache and torch.compile replay CUDA graphs.
#include <cstdint>
#include <optional>
#include <string>

namespace servesim {

// Overrides of the ggml back end's kernel parameters (cost/ggml_kernels.h), for calibrating
// a device of one's own (engine.llama_cpp.kernels); unset: the back end's fitted value.
struct GgmlKernelOverrides {
  std::optional<double> matvec_memory, matvec_alu_per_weight, mmq_flops_per_sm_cycle, gemm_compute, dequant_compute,
      kernel_time;
};

struct LlamaCppConfig {
  std::int64_t parallel = 1;        // slots: requests decoded together (llama-server -np)
  std::int64_t ctx_size = 4096;     // KV cache tokens of all slots together (-c)
  bool kv_unified = false;          // one KV pool for all slots (--kv-unified); else ctx_size / parallel each
  bool flash_attention = true;      // -fa (on: fused attention kernel; off: KQ, softmax and KQV as separate ops)
  std::int64_t ubatch_size = 512;   // tokens per forward pass (-ub)
  std::int64_t batch_size = 2048;   // tokens per llama_decode call (-b), split into ubatches
  std::int64_t n_gpu_layers = -1;   // layers on the device (-ngl); -1: all
  GgmlKernelOverrides kernels;
};

struct TransformersConfig {
  std::int64_t batch_size = 1;      // requests per generate() call
  bool sdpa = true;                 // attn_implementation "sdpa" (fused) or "eager" (materialised scores)
  bool static_cache = false;        // cache_implementation "static"
  bool torch_compile = false;       // torch.compile of the forward (with a static cache: CUDA graphs)
};

}  // namespace servesim
