#include "engine/framework_preset.h"

namespace servesim {

// Numbers without a fit are the public figures cited in `source`; the fitted ones
// name their data, the parameters fitted (CPU-side only: the GPU's efficiency stays
// the catalog's) and the held-out error (docs/validation.md, "Framework presets").
// Where vLLM V1 (both presets) runs beam search.
constexpr std::string_view kVllmV1BeamSearchSource =
    "vLLM V1 has no beam search in its engine: LLM.beam_search and the OpenAI server's use_beam_search run it as "
    "a loop above the engine (vllm/entrypoints/llm.py, EngineClient.beam_search), each token a request of "
    "max_tokens=1 and logprobs=2 x beam_width per beam; vLLM PR #8726 (v0.6.3) moved it there, RFC #6226 dropped "
    "it from the engine";

const std::vector<FrameworkPreset>& framework_presets() {
  static const std::vector<FrameworkPreset> presets = {
      {.name = "vllm-v1",
       .doc = "vLLM V1 engine with async scheduling on (its default from v0.14): CUDA graphs, chunked prefill; "
              "v0.8-v0.13 ran without it by default (vllm-v1-sync)",
       .step_cpu_overhead = 0.5e-3,
       .per_seq_cpu_overhead = 5e-6,
       // Per sampled token, overlapped with the GPU step (async scheduling plans step N+1
       // while step N runs; detokenisation and streaming run in the API-server process):
       // 28 us = the scheduler's 12.7 us per running request at its cap in a vLLM V1
       // engine-loop profile (vLLM 0.27.1; github openfabric-systems/simllm PR #204) plus
       // the 15.4 us per sequence of output processing that Vidur measured in vLLM V0
       // (shared operator_timings/historical/57720ca.../a100/cpu_overheads.csv,
       // process_model_outputs: 0.065 ms + 15.44 us x batch, A100 host, TP 1). Not fitted:
       // the v0.15.1 runs of data/serving (at most ~100 running sequences) hide it entirely
       // (their median errors do not move: docs/host-cost.md), and a fit there of the same
       // term *not* overlapped goes to ~1 us: what those runs show is that v0.15.1 hides its
       // per-token work, not how large it is. It shows where it outgrows the GPU step:
       // hundreds of sequences on a fast GPU or a small model.
       .per_token_cpu_overhead = 28e-6,
       .host_overlap = 1,
       .kernel_launch_overhead = 0,
       // Fitted (one parameter) on every other H100 run of data/serving (13 runs, with the
       // catalog's kernel-table gemm_memory): `servesim calibrate serving --gpu h100-sxm
       // --split alternate --params frontend_latency --max-evals 12 --time-scale 0.3` ->
       // 8.43 ms. Held-out median |TTFT error|: the other 13 H100 runs 22.8% -> 6.3%, the
       // A100 and L40S runs (never fitted) 29.7% -> 17.9% and 36.8% -> 31.4%; TPOT and
       // E2E unchanged within 0.5 points (docs/validation.md, "Every fit").
       .frontend_latency = 8.4e-3,
       .async_scheduling = true,
       .prefix_caching = false,
       .free_window_kv = true,
       .window_kv_source = "vLLM v0.10+ hybrid KV cache manager (vllm/v1/core/single_type_kv_cache_manager.py: "
                           "SlidingWindowManager and ChunkedLocalAttentionManager free the blocks outside the "
                           "window or current chunk); the preset is matched to v0.15.1",
       .source = "servesim's defaults, matched to the vLLM v0.15.1 runs of data/serving (docs/validation.md); "
                 "frontend latency 8.4 ms fitted on every other H100 run (held-out TTFT 6.3% on the other H100 "
                 "runs); "
                 "vLLM V1 enables prefix caching by default, servesim leaves it off unless set",
       .policy_note = "",
       .beam_search = BeamSearchImpl::above_engine,
       .beam_search_source = kVllmV1BeamSearchSource},
      {.name = "vllm-v1-sync",
       .doc = "vLLM V1 engine before async scheduling was its default (v0.8-v0.13): the host work of each step "
              "(scheduling, input preparation, sampler bookkeeping, output processing) runs between GPU steps",
       // The vllm-v1 preset's host terms, none of them refitted, with host_overlap 0: async scheduling
       // (the scheduler planning step N+1 while the GPU runs step N) was opt-in (`--async-scheduling`)
       // until vLLM made it the default (vllm-project/vllm PR #27614; "async scheduling is now enabled
       // by default in v0.14", deepjavalibrary/djl issue #3833, 2026-01-27; vLLM Q4 2025 roadmap "Async
       // Scheduling on by default"). Before that every step waits on its own host work.
       // Held out, nothing fitted: the 127 dense-model runs of the ML.ENERGY Benchmark v3 (vLLM
       // 0.11.1, H100 and B200, batch caps 8-1024; data/serving/mlenergy_v3_lm_arena.csv, replayed by
       // tools/fit/mlenergy_replay.py): median |ITL error| 26.4% -> 9.7% against vllm-v1, Llama-3.1-8B
       // on one H100 (batch 8-768) 26.4% -> 2.0% (docs/host-cost.md, docs/validation-report.md).
       .step_cpu_overhead = 0.5e-3,
       .per_seq_cpu_overhead = 5e-6,
       .per_token_cpu_overhead = 28e-6,
       .host_overlap = 0,
       .kernel_launch_overhead = 0,
       .frontend_latency = 8.4e-3,
       .async_scheduling = false,
       .prefix_caching = false,
       .free_window_kv = true,
       .window_kv_source = "vLLM v0.10+ hybrid KV cache manager (vllm/v1/core/single_type_kv_cache_manager.py: "
                           "SlidingWindowManager and ChunkedLocalAttentionManager free the blocks outside the "
                           "window or current chunk); v0.8-v0.9 kept every layer's blocks",
       .source = "vllm-v1's cited host terms (28 us per sampled token, 5 us per sequence, 0.5 ms per step) on the "
                 "critical path: async scheduling became vLLM's default only after v0.13 (vLLM PR #27614). Not "
                 "fitted; held out on the ML.ENERGY Benchmark v3 runs (vLLM 0.11.1, 127 runs, H100 and B200): "
                 "median |ITL error| 9.7% (vllm-v1: 26.4%)",
       .policy_note = "",
       .beam_search = BeamSearchImpl::above_engine,
       .beam_search_source = kVllmV1BeamSearchSource},
      {.name = "vllm-v0",
       .doc = "vLLM V0 engine (v0.3-v0.7): CUDA graphs for decode, synchronous scheduling in Python",
       // Fitted on Vidur's vLLM V0 host profile (shared operator_timings/historical/57720ca.../
       // a100/cpu_overheads.csv: medians of schedule, prepare_inputs_e2e, sampler_e2e and
       // process_model_outputs against the batch, 26 rows at TP 1, Llama-2-7B and phi-2, batch
       // 8-128; least squares, tools/fit/host_cost.py): schedule + prepare inputs 0.29 ms +
       // 21.3 us per sequence, sampler + process outputs 0.53 ms + 21.0 us per token, all on the
       // critical path (V0 synchronous; async output processing of v0.6+ not modelled). Own rows
       // 0.8%; held out: the TP 2-4 A100 rows 22% (they add Ray workers: 1.5-2.0 ms a step)
       // and the A40 node's TP 1 rows 34% (another host CPU: 63 us per sequence against 42):
       // host time is the host CPU's, which no GPU file describes.
       .step_cpu_overhead = 0.81e-3,
       .per_seq_cpu_overhead = 21.3e-6,
       .per_token_cpu_overhead = 21.0e-6,
       .host_overlap = 0,
       // The same fit's schedule + prepare-inputs intercept (the rest, 0.53 ms, is sampler and
       // output processing): what --num-scheduler-steps N runs once per N decode steps.
       .schedule_cpu_overhead = 0.287e-3,
       .kernel_launch_overhead = 0,
       .async_scheduling = false,
       .prefix_caching = false,
       .window_kv_source = "vLLM V0's block manager allocates every layer's blocks for the whole sequence; for "
                           "interleaved windows (Gemma 2) V0 warned that sliding window is not supported and capped "
                           "max_model_len to the window (vllm/config.py, v0.5)",
       .source = "fitted on Vidur's vLLM V0 host profile (A100 host, TP 1): 0.81 ms a step, 21.3 us per sequence "
                 "(schedule, prepare inputs), 21.0 us per sampled token (sampler, output processing), none overlapped; "
                 "held out on other hosts and TP 22-34% (docs/host-cost.md)",
       .scheduler = "vllm_v0_prefill_first",
       .policy_note = "chunked prefill (V0 enabled it by default only for contexts over 32k tokens; servesim's "
                      "vllm_v0_prefill_first runs whole prompts), swap-out preemption (recompute is modelled)",
       .beam_search = BeamSearchImpl::in_engine,
       .beam_search_source = "vLLM V0 up to v0.6.2 ran beam search inside the engine as sequence groups "
                             "(use_beam_search; the PagedAttention paper, sec. 4.4); v0.6.3-v0.7 ran it above the "
                             "engine (PR #8726): set engine.beam_search: above_engine for those"},
      {.name = "vllm-2023-eager",
       .doc = "vLLM before CUDA graphs (v0.1-v0.2.5, 2023): every kernel launched from Python, TP workers via Ray",
       // Fitted on the Splitwise A100 rows (data/static_batch/splitwise_a100.csv, Llama-2-70B
       // TP 2/4/8, every other row held out): step_cpu_overhead and collective_latency fitted,
       // the rest fixed. Held-out median |error|: decode step 37.9% -> 2.9%, prefill 17.6% ->
       // 4.8%, batch E2E 41.5% -> 8.0% (vllm-v1 defaults: 40.9 / 19.3 / 40.5% on all rows).
       // step_cpu_overhead went to 0 (its bound): these rows do not tell it apart from the
       // per-hop collective latency, which carries the eager cost (tens of us per NCCL call).
       .step_cpu_overhead = 0,
       .per_seq_cpu_overhead = 20e-6,
       // Launch cost per kernel from public eager-vs-graph measurements, not fitted here:
       // vLLM PR #1440 (Oct 2023, Llama-2-7B, TP 1, batch 1, 100 output tokens: 1.2 s eager vs
       // 1.05 s with CUDA graphs) gives a 12 ms eager step, about 330 launches of servesim's
       // Llama 7-8B step (kernels_per_step) -> 36 us each; DeepSpeed PR #8352 (GPT-2, batch 1,
       // H200: vLLM eager 154 ms vs 42 ms with graphs for 32 tokens) -> 4.8 ms a step over
       // ~170 launches -> 28 us. 35 us leaves the Splitwise held-out errors above unchanged
       // (identical for 10-40 us; 50 us raises decode held-out error to 6.3%, 60 us to 25.7%:
       // the data bound it from above). Python dispatch per module call, not the CUDA driver's
       // ~5 us, is what makes eager launches this slow.
       .kernel_launch_overhead = 35e-6,
       .collective_latency = 33.3e-6,
       .async_scheduling = false,
       .prefix_caching = false,
       .window_kv_source = "2023 vLLM: one block table for all layers, sized for the whole sequence",
       .source = "CUDA graphs came with vLLM PR #1926 (Dec 2023); collective_latency 33 us and step CPU 0 fitted "
                 "on Splitwise A100 (held-out decode step error 2.9%); kernel launch 35 us from vLLM PR #1440 (Llama-2-7B eager vs "
                 "CUDA graphs) and DeepSpeed PR #8352 (GPT-2 on H200), bounded above by Splitwise (<= 40 us); "
                 "per-sequence 20 us an assumption",
       .scheduler = "vllm_v0_prefill_first",
       .policy_note = "the 2023 scheduler's swap-out preemption (recompute is modelled)",
       .beam_search = BeamSearchImpl::in_engine,
       .beam_search_source = "vLLM v0.1-v0.2 ran beam search inside the engine as sequence groups (use_beam_search; "
                             "the PagedAttention paper, sec. 4.4)"},
      {.name = "sglang",
       .doc = "SGLang (v0.4+): overlap (zero-overhead) scheduler, CUDA graphs, RadixAttention prefix cache on",
       .step_cpu_overhead = 0.2e-3,
       .per_seq_cpu_overhead = 2e-6,
       // Per sampled token, all of it overlapped (the overlap scheduler runs batch N+1's
       // CPU work during batch N; SGLang v0.4 release blog, lmsys.org 2024-12-04). The size
       // is carried from vllm-v1 (28 us: a Python scheduler's bookkeeping per running request
       // and the output processing per token, which SGLang does in its tokenizer manager and
       // detokenizer processes); no SGLang measurement is in the data to fit it.
       .per_token_cpu_overhead = 28e-6,
       .host_overlap = 1,
       .kernel_launch_overhead = 0,
       // The HTTP server, tokenizer manager and detokenizer are Python processes like vLLM's
       // API server: its fitted front end, carried (no SGLang TTFT in the data).
       .frontend_latency = 8.4e-3,
       .async_scheduling = true,
       .prefix_caching = true,
       .window_kv_source = "not modelled for SGLang (its separate SWA memory pool is not what servesim counts): "
                           "full-context KV on every layer, an upper bound",
       .source = "SGLang v0.4 release blog (lmsys.org, 2024-12-04): the CPU scheduler overlaps the GPU step; "
                 "RadixAttention on by default; per-token host work (28 us, overlapped) and the 8.4 ms front end "
                 "carried from vllm-v1, not measured on SGLang",
       .policy_note = "the radix tree's cache-aware scheduling order (servesim serves first come, first served); "
                      "admission by estimated future tokens (new_token_ratio) with retraction of decodes when memory "
                      "runs out (servesim: vllm_v1's admission and preemption)",
       .beam_search = BeamSearchImpl::unsupported,
       .beam_search_source = "SGLang has no beam search: sgl-project/sglang issues #903 (2024, \"currently not "
                             "supported\") and #23356 (2026-04), the beam-search PR #15645 closed unmerged"},
      {.name = "trtllm",
       .doc = "TensorRT-LLM (C++ executor, in-flight batching): kernels launched from C++, decode attention reads KV "
              "1.14x as fast as the catalog's (fitted)",
       .step_cpu_overhead = 0.2e-3,
       .per_seq_cpu_overhead = 2e-6,
       .kernel_launch_overhead = 0,
       // Requests reach the C++ executor through a Python OpenAI server (trtllm-serve) or
       // Triton with Python tokenizer/detokenizer models: HTTP, tokenisation and streaming
       // as in vLLM's API server, whose fitted front end is carried here (the TensorRT-LLM
       // rows of data/ are offline and static: none measures TTFT under a server).
       .frontend_latency = 8.4e-3,
       // Fitted (one parameter, a grid of 0.01 in the ratio) on every other row of the
       // TensorRT-LLM 0.11 offline-throughput set (data/offline_throughput/trtllm_v0.11_throughput.csv:
       // 82 of its 164 compared rows, file order, the 1st, 3rd, ...), minimising their median
       // |error|: 1.14 (the catalog's attention_memory 0.70 -> 0.80 of HBM bandwidth). Held out:
       // the other 82 offline rows 9.8% -> 7.0% and the 17 TensorRT-LLM 0.5/0.6.1 static rows,
       // never fitted, 10.7% -> 6.9% (docs/validation.md, "Framework presets"). What it stands
       // for: TensorRT-LLM's generation-phase attention (masked MHA with multi-block mode; the
       // 0.5/0.6 engines of the static rows were built without paged KV, so it read one
       // contiguous buffer per sequence) streams KV faster than vLLM's paged attention, from
       // which the catalog's 0.70 comes; the decode-heavy rows (128/2048, 2048/2048) carry it.
       // Fits tried and not kept: gemm_compute_ratio beside this ratio (the offline fitted half
       // 8.3% at 1.00 and 1.03, 8.6% at 1.05; held out 7.0 / 7.8 / 8.1%), the CPU terms (static
       // held-out 9.5 -> 14.9%), a per-layer prefill cost (static L40S batch-1 TTFT 8.4 -> 24.6%).
       .attention_memory_ratio = 1.14,
       .async_scheduling = false,
       .prefix_caching = false,
       .window_kv_source = "not modelled for TensorRT-LLM (its cyclic KV cache for max_attention_window is not what "
                           "servesim counts): full-context KV on every layer, an upper bound",
       // A fit of the two CPU terms on the TensorRT-LLM v0.5/v0.6.1 static rows (6 fitted, 5
       // held out) raised held-out error (9.5% -> 14.9%), so their assumption stays.
       .source = "step and per-sequence CPU time an assumption (a C++ runtime spends a fraction of a Python engine's "
                 "host time per step; a fit on 6 TensorRT-LLM static rows did not improve held-out error); "
                 "attention ratio 1.14 fitted on every other TensorRT-LLM 0.11 offline row (held-out median: the "
                 "other offline rows 9.8% -> 7.0%, the 17 never-fitted 0.5/0.6.1 static rows 10.7% -> 6.9%); "
                 "KV cache reuse is off by default (TensorRT-LLM KvCacheConfig.enable_block_reuse); the 8.4 ms front "
                 "end carried from vllm-v1 (trtllm-serve / Triton), not measured on TensorRT-LLM",
       .scheduler = "trtllm_no_evict",
       .policy_note = "admission reserves the request's actual output length, where TensorRT-LLM reserves its "
                      "max_new_tokens",
       .beam_search = BeamSearchImpl::in_engine,
       .beam_search_source = "TensorRT-LLM runs beam search inside its executor (SamplingConfig beam_width, "
                             "max_beam_width at engine build; beams of a request decode in one batch)"},
      {.name = "lmdeploy-turbomind",
       .doc = "LMDeploy TurboMind (C++ engine, persistent batch): prefill GEMMs 1.107x the catalog's, 0.44 ms a layer "
              "per prefill step (fitted on A100 rows)",
       .step_cpu_overhead = 0.2e-3,
       .per_seq_cpu_overhead = 2e-6,
       .kernel_launch_overhead = 0,
       // Fitted on every other LMDeploy v0.1/v0.2 A100 row (data/static_batch/lmdeploy_a100.csv:
       // 250 fitted, 244 held out; Llama-2 7B/13B/70B TP 1/1/4, InternLM-20B TP 2): `servesim
       // calibrate static --data data/static_batch/lmdeploy_a100.csv --params
       // gemm_compute_ratio,prefill_layer_overhead --set engine.framework=lmdeploy-turbomind --set
       // engine.prefill_layer_overhead=100us` (the last --set only moves the start off the bound
       // 0, where the logistic coordinate is flat) -> 1.107 and 435 us. Held-out median |error|
       // 12.6% -> 9.7% (ttft_min 24.3 -> 7.0%, ttft_mean 16.3 -> 9.4%); all 494 rows 11.9% -> 9.7%.
       // Across models: fitted on 7B + 13B only -> 1.124, 406 us; on 20B + 70B only -> 1.071,
       // 446 us (held-out ttft_min of the other pair 23.9 -> 8.1% and 19.3 -> 9.1%).
       // What they stand for: TurboMind's prefill GEMMs run ~11% faster than the catalog's
       // vLLM/cuBLAS-derived gemm_compute (0.70 -> 0.775 of dense peak on A100), and a prefill
       // step costs ~0.44 ms a layer more than a decode step (a 128-token Llama-2-7B prompt
       // takes 22 ms alone against 10 ms for a 1-token one, which TurboMind runs as a decode).
       // Only A100 rows exist: how the two carry to another GPU is not measured.
       .gemm_compute_ratio = 1.107,
       .prefill_layer_overhead = 435e-6,
       .async_scheduling = false,
       .prefix_caching = false,
       .window_kv_source = "not modelled for LMDeploy: full-context KV on every layer, an upper bound",
       .source = "step and per-sequence CPU time an assumption (a C++ engine spends a fraction of a Python "
                 "engine's host time per step; their fit raised held-out error); GEMM ratio 1.107 and prefill "
                 "cost 435 us a layer fitted on every other LMDeploy A100 row (held-out median 12.6% -> 9.7%; "
                 "A100 only, the transfer to other GPUs is not measured)",
       .policy_note = "",
       .beam_search = BeamSearchImpl::unsupported,
       .beam_search_source = "LMDeploy's GenerationConfig has sampling parameters and no beam width (InternLM/lmdeploy "
                             "issue #90)"},
      // ---- local runtimes (engine/local_runtime.h; config/read_local_engine.cpp) ----
      {.name = "llama.cpp",
       .doc = "llama.cpp's server (llama-server): ggml CUDA/Metal/CPU kernels, GGUF weights, `parallel` slots with "
              "continuous batching, prompts in ubatches of 512 (engine.llama_cpp)",
       // The host's per-token work (graph build, sampling) and every kernel's launch are in the
       // back end's fitted kernel time (cost/ggml_kernels.cpp), not in these CPU terms.
       .step_cpu_overhead = 0,
       .per_seq_cpu_overhead = 0,
       .kernel_launch_overhead = 0,
       .frontend_latency = 0,
       .async_scheduling = false,
       .prefix_caching = false,
       .free_window_kv = true,
       .window_kv_source = "llama.cpp's SWA KV cache keeps only the window of sliding-window layers unless --swa-full "
                           "(src/llama-kv-cache-iswa.cpp, ggml-org/llama.cpp PR #13194)",
       .source = "ggml back-end kernels fitted on llama-bench tables (data/llama_cpp/README.md): Metal on llama.cpp "
                 "discussion #4167, CUDA on discussion #15013; the HTTP server's own latency is not modelled (0, as "
                 "llama-bench measures)",
       .scheduler = "vllm_v1",
       .policy_note = "a slot's prompt-cache reuse (cache_prompt), context shift and speculative drafting (-md); "
                      "slots run as vllm_v1's continuous batching over one KV pool",
       .beam_search = BeamSearchImpl::unsupported,
       .beam_search_source = "llama-server has no beam search: each slot samples one sequence and its /completion "
                             "parameters have no beam width (tools/server/README.md)",
       .runtime = "llama.cpp",
       .default_weights = "f16"},
      {.name = "ollama",
       .doc = "Ollama: llama.cpp's kernels with Ollama's defaults (Q4_K_M library tags, context 4096, "
              "OLLAMA_NUM_PARALLEL 4 when it fits else 1, flash attention off unless OLLAMA_FLASH_ATTENTION=1)",
       .step_cpu_overhead = 0,
       .per_seq_cpu_overhead = 0,
       .kernel_launch_overhead = 0,
       .frontend_latency = 0,
       .async_scheduling = false,
       .prefix_caching = false,
       .free_window_kv = true,
       .window_kv_source = "llama.cpp's SWA KV cache (Ollama runs llama.cpp's runner)",
       .source = "llama.cpp's kernels (its preset); defaults from Ollama's FAQ (docs/faq.md: OLLAMA_NUM_PARALLEL "
                 "auto-selects 4 or 1 by available memory, OLLAMA_FLASH_ATTENTION, context length) and its library "
                 "tags (Q4_K_M); Ollama's Go server hop is not modelled",
       .scheduler = "vllm_v1",
       .policy_note = "model loading and unloading (keep_alive), Ollama's request queue (OLLAMA_MAX_QUEUE) beyond "
                      "the slots",
       .beam_search = BeamSearchImpl::unsupported,
       .beam_search_source = "Ollama's API has no beam search option (docs/api.md: sampling parameters only)",
       .runtime = "llama.cpp",
       .default_weights = "q4_k_m"},
      {.name = "transformers",
       .doc = "Hugging Face Transformers generate(): static batches padded to the longest prompt, no paged KV, "
              "eager PyTorch (or static cache + torch.compile) (engine.transformers)",
       // generate()'s own Python per step (logits processors, stopping criteria, cache update):
       // an assumption, 1 ms.
       .step_cpu_overhead = 1.0e-3,
       .per_seq_cpu_overhead = 5e-6,
       // Eager PyTorch launches several small ops (RMSNorm, rotary, SiLU-and-mul unfused) for each
       // kernel servesim counts, each through Python's dispatch. Fitted on one measurement:
       // Transformers' own benchmark of gemma-2b (data/transformers/README.md): eager generate()
       // 19.73 ms per token; 100 us per servesim kernel (186 a step) gives 19.6 ms. Not fitted and
       // compared: static cache without compile (still eager) 21.06 ms measured, 19.6 predicted
       // (-7%); static cache + torch.compile 12.33 ms measured, 12.47 predicted (+1%).
       .kernel_launch_overhead = 100e-6,
       .frontend_latency = 0,
       .async_scheduling = false,
       .prefix_caching = false,
       .free_window_kv = false,
       .window_kv_source = "generate()'s DynamicCache keeps every layer's whole context (sliding-window caches exist "
                           "only for some models): full-context KV, an upper bound",
       .source = "eager PyTorch launches every op from Python: 100 us per servesim kernel fitted on one row of "
                 "Transformers' benchmark (gemma-2b eager generate(), 19.7 ms a token; the static-cache rows, not "
                 "fitted, within 7%: data/transformers/README.md); 1 ms of generate()'s own Python per step an "
                 "assumption; static cache + torch.compile replay CUDA graphs (engine.transformers)",
       .scheduler = "vllm_v1",
       .policy_note = "generate()'s requests are whole static batches; no continuous batching (Transformers' "
                      "continuous-batching generate_batch is not modelled)",
       .beam_search = BeamSearchImpl::in_engine,
       .beam_search_source = "generate(num_beams=k) runs beam search inside the static batch (beams x batch "
                             "rows); servesim's transformers runtime does not model workload.sampling",
       .runtime = "transformers",
       .default_weights = ""},
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
