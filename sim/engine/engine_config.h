#pragma once
// Serving-engine settings from a scenario's `engine:` mapping.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cost/memory_plan.h"
#include "cost/step_cost.h"
#include "cost/step_wall_time.h"
#include "engine/framework_preset.h"
#include "engine/kv_tier_spec.h"
#include "engine/local_runtime.h"
#include "engine/lora_spec.h"
#include "engine/speculative.h"

namespace servesim {

// The settings the memory planner also uses (utilization, block size, step budget,
// sequences, runtime overhead) take their defaults from MemoryConfig, so each
// default is written once; sim/config/read_engine.cpp declares the keys with them.
struct EngineConfig {
  std::string kind = "vllm";  // "vllm" (continuous batching) or "static"
  // The serving framework whose CPU-side defaults apply (engine/framework_preset.h);
  // the defaults below are vllm-v1's.
  std::string framework = "vllm-v1";
  // The scheduling policy of the continuous-batching engine (scheduling_policy.h):
  // vllm_v1, vllm_v0_prefill_first, trtllm_no_evict or trtllm_max_utilization;
  // the framework's when the scenario does not set it.
  std::string scheduler = "vllm_v1";
  // The waiting queue's order (vLLM --scheduling-policy): false, first come first served;
  // true ("priority"), by request class priority, then arrival (workload.classes).
  bool priority_queue = false;
  // How beam search runs (workload.sampling.beam_width): inside the engine as sequence
  // groups, or as a loop above it (workload/beam_loop.h); the framework's when not set.
  BeamSearchImpl beam_search = BeamSearchImpl::above_engine;
  std::int64_t max_num_seqs = MemoryConfig{}.max_num_seqs;
  std::int64_t max_num_batched_tokens = MemoryConfig{}.max_num_batched_tokens;  // token budget per step
  int block_size = MemoryConfig{}.block_size;
  double gpu_memory_utilization = MemoryConfig{}.gpu_memory_utilization;
  bool prefix_caching = false;
  // Local-attention layers' KV blocks freed past their span (vLLM V1's hybrid KV
  // cache manager); the framework's default (framework_preset.h).
  bool free_window_kv = true;
  bool chunked_prefill = true;
  std::int64_t max_model_len = 0;          // 0 = the model's max_context
  std::int64_t num_gpu_blocks_override = 0;  // vLLM's override of the planner's block count
  double runtime_overhead_bytes = MemoryConfig{}.runtime_overhead_bytes;
  AttentionKernel attention = AttentionKernel::flash;
  // CPU-side time per engine step that the GPU waits on (scheduling, input
  // preparation, detokenization, output processing). vLLM v0 measured 1-2 ms a
  // step on A100 (Vidur cpu_overheads.csv: schedule 0.2-0.3 ms, prepare inputs
  // ~0.8 ms, process outputs 0.2-0.4 ms); v1 overlaps much of it.
  double step_cpu_overhead = 0.5e-3;         // seconds per step
  double per_seq_cpu_overhead = 5e-6;        // seconds per running sequence per step
  // Host work that grows with the step's tokens (cost/step_wall_time.h): per sampled
  // token (sampling, detokenisation, streaming) and per scheduled prompt token (input
  // preparation), and the share of all the step's host work that runs under the GPU
  // step (async scheduling). The defaults are vllm-v1's (engine/framework_preset.cpp).
  double per_token_cpu_overhead = 28e-6;     // seconds per sampled token
  double prompt_token_cpu_overhead = 0;      // seconds per scheduled prompt token
  double host_overlap = 1;                   // share in [0, 1]
  // vLLM V0's multi-step scheduling (--num-scheduler-steps N; cost/step_wall_time.h
  // CpuOverheads::schedule_every): decode steps schedule and prepare inputs once per N.
  // schedule_cpu_overhead is the part of step_cpu_overhead that does so (the framework's).
  int num_scheduler_steps = 1;
  double schedule_cpu_overhead = 0;
  // CPU time to launch one kernel when steps are not replayed from CUDA graphs
  // (0 = CUDA graphs), and what it makes of a step: the kernels of one step (one
  // pipeline stage) times it, computed from the cost model when the scenario is
  // resolved (config/read_setup.cpp). A step's GPU time is at least this floor.
  double kernel_launch_overhead = 0;
  double launch_floor = 0;
  // Per-hop latency of eagerly launched collectives (seconds; 0 = the link's own):
  // when larger than the GPU link's latency it replaces it in the cost model
  // (config/read_setup.cpp), as NCCL calls outside CUDA graphs pay the host's launch.
  double collective_latency = 0;
  // Client-visible latency outside the engine core per request (HTTP, tokenization,
  // detokenization and streaming in the API server): added to TTFT and E2E. The
  // default is vllm-v1's (engine/framework_preset.cpp, where its fit is described).
  double frontend_latency = 8.4e-3;
  // The framework's GEMM kernels against the catalog's (engine/framework_preset.h):
  // read_setup.cpp multiplies the GPU's gemm_compute by it; 1 = the catalog's.
  double gemm_compute_ratio = 1;
  // The framework's decode-attention kernel against the catalog's paged attention
  // (engine/framework_preset.h): read_setup.cpp multiplies the GPU's attention_memory
  // (the fraction of HBM bandwidth at which KV is read) by it; 1 = the catalog's.
  double attention_memory_ratio = 1;
  // Host time per layer of a step that prefills (framework_preset.h), and what it
  // makes of such a step: the layers of one pipeline stage times it, resolved in
  // config/read_setup.cpp.
  double prefill_layer_overhead = 0;
  double prefill_step_overhead = 0;
  // vLLM's async scheduling plans step N+1 while step N runs, so a request that
  // arrives during step N is first seen when step N+1 is planned and first runs in
  // step N+2: one step of extra queueing whenever the engine is busy. On by default:
  // the measured vLLM v0.15.1 runs in data/serving are matched only with it (median
  // TTFT error 49% without, 18% with, before any calibration).
  bool async_scheduling = true;
  // CPU KV offload tier (0 = off): bytes of host memory per replica for evicted
  // prefix blocks and swapped-out requests, as vLLM's --kv-offloading-size (engine/cpu_tier.h).
  double cpu_offload_bytes = 0.0;
  // KV tiers behind the GPU prefix cache, fastest first (engine.kv_tiers, engine/kv_tiers.h);
  // empty: none. Exclusive with cpu_offload_bytes.
  std::vector<KvTierSpec> kv_tiers;
  // Simulator guard, not a vLLM setting: when the never-scheduled waiting requests
  // of all replicas hold more than this many bytes, the run stops admitting: they
  // and every later request fail with reason overload_guard, and the run reports
  // "overloaded". 0 = a quarter of this machine's physical memory (then the
  // results depend on the machine only if the guard trips, and the output says so).
  double max_queue_memory_bytes = 0.0;

  // A local runtime's own settings (engine/local_runtime.h), read from engine.llama_cpp /
  // engine.transformers; they set the engine keys above for that framework.
  LlamaCppConfig llama_cpp;
  TransformersConfig transformers;
  // The static engine as Transformers' generate() runs it: prompts padded to the batch's
  // longest (prefill and KV), and every request of a batch returned when the batch ends.
  bool pad_to_longest = false;
  bool release_at_batch_end = false;
  // The weight kernels of a ggml back end (llama.cpp, Ollama; cost/ggml_kernels.h), resolved
  // from the framework and the device family in config/read_setup.cpp; off for the others.
  GgmlKernels ggml;

  // Speculative decoding (engine/speculative.h); method "none" = off.
  SpeculativeConfig speculative;

  // Multi-LoRA serving (engine/lora_spec.h); enabled false = off.
  LoraEngineSpec lora;

  CpuOverheads cpu_overheads() const {
    return CpuOverheads{step_cpu_overhead,
                        per_seq_cpu_overhead,
                        launch_floor,
                        prefill_step_overhead,
                        per_token_cpu_overhead,
                        prompt_token_cpu_overhead,
                        host_overlap,
                        num_scheduler_steps,
                        std::min(schedule_cpu_overhead, step_cpu_overhead)};
  }

  MemoryConfig memory_config() const {
    MemoryConfig m;
    m.gpu_memory_utilization = gpu_memory_utilization;
    m.block_size = block_size;
    m.max_num_batched_tokens = max_num_batched_tokens;
    m.max_num_seqs = max_num_seqs;
    m.runtime_overhead_bytes = runtime_overhead_bytes;
    return m;
  }
};

}  // namespace servesim
