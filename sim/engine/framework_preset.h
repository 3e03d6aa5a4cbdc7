#pragma once
// Serving frameworks as presets of the engine's CPU-side settings: what a step costs
// the host (scheduling, input preparation, output processing), whether kernels are
// replayed from CUDA graphs or launched one by one from Python, whether the next step
// is planned while this one runs, and the prefix cache's default. `engine.framework`
// selects one; any engine key written in the scenario overrides the preset's value.
//
// A preset describes the framework, not the GPU: the GPU profile (hardware/*.yaml,
// calibrated or not) and the preset compose, so a preset fitted on one GPU applies to
// any other. Each preset names its scheduling policy (`scheduler`, the default of
// engine.scheduler); what of its scheduler is still not modelled, `policy_note` says.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace servesim {

// How a framework runs beam search (workload.sampling.beam_width), each with its own
// model: inside the engine as sequence groups (engine/sequence_group.h), as a loop
// above the engine that sends one single-token request per beam per token
// (workload/beam_loop.h), or not at all (refused, with the preset's citation).
enum class BeamSearchImpl : std::uint8_t { in_engine, above_engine, unsupported };

struct FrameworkPreset {
  std::string_view name;  // "vllm-v1"
  std::string_view doc;   // one line: which versions and what sets them apart
  // CPU time per step the GPU waits on, and per running sequence per step (seconds).
  double step_cpu_overhead = 0;
  double per_seq_cpu_overhead = 0;
  // CPU time per token sampled in a step (sampler bookkeeping, detokenisation, stop
  // checks, streaming) and per prompt token scheduled in a step (input preparation that
  // scales with tokens), seconds; and the share of that per-token work that runs while
  // the GPU computes (async scheduling / overlap scheduler: 0 = none, the GPU waits on
  // all of it; 1 = it costs only what it outlasts the GPU step). The step and
  // per-sequence CPU time above always add (cost/step_wall_time.h, docs/host-cost.md).
  double per_token_cpu_overhead = 0;
  double prompt_token_cpu_overhead = 0;
  double host_overlap = 0;
  // Of step_cpu_overhead, the part that schedules and prepares the step's inputs: what vLLM
  // V0's multi-step scheduling (engine.num_scheduler_steps) runs once per N decode steps,
  // with per_seq_cpu_overhead (seconds; 0 where the preset does not split it).
  double schedule_cpu_overhead = 0;
  // CPU time to launch one kernel when the step is not replayed from a CUDA graph
  // (seconds; 0 = CUDA graphs). A step cannot end before its last kernel is launched,
  // so its GPU time is at least kernels x this (cost/step_wall_time.h).
  double kernel_launch_overhead = 0;
  // Per-hop latency of the GPUs' collectives when they are launched eagerly (not
  // captured in a CUDA graph): the host's launch and synchronisation of each NCCL call
  // sit on the critical path. Replaces the link's own latency when larger; 0 = the link's.
  double collective_latency = 0;
  // Client-visible latency outside the engine core per request (HTTP, tokenization,
  // hand-off to the engine process, detokenization, streaming): added to TTFT and E2E.
  double frontend_latency = 0;
  // The framework's own GEMM kernels against the catalog's: the GPU profile's
  // gemm_compute (a fraction of dense peak, measured on vLLM/cuBLAS kernels) is
  // multiplied by this ratio, so a preset fitted on one GPU carries to any other.
  // It moves compute-bound (prefill) GEMMs; weight-streaming decode GEMMs keep
  // gemm_memory. 1 = the catalog's kernels.
  double gemm_compute_ratio = 1;
  // The framework's decode-attention kernel against the catalog's: the GPU profile's
  // attention_memory (the fraction of HBM bandwidth at which decode attention reads the
  // KV cache, set for vLLM's paged-attention kernels) is multiplied by this ratio. It
  // moves memory-bound attention time (the KV reads of decode steps); 1 = the catalog's.
  double attention_memory_ratio = 1;
  // Host time per transformer layer of a step that prefills at least one prompt
  // (a sequence with more than one new token), on top of step_cpu_overhead: the
  // per-layer set-up of a framework's prefill path (seconds per layer; 0 = none).
  double prefill_layer_overhead = 0;
  bool async_scheduling = false;  // plans step N+1 while step N runs
  bool prefix_caching = false;    // the framework's default for its prefix cache
  // Whether its KV cache manager frees the blocks a local-attention layer (sliding
  // window, chunked attention) no longer reads, so that those layers' KV stops
  // growing past the span (engine.free_window_kv; false: every layer keeps the
  // whole context's KV, an upper bound). window_kv_source cites why.
  bool free_window_kv = false;
  std::string_view window_kv_source;
  std::string_view source;        // where the numbers come from (citations, fits and their held-out error)
  // Its scheduling policy, an engine.scheduler value (engine/scheduling_policy.h):
  // vllm_v1, vllm_v0_prefill_first, trtllm_no_evict (trtllm_max_utilization is a choice, no preset's default).
  std::string_view scheduler = "vllm_v1";
  std::string_view policy_note;   // what of its scheduler servesim does not model yet ("" = nothing);
                                  // `list frameworks` prints it after "not modelled:"
  // Its beam search (the default of engine.beam_search) and the public source that says so.
  BeamSearchImpl beam_search = BeamSearchImpl::in_engine;
  std::string_view beam_search_source;
  // Local runtimes (engine/local_runtime.h): "llama.cpp" (ggml kernels, GGUF weights, slots;
  // Ollama too), "transformers" (generate() on static batches); "" for the serving engines.
  std::string_view runtime = "";
  // model.weights when the scenario gives none ("" = the model's native precision): the GGUF
  // type a user of this runtime most often runs.
  std::string_view default_weights = "";
};

// Every preset, the default (vllm-v1) first.
const std::vector<FrameworkPreset>& framework_presets();
// The preset named `name`; nullptr when there is none.
const FrameworkPreset* find_framework_preset(std::string_view name);
// The default preset (vllm-v1): EngineConfig's defaults are its values.
const FrameworkPreset& default_framework_preset();

}  // namespace servesim
