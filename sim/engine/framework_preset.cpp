#include "engine/framework_preset.h"

namespace servesim {

// Numbers without a fit are the public figures cited in `source`; the fitted ones
// name their data, the parameters fitted (CPU-side only: the GPU's efficiency stays
// the catalog's) and the held-out error (docs/validation.md, "Framework presets").
const std::vector<FrameworkPreset>& framework_presets() {
  static const std::vector<FrameworkPreset> presets = {
      {.name = "vllm-v1",
       .doc = "vLLM V1 engine (v0.8+): CUDA graphs, chunked prefill, async scheduling",
       .step_cpu_overhead = 0.5e-3,
       .per_seq_cpu_overhead = 5e-6,
       .kernel_launch_overhead = 0,
       .async_scheduling = true,
       .prefix_caching = false,
       .source = "servesim's defaults, matched to the vLLM v0.15.1 runs of data/serving (docs/validation.md); "
                 "vLLM V1 enables prefix caching by default, servesim leaves it off unless set",
       .policy_note = ""},
      {.name = "vllm-v0",
       .doc = "vLLM V0 engine (v0.3-v0.7): CUDA graphs for decode, synchronous scheduling in Python",
       // Vidur's cpu_overheads.csv (vLLM on A100): schedule 0.2-0.3 ms, prepare inputs ~0.8 ms,
       // process outputs 0.2-0.4 ms a step, all on the critical path without async output processing.
       .step_cpu_overhead = 1.3e-3,
       .per_seq_cpu_overhead = 10e-6,
       .kernel_launch_overhead = 0,
       .async_scheduling = false,
       .prefix_caching = false,
       .source = "Vidur data/profiling cpu_overheads (vLLM V0 on A100): schedule + prepare inputs + process outputs",
       .scheduler = "vllm_v0_prefill_first",
       .policy_note = "chunked prefill (V0 enabled it by default only for contexts over 32k tokens; servesim's "
                      "vllm_v0_prefill_first runs whole prompts), swap-out preemption (recompute is modelled)"},
      {.name = "vllm-2023-eager",
       .doc = "vLLM before CUDA graphs (v0.1-v0.2.5, 2023): every kernel launched from Python, TP workers via Ray",
       .step_cpu_overhead = 2e-3,
       .per_seq_cpu_overhead = 20e-6,
       .kernel_launch_overhead = 10e-6,
       .async_scheduling = false,
       .prefix_caching = false,
       .source = "CUDA graphs came with vLLM PR #1926 (Dec 2023); the launch and CPU figures are assumptions "
                 "(eager PyTorch: microseconds of Python and driver time per op) until fitted",
       .scheduler = "vllm_v0_prefill_first",
       .policy_note = "the 2023 scheduler's swap-out preemption (recompute is modelled)"},
      {.name = "sglang",
       .doc = "SGLang (v0.4+): overlap (zero-overhead) scheduler, CUDA graphs, RadixAttention prefix cache on",
       .step_cpu_overhead = 0.2e-3,
       .per_seq_cpu_overhead = 2e-6,
       .kernel_launch_overhead = 0,
       .async_scheduling = true,
       .prefix_caching = true,
       .source = "SGLang v0.4 release blog (lmsys.org, 2024-12-04): the CPU scheduler overlaps the GPU step; "
                 "RadixAttention on by default",
       .policy_note = "the radix tree's cache-aware scheduling order (servesim serves first come, first served); "
                      "admission by estimated future tokens (new_token_ratio) with retraction of decodes when memory "
                      "runs out (servesim: vllm_v1's admission and preemption)"},
      {.name = "trtllm",
       .doc = "TensorRT-LLM (C++ executor, in-flight batching): kernels launched from C++",
       .step_cpu_overhead = 0.2e-3,
       .per_seq_cpu_overhead = 2e-6,
       .kernel_launch_overhead = 0,
       .async_scheduling = false,
       .prefix_caching = false,
       .source = "assumption until fitted: a C++ runtime spends a fraction of a Python engine's host time per "
                 "step; KV cache reuse is off by default (TensorRT-LLM KvCacheConfig.enable_block_reuse)",
       .scheduler = "trtllm_no_evict",
       .policy_note = "admission reserves the request's actual output length, where TensorRT-LLM reserves its "
                      "max_new_tokens"},
      {.name = "lmdeploy-turbomind",
       .doc = "LMDeploy TurboMind (C++ engine, persistent batch)",
       .step_cpu_overhead = 0.2e-3,
       .per_seq_cpu_overhead = 2e-6,
       .kernel_launch_overhead = 0,
       .async_scheduling = false,
       .prefix_caching = false,
       .source = "assumption until fitted: a C++ engine (TurboMind) spends a fraction of a Python engine's host "
                 "time per step",
       .policy_note = ""},
  };
  return presets;
}

const FrameworkPreset* find_framework_preset(std::string_view name) {
  for (const auto& p : framework_presets())
    if (p.name == name) return &p;
  return nullptr;
}

const FrameworkPreset& default_framework_preset() { return framework_presets().front(); }

}  // namespace servesim
