// The `engine:` section of a scenario: each key declared once (defaults from
// EngineConfig's members) and read through its declaration.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <cstdlib>
#include <limits>

#include "config/kv_tiers_reader.h"
#include "config/catalog_reader.h"
#include "config/local_engine.h"
#include "config/lora_reader.h"
#include "config/scenario_sections.h"
#include "engine/framework_preset.h"
#include "engine/scheduling_policy.h"
#include "util/error.h"
#include "util/text.h"
#include "util/warnings.h"

namespace servesim {
namespace {

const EngineConfig kDefaults{};
constexpr double kInf = std::numeric_limits<double>::infinity();

// Bounds of engine counts: far beyond real deployments, they keep every derived
// count inside int64/int; each count is range-checked as read, before any narrowing.
constexpr double kSeqsLimit = 1'000'000;
constexpr double kBatchedTokensLimit = 100'000'000;
constexpr double kContextTokensLimit = 100'000'000;
constexpr double kKvBlocksLimit = 100'000'000;

const Key kKind{
    .name = "kind",
    .type = KeyType::choice,
    .doc = "engine model: vllm (continuous batching, vLLM's scheduler) or static (whole batches, as early TGI/FT)",
    .spec = "EngineConfig::kind",
    .default_text = kDefaults.kind,
    .choices = {"vllm", "static"},
};
// engine.framework picks the defaults of the CPU-side keys below (kPresetKeys).
std::vector<std::string_view> framework_choices() {
  std::vector<std::string_view> out;
  for (const auto& p : framework_presets()) out.push_back(p.name);
  return out;
}
const Key kFramework{
    .name = "framework",
    .type = KeyType::choice,
    .doc = "the serving framework whose CPU-side and kernel defaults apply (step and per-sequence CPU time, kernel launches, "
           "GEMM and attention ratios, prefill cost per layer, "
           "async scheduling, prefix cache); keys set here override them (`servesim list frameworks`)",
    .spec = "EngineConfig::framework",
    .default_text = default_framework_preset().name,
    .choices = framework_choices(),
};
// engine.scheduler: the continuous-batching engine's policy; the framework's by default.
const Key kScheduler{
    .name = "scheduler",
    .type = KeyType::choice,
    .doc = "scheduling policy of the vllm engine: vllm_v1 (chunked prefill mixed with decodes, preempts the newest "
           "request when KV runs out), vllm_v0_prefill_first (steps of whole prompts only, decoders wait; else a "
           "decode step), trtllm_no_evict (TensorRT-LLM GUARANTEED_NO_EVICT: starts a request only when KV for its "
           "whole sequence fits beside the running requests' peaks; never preempts) or trtllm_max_utilization "
           "(TensorRT-LLM MAX_UTILIZATION: as vllm_v1)",
    .spec = "EngineConfig::scheduler",
    .default_text = kDefaults.scheduler,
    .default_note = "the framework's (vllm-v1: vllm_v1)",
    .choices = scheduler_names(),
};
// engine.scheduling_policy: vLLM's --scheduling-policy (fcfs | priority).
const Key kSchedulingPolicy{
    .name = "scheduling_policy",
    .type = KeyType::choice,
    .doc = "order of the engine's waiting queue (vLLM --scheduling-policy): fcfs (arrival) or priority (the request "
           "class's priority, higher first, then arrival; needs workload.classes of different priorities). A "
           "request that cannot run is not passed over, and KV running out preempts the lowest priority first in "
           "either",
    .spec = "EngineConfig::priority_queue",
    .default_text = "fcfs",
    .choices = {"fcfs", "priority"},
};
// engine.beam_search: where the framework runs beam search (framework_preset.h).
const Key kBeamSearch{
    .name = "beam_search",
    .type = KeyType::choice,
    .doc = "how beam search (workload.sampling.beam_width) runs: in_engine (sequence groups decoding in lockstep, "
           "vLLM up to v0.6.2 and TensorRT-LLM; engine/sequence_group.h) or above_engine (vLLM v0.6.3+ and V1: a "
           "loop that sends one request of max_tokens 1 per beam per token and keeps the best beams; "
           "workload/beam_loop.h). Frameworks without beam search refuse it",
    .spec = "EngineConfig::beam_search",
    .default_text = "above_engine",
    .default_note = "the framework's (vllm-v1: above_engine; vllm-v0, trtllm: in_engine)",
    .choices = {"in_engine", "above_engine"},
};
const Key kMaxNumSeqs{
    .name = "max_num_seqs",
    .type = KeyType::integer,
    .doc = "most sequences running in one step (vLLM --max-num-seqs)",
    .spec = "EngineConfig::max_num_seqs",
    .unit = "sequences",
    .default_number = static_cast<double>(kDefaults.max_num_seqs),
    .min = 1,
    .max = kSeqsLimit,
    .why = "more sequences than any GPU could batch",
};
const Key kMaxBatchedTokens{
    .name = "max_num_batched_tokens",
    .type = KeyType::integer,
    .doc = "token budget of one engine step, prefill and decode together (vLLM --max-num-batched-tokens)",
    .spec = "EngineConfig::max_num_batched_tokens",
    .unit = "tokens",
    .default_number = static_cast<double>(kDefaults.max_num_batched_tokens),
    .min = 1,
    .max = kBatchedTokensLimit,
    .why = "tokens per engine step",
};
// vLLM accepts only these KV block sizes (vllm/config/cache.py, CacheConfig:
// BlockSize = Literal[1, 8, 16, 32, 64, 128], 256 added in v0.11); the engine
// here relies on a power of two (block arithmetic uses shifts and masks).
constexpr std::int64_t kBlockSizes[] = {1, 8, 16, 32, 64, 128, 256};
const Key kBlockSize{
    .name = "block_size",
    .type = KeyType::integer,
    .doc = "tokens per KV-cache block: 1, 8, 16, 32, 64, 128 or 256 (vLLM --block-size)",
    .spec = "EngineConfig::block_size",
    .unit = "tokens",
    .default_number = static_cast<double>(kDefaults.block_size),
    .min = 1,
    .max = 256,
    .why = "the sizes vLLM's CacheConfig accepts",
};
const Key kGpuMemoryUtilization{
    .name = "gpu_memory_utilization",
    .type = KeyType::quantity,
    .doc = "share of each GPU's memory the engine may use, above 0 (vLLM --gpu-memory-utilization)",
    .spec = "EngineConfig::gpu_memory_utilization",
    .dimension = Dimension::fraction,
    .default_number = kDefaults.gpu_memory_utilization,
    .min = 0,
    .max = 1,
    .why = "a share of the GPU's memory, above 0",
};
const Key kPrefixCaching{
    .name = "prefix_caching",
    .type = KeyType::boolean,
    .doc = "reuse the KV blocks of shared prompt prefixes (vLLM --enable-prefix-caching)",
    .spec = "EngineConfig::prefix_caching",
    .default_bool = kDefaults.prefix_caching,
    .default_note = "the framework's (vllm-v1: false)",
};
const Key kFreeWindowKv{
    .name = "free_window_kv",
    .type = KeyType::boolean,
    .doc = "for a model with local attention (sliding window, chunked attention): the KV blocks a local layer no "
           "longer reads are freed, so its KV per request stops growing at the span plus one block while the global "
           "layers' grows with the context (vLLM V1's hybrid KV cache manager, v0.10+). false: every layer keeps the "
           "whole context's KV. No effect on full-attention models (docs/configuration.md, \"Local attention\")",
    .spec = "EngineConfig::free_window_kv",
    .default_bool = kDefaults.free_window_kv,
    .default_note = "the framework's (vllm-v1: true; the others: false)",
};
const Key kChunkedPrefill{
    .name = "chunked_prefill",
    .type = KeyType::boolean,
    .doc = "split long prompts across steps to fit the token budget (vLLM --enable-chunked-prefill)",
    .spec = "EngineConfig::chunked_prefill",
    .default_bool = kDefaults.chunked_prefill,
};
const Key kMaxModelLen{
    .name = "max_model_len",
    .type = KeyType::integer,
    .doc = "longest sequence (prompt + output) served; at most the model's context length (vLLM --max-model-len)",
    .spec = "EngineConfig::max_model_len",
    .unit = "tokens",
    .default_number = static_cast<double>(kDefaults.max_model_len),
    .default_note = "the model's context length",
    .min = 1,
    .max = kContextTokensLimit,
    .why = "tokens of one sequence",
};
const Key kNumGpuBlocksOverride{
    .name = "num_gpu_blocks_override",
    .type = KeyType::integer,
    .doc = "KV blocks per replica instead of the memory planner's count, 0 = none (vLLM --num-gpu-blocks-override)",
    .spec = "EngineConfig::num_gpu_blocks_override",
    .unit = "blocks",
    .default_number = static_cast<double>(kDefaults.num_gpu_blocks_override),
    .min = 0,
    .max = kKvBlocksLimit,
    .why = "KV blocks per replica, 0 = no override; the engine keeps state per block",
};
const Key kRuntimeOverhead{
    .name = "runtime_overhead",
    .type = KeyType::quantity,
    .doc = "GPU memory outside PyTorch's allocator: CUDA context, cuBLAS/NCCL workspaces, CUDA graphs (vLLM's "
           "\"non-torch memory\")",
    .spec = "EngineConfig::runtime_overhead_bytes",
    .dimension = Dimension::bytes,
    .default_number = kDefaults.runtime_overhead_bytes,
    .min = 0,
    .max = kInf,
};
const Key kStepCpuOverhead{
    .name = "step_cpu_overhead",
    .type = KeyType::quantity,
    .doc = "CPU time per engine step the GPU waits on: scheduling, input preparation, output processing (Vidur "
           "cpu_overheads)",
    .spec = "EngineConfig::step_cpu_overhead",
    .dimension = Dimension::time,
    .default_number = kDefaults.step_cpu_overhead,
    .default_note = "the framework's (vllm-v1: 0.5 ms)",
    .min = 0,
    .max = kInf,
};
const Key kPerSeqCpuOverhead{
    .name = "per_seq_cpu_overhead",
    .type = KeyType::quantity,
    .doc = "CPU time per running sequence per step, on top of step_cpu_overhead",
    .spec = "EngineConfig::per_seq_cpu_overhead",
    .dimension = Dimension::time,
    .default_number = kDefaults.per_seq_cpu_overhead,
    .default_note = "the framework's (vllm-v1: 5 us)",
    .min = 0,
    .max = kInf,
};
const Key kPerTokenCpuOverhead{
    .name = "per_token_cpu_overhead",
    .type = KeyType::quantity,
    .doc = "CPU time per token sampled in a step (sampler bookkeeping, detokenization, stop checks, streaming), on "
           "top of per_seq_cpu_overhead",
    .spec = "EngineConfig::per_token_cpu_overhead",
    .dimension = Dimension::time,
    .default_number = kDefaults.per_token_cpu_overhead,
    .default_note = "the framework's (vllm-v1: 28 us, hidden under the GPU step; docs/host-cost.md)",
    .min = 0,
    .max = 10e-3,
    .why = "host work per sampled token is microseconds, not tens of milliseconds",
};
const Key kPromptTokenCpuOverhead{
    .name = "prompt_token_cpu_overhead",
    .type = KeyType::quantity,
    .doc = "CPU time per prompt token scheduled in a step (input preparation that scales with the tokens)",
    .spec = "EngineConfig::prompt_token_cpu_overhead",
    .dimension = Dimension::time,
    .default_number = kDefaults.prompt_token_cpu_overhead,
    .default_note = "the framework's (every preset: 0, not measured)",
    .min = 0,
    .max = 1e-3,
    .why = "host work per prompt token is well under a microsecond to a few microseconds",
};
const Key kHostOverlap{
    .name = "host_overlap",
    .type = KeyType::number,
    .doc = "share of a step's per-token host work (per_token_cpu_overhead x sampled tokens + "
           "prompt_token_cpu_overhead x prompt tokens) that runs while the GPU computes (async scheduling): the step "
           "lasts max(GPU, share x tokens) + step and per-sequence CPU time + (1 - share) x tokens; 0 = the GPU waits "
           "on all of it",
    .spec = "EngineConfig::host_overlap",
    .default_number = kDefaults.host_overlap,
    .default_note = "the framework's (vllm-v1 and sglang: 1; the others: 0)",
    .min = 0,
    .max = 1,
    .why = "a share of the host work",
};
const Key kNumSchedulerSteps{
    .name = "num_scheduler_steps",
    .type = KeyType::integer,
    .doc = "vLLM V0's multi-step scheduling (--num-scheduler-steps, v0.6-v0.7; framework vllm-v0 only): decode "
           "steps schedule and prepare their inputs once per N steps, so the preset's scheduling share of "
           "step_cpu_overhead (0.287 of its 0.81 ms) and per_seq_cpu_overhead count 1/N in a step without a "
           "prefill; sampling and output processing still cost every step. The batch's make-up is not held for "
           "the N steps (arrivals join at the next step, as without it)",
    .spec = "EngineConfig::num_scheduler_steps",
    .unit = "steps",
    .default_number = 1,
    .min = 1,
    .max = 1024,
    .why = "vLLM takes a handful to a few tens (AMD's recommended ROCm settings: 10-15)",
};
const Key kKernelLaunchOverhead{
    .name = "kernel_launch_overhead",
    .type = KeyType::quantity,
    .doc = "CPU time to launch one kernel when steps are not replayed from CUDA graphs, 0 = CUDA graphs (vLLM "
           "--enforce-eager); a step lasts at least its kernels times this",
    .spec = "EngineConfig::kernel_launch_overhead",
    .dimension = Dimension::time,
    .default_number = kDefaults.kernel_launch_overhead,
    .default_note = "the framework's (vllm-v1: 0, CUDA graphs)",
    .min = 0,
    .max = 1e-3,
    .why = "a kernel launch takes microseconds, not milliseconds",
};
const Key kCollectiveLatency{
    .name = "collective_latency",
    .type = KeyType::quantity,
    .doc = "per-hop latency of collectives launched outside CUDA graphs (host launch and sync of each NCCL "
           "call); replaces the GPU link's latency when larger, 0 = the link's",
    .spec = "EngineConfig::collective_latency",
    .dimension = Dimension::time,
    .default_number = kDefaults.collective_latency,
    .default_note = "the framework's (vllm-v1: 0, the link's)",
    .min = 0,
    .max = 10e-3,
    .why = "a collective's per-hop latency is microseconds, not tens of milliseconds",
};
const Key kFrontendLatency{
    .name = "frontend_latency",
    .type = KeyType::quantity,
    .doc = "latency outside the engine core per request (HTTP, tokenization, streaming), added to TTFT and E2E",
    .spec = "EngineConfig::frontend_latency",
    .dimension = Dimension::time,
    .default_number = kDefaults.frontend_latency,
    .default_note = "the framework's (vllm-v1: 8.4 ms, fitted on the H100 runs of data/serving; sglang and trtllm carry it; the others: 0)",
    .min = 0,
    .max = kInf,
};
const Key kGemmComputeRatio{
    .name = "gemm_compute_ratio",
    .type = KeyType::number,
    .doc = "the framework's compute-bound (prefill) GEMM kernels against the GPU profile's: its gemm_compute "
           "(a fraction of dense peak from vLLM/cuBLAS kernels) is multiplied by this ratio, which carries to "
           "any GPU; 1 = the profile's kernels",
    .spec = "EngineConfig::gemm_compute_ratio",
    .default_number = kDefaults.gemm_compute_ratio,
    .default_note = "the framework's (vllm-v1: 1)",
    .min = 0.5,
    .max = 2,
    .why = "a framework's GEMMs within a factor of 2 of cuBLAS's; the product with gemm_compute must stay <= 1",
};
const Key kAttentionMemoryRatio{
    .name = "attention_memory_ratio",
    .type = KeyType::number,
    .doc = "the framework's decode-attention kernels against the GPU profile's: its attention_memory (the fraction "
           "of HBM bandwidth at which attention reads the KV cache, from vLLM's paged-attention kernels) is "
           "multiplied by this ratio, which carries to any GPU; 1 = the profile's kernels",
    .spec = "EngineConfig::attention_memory_ratio",
    .default_number = kDefaults.attention_memory_ratio,
    .default_note = "the framework's (vllm-v1: 1)",
    .min = 0.5,
    .max = 2,
    .why = "a framework's attention kernels within a factor of 2 of vLLM's; the product with attention_memory must "
           "stay <= 1",
};
const Key kPrefillLayerOverhead{
    .name = "prefill_layer_overhead",
    .type = KeyType::quantity,
    .doc = "host time per transformer layer of a step that prefills a prompt (a sequence with more than one new "
           "token), on top of step_cpu_overhead; a pipeline stage pays it for its own layers",
    .spec = "EngineConfig::prefill_layer_overhead",
    .dimension = Dimension::time,
    .default_number = kDefaults.prefill_layer_overhead,
    .default_note = "the framework's (vllm-v1: 0)",
    .min = 0,
    .max = 10e-3,
    .why = "a host cost per layer is microseconds to a millisecond, not tens of milliseconds",
};
const Key kAsyncScheduling{
    .name = "async_scheduling",
    .type = KeyType::boolean,
    .doc = "plan step N+1 while step N runs, so a new request waits one step more (vLLM --async-scheduling)",
    .spec = "EngineConfig::async_scheduling",
    .default_bool = kDefaults.async_scheduling,
    .default_note = "the framework's (vllm-v1: true)",
};
const Key kCpuOffload{
    .name = "cpu_offload",
    .type = KeyType::quantity,
    .doc = "host memory per replica for evicted prefix blocks and swapped-out requests, 0 = off (vLLM "
           "--kv-offloading-size)",
    .spec = "EngineConfig::cpu_offload_bytes",
    .dimension = Dimension::bytes,
    .default_number = kDefaults.cpu_offload_bytes,
    .min = 0,
    // 1 PB: more host memory than any server has (the largest hold tens of TB); past
    // it a typo ("1e30 GB") would overflow the CPU tier's block count.
    .max = 1e15,
    .why = "no host has more memory",
};
const Key kMaxQueueMemory{
    .name = "max_queue_memory",
    .type = KeyType::quantity,
    .doc = "simulator guard, not a vLLM setting: stop admitting when waiting requests hold more than this",
    .spec = "EngineConfig::max_queue_memory_bytes",
    .dimension = Dimension::bytes,
    .default_number = kDefaults.max_queue_memory_bytes,
    .default_note = "a quarter of this machine's physical memory",
    .min = 0,
    .max = kInf,
};
const Key kAttentionKernel{
    .name = "attention_kernel",
    .type = KeyType::choice,
    .doc = "attention cost model: flash (FlashAttention, vLLM's default backends) or naive (materialised scores)",
    .spec = "EngineConfig::attention",
    .default_text = kDefaults.attention == AttentionKernel::naive ? "naive" : "flash",
    .choices = {"flash", "naive"},
};

// engine.speculative (engine/speculative.h).
const Key kSpeculative{
    .name = "speculative",
    .type = KeyType::section,
    .doc = "speculative decoding: a drafter proposes tokens, the target verifies them in one pass (vLLM "
           "--speculative-config)",
    .spec = "EngineConfig::speculative",
};
const Key kSpecMethod{
    .name = "method",
    .type = KeyType::choice,
    .doc = "the drafter: draft_model (a smaller model, k decode steps), eagle (EAGLE head: one layer of the "
           "target's width + LM head per token) or mtp (DeepSeek-V3 multi-token prediction module, the same shape)",
    .spec = "SpeculativeConfig::method",
    .required = true,
    .choices = {"draft_model", "eagle", "mtp"},
};
const Key kSpecDraftModel{
    .name = "draft_model",
    .type = KeyType::text,
    .doc = "method draft_model: the draft model's catalog name or config.json path (same vocabulary as the target)",
    .spec = "SpeculativeConfig::draft_model",
    .default_note = "none (required with method: draft_model)",
};
const Key kSpecTokens{
    .name = "num_speculative_tokens",
    .type = KeyType::integer,
    .doc = "tokens k the drafter proposes per step; the target verifies k+1 positions (vLLM num_speculative_tokens)",
    .spec = "SpeculativeConfig::num_speculative_tokens",
    .unit = "tokens",
    .required = true,
    .min = 1,
    .max = 64,
    .why = "at least one proposed token; more than 64 is beyond any published drafter",
};
const Key kSpecAcceptanceRate{
    .name = "acceptance_rate",
    .type = KeyType::number,
    .doc = "probability alpha that each proposed token is accepted, i.i.d. per position: a sequence emits "
           "(1 - alpha^(k+1)) / (1 - alpha) tokens per step",
    .spec = "SpeculativeConfig::acceptance",
    .default_note = "none (give acceptance_rate or acceptance)",
    .min = 0,
    .max = 1,
    .why = "a probability",
};
const Key kSpecAcceptance{
    .name = "acceptance",
    .type = KeyType::list,
    .doc = "per-position acceptance [a1 .. ak]: a_i = P(token i accepted | tokens 1..i-1 accepted), k numbers in [0, 1]",
    .spec = "SpeculativeConfig::acceptance",
    .item = "probability",
};

std::vector<std::string> choice_names(const Key& k) { return {k.choices.begin(), k.choices.end()}; }

// A choice key with its own wording of the error ("unknown engine 'x'"), as before
// the keys were declared.
std::string read_named_choice(ConfigMap& e, const Key& k, std::string_view noun) {
  const std::string v = read_text(e, k);
  const auto valid = choice_names(k);
  if (std::find(valid.begin(), valid.end(), v) == valid.end())
    e.fail(std::string(k.name), fmt::format("unknown {} '{}'{} (valid: {})", noun, v, did_you_mean(v, valid), join(valid)));
  return v;
}

int read_block_size(ConfigMap& e) {
  const std::string name(kBlockSize.name);
  if (!e.has(name)) return static_cast<int>(kBlockSize.default_number);
  const std::int64_t b = e.integer(name);
  if (std::find(std::begin(kBlockSizes), std::end(kBlockSizes), b) == std::end(kBlockSizes))
    throw Error(fmt::format("{}: block_size must be one of 1, 8, 16, 32, 64, 128, 256 tokens (the sizes vLLM's "
                            "CacheConfig accepts), got {}",
                            e.where(name), b));
  return static_cast<int>(b);
}

SpeculativeConfig read_speculative(ConfigMap& m) {
  SpeculativeConfig c;
  c.method = read_named_choice(m, kSpecMethod, "speculative method");
  const std::string draft(kSpecDraftModel.name);
  if (m.has(draft)) c.draft_model = m.string(draft);
  if (c.method == "draft_model" && c.draft_model.empty())
    m.fail(draft, "method draft_model needs draft_model: the draft model's catalog name or config.json path");
  if (c.method != "draft_model" && !c.draft_model.empty())
    m.fail(draft, fmt::format("draft_model is for method draft_model only; method {} drafts with a head of the "
                              "target's own shape",
                              c.method));
  const std::string tokens(kSpecTokens.name);
  if (!m.has(tokens))
    m.fail(tokens, "num_speculative_tokens (k, the tokens proposed per step, at least 1) is required");
  c.num_speculative_tokens = read_integer(m, kSpecTokens);
  const std::string rate(kSpecAcceptanceRate.name), list(kSpecAcceptance.name);
  const bool has_rate = m.has(rate), has_list = m.has(list);
  if (has_rate == has_list)
    m.fail(has_rate ? list : rate,
           has_rate ? "give acceptance_rate (i.i.d. per position) or acceptance (per position), not both"
                    : "give acceptance_rate (alpha, i.i.d. per position) or acceptance: [a1 .. ak]");
  const std::size_t k = static_cast<std::size_t>(c.num_speculative_tokens);
  if (has_rate) {
    c.acceptance.assign(k, read_number(m, kSpecAcceptanceRate));
  } else {
    const ConfigNode& node = *m.get(list);
    std::vector<std::string> items;
    if (node.is_sequence())
      for (const ConfigNode& it : node.items()) items.push_back(it.is_scalar() ? it.text() : std::string("?"));
    else if (node.is_scalar())
      items.push_back(node.text());
    for (const std::string& t : items) {
      char* end = nullptr;
      const double v = std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size() || !(v >= 0.0 && v <= 1.0))
        m.fail(list, fmt::format("every acceptance probability must be a number in [0, 1], got '{}'", t));
      c.acceptance.push_back(v);
    }
    if (c.acceptance.size() != k)
      m.fail(list, fmt::format("acceptance lists {} probabilities, but num_speculative_tokens is {}: give one per "
                               "proposed position",
                               c.acceptance.size(), k));
  }
  m.finish();
  return c;
}

}  // namespace

const KeySection& engine_key_section() {
  static const KeySection s{
      .path = "engine",
      .doc = "the serving engine's settings (vLLM's engine arguments where they exist)",
      .keys = {&kKind, &kFramework, &kScheduler, &kSchedulingPolicy, &kBeamSearch, &kMaxNumSeqs, &kMaxBatchedTokens, &kBlockSize, &kGpuMemoryUtilization, &kPrefixCaching, &kFreeWindowKv,
               &kChunkedPrefill, &kMaxModelLen, &kNumGpuBlocksOverride, &kRuntimeOverhead, &kStepCpuOverhead,
               &kPerSeqCpuOverhead, &kPerTokenCpuOverhead, &kPromptTokenCpuOverhead, &kHostOverlap, &kNumSchedulerSteps, &kKernelLaunchOverhead, &kCollectiveLatency, &kFrontendLatency, &kGemmComputeRatio, &kAttentionMemoryRatio,
               &kPrefillLayerOverhead, &kAsyncScheduling, &kCpuOffload, &kv_tiers_key(), &kMaxQueueMemory,
               &kAttentionKernel, &kSpeculative, &lora_engine_key(), &llama_cpp_section_key(),
               &transformers_section_key()},
  };
  return s;
}

const KeySection& speculative_key_section() {
  static const KeySection s{
      .path = "engine.speculative",
      .doc = "speculative decoding (engine/speculative.h states the model)",
      .keys = {&kSpecMethod, &kSpecDraftModel, &kSpecTokens, &kSpecAcceptanceRate, &kSpecAcceptance},
  };
  return s;
}

EngineConfig read_engine(ConfigMap& e) {
  EngineConfig c;
  c.kind = read_named_choice(e, kKind, "engine");
  const FrameworkPreset& preset = *find_framework_preset(read_named_choice(e, kFramework, "framework"));
  c.framework = std::string(preset.name);
  c.scheduler = has_key(e, kScheduler) ? read_named_choice(e, kScheduler, "scheduler") : std::string(preset.scheduler);
  c.priority_queue = read_choice(e, kSchedulingPolicy) == "priority";
  c.beam_search = preset.beam_search;
  if (has_key(e, kBeamSearch)) {
    if (preset.beam_search == BeamSearchImpl::unsupported)
      throw Error(fmt::format("{}: framework {} has no beam search ({})", e.where(std::string(kBeamSearch.name)),
                              preset.name, preset.beam_search_source));
    c.beam_search = read_choice(e, kBeamSearch) == "in_engine" ? BeamSearchImpl::in_engine
                                                                : BeamSearchImpl::above_engine;
  }
  // A key the scenario sets overrides the framework's value.
  const auto preset_number = [&e](const Key& k, double preset_value) {
    return has_key(e, k) ? read_quantity(e, k) : preset_value;
  };
  const auto preset_bool = [&e](const Key& k, bool preset_value) {
    return has_key(e, k) ? read_boolean(e, k) : preset_value;
  };
  c.max_num_seqs = read_integer(e, kMaxNumSeqs);
  c.max_num_batched_tokens = read_integer(e, kMaxBatchedTokens);
  c.block_size = read_block_size(e);
  // Read as a plain fraction and checked below with the open lower bound (0 excluded).
  c.gpu_memory_utilization = e.quantity(std::string(kGpuMemoryUtilization.name), kGpuMemoryUtilization.dimension,
                                        kGpuMemoryUtilization.default_number);
  c.prefix_caching = preset_bool(kPrefixCaching, preset.prefix_caching);
  c.free_window_kv = preset_bool(kFreeWindowKv, preset.free_window_kv);
  c.chunked_prefill = read_boolean(e, kChunkedPrefill);
  // 0 (the default) means "the model's context length", resolved in resolve_max_model_len.
  c.max_model_len = read_integer(e, kMaxModelLen);
  c.num_gpu_blocks_override = read_integer(e, kNumGpuBlocksOverride);
  c.runtime_overhead_bytes = read_quantity(e, kRuntimeOverhead);
  c.step_cpu_overhead = preset_number(kStepCpuOverhead, preset.step_cpu_overhead);
  c.per_seq_cpu_overhead = preset_number(kPerSeqCpuOverhead, preset.per_seq_cpu_overhead);
  c.per_token_cpu_overhead = preset_number(kPerTokenCpuOverhead, preset.per_token_cpu_overhead);
  c.prompt_token_cpu_overhead = preset_number(kPromptTokenCpuOverhead, preset.prompt_token_cpu_overhead);
  c.host_overlap = has_key(e, kHostOverlap) ? read_number(e, kHostOverlap) : preset.host_overlap;
  c.schedule_cpu_overhead = preset.schedule_cpu_overhead;
  c.num_scheduler_steps = static_cast<int>(read_integer(e, kNumSchedulerSteps));
  if (c.num_scheduler_steps > 1 && preset.name != "vllm-v0")
    throw Error(fmt::format("{}: multi-step scheduling is vLLM V0's (--num-scheduler-steps, v0.6-v0.7; framework "
                            "vllm-v0); framework {} has none (vLLM V1 removed it for async scheduling)",
                            e.where(std::string(kNumSchedulerSteps.name)), preset.name));
  c.kernel_launch_overhead = preset_number(kKernelLaunchOverhead, preset.kernel_launch_overhead);
  c.collective_latency = preset_number(kCollectiveLatency, preset.collective_latency);
  c.frontend_latency = preset_number(kFrontendLatency, preset.frontend_latency);
  c.gemm_compute_ratio = has_key(e, kGemmComputeRatio) ? read_number(e, kGemmComputeRatio) : preset.gemm_compute_ratio;
  c.attention_memory_ratio =
      has_key(e, kAttentionMemoryRatio) ? read_number(e, kAttentionMemoryRatio) : preset.attention_memory_ratio;
  c.prefill_layer_overhead = preset_number(kPrefillLayerOverhead, preset.prefill_layer_overhead);
  c.async_scheduling = preset_bool(kAsyncScheduling, preset.async_scheduling);
  c.cpu_offload_bytes = read_quantity(e, kCpuOffload);
  c.kv_tiers = read_kv_tiers(e);
  if (!c.kv_tiers.empty() && c.cpu_offload_bytes > 0)
    throw Error(fmt::format("{}: give either cpu_offload (one host tier) or kv_tiers (a chain of tiers, host memory "
                            "first), not both",
                            e.where(std::string(kCpuOffload.name))));
  const std::string queue(kMaxQueueMemory.name);
  c.max_queue_memory_bytes = e.quantity(queue, kMaxQueueMemory.dimension, kMaxQueueMemory.default_number);
  if (!(c.max_queue_memory_bytes >= kMaxQueueMemory.min))
    throw Error(fmt::format("{}: must be a size such as \"4 GiB\" (0 = a quarter of this machine's memory), got {}",
                            e.where(queue), c.max_queue_memory_bytes));
  c.attention = read_named_choice(e, kAttentionKernel, "attention kernel") == "naive" ? AttentionKernel::naive
                                                                                      : AttentionKernel::flash;
  if (c.gpu_memory_utilization <= kGpuMemoryUtilization.min || c.gpu_memory_utilization > kGpuMemoryUtilization.max)
    e.fail(std::string(kGpuMemoryUtilization.name), fmt::format("must be in (0, 1], got {}", c.gpu_memory_utilization));
  const std::string spec(kSpeculative.name);
  if (e.has(spec)) {
    ConfigMap sm = e.map(spec);
    c.speculative = read_speculative(sm);
  }
  // vLLM V0 refused them together ("Speculative decoding is not yet supported with multi-step").
  if (c.num_scheduler_steps > 1 && c.speculative.enabled())
    throw Error(fmt::format("{}: multi-step scheduling with speculative decoding is not supported by vLLM V0, nor "
                            "modelled; set num_scheduler_steps: 1 or remove engine.speculative",
                            e.where(std::string(kNumSchedulerSteps.name))));
  c.lora = read_lora_engine(e);
  read_local_runtime_sections(e, c, preset);
  e.finish();
  return c;
}

// max_model_len defaults to the model's context length and may not exceed it
// (vLLM raises at start-up unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is set). Without
// chunked prefill a prompt must fit one step's token budget, so vLLM also
// refuses max_num_batched_tokens < max_model_len then (SchedulerConfig
// verification): the engine would otherwise wait forever for a step that fits.
// The drafter of engine.speculative against the target: the draft model (same
// vocabulary) or the target-shaped head; engines that cannot speculate refuse it.
void resolve_speculative(ConfigMap& eng, Setup& s) {
  SpeculativeConfig& c = s.engine.speculative;
  if (!c.enabled()) return;
  const std::string where = eng.where(std::string(kSpeculative.name));
  if (s.engine.kind != "vllm")
    throw Error(fmt::format("{}: speculative decoding needs engine kind vllm (continuous batching), not {}",
                                  where, s.engine.kind));
  if (!find_framework_preset(s.engine.framework)->runtime.empty())
    throw Error(fmt::format("{}: speculative decoding is not modelled for engine.framework {}", where,
                            s.engine.framework));
  if (s.parallelism.pp > 1)
    throw Error(fmt::format("{}: speculative decoding is not modelled with pipeline parallelism (pp = {}); "
                                  "use tp, or leave speculative out",
                                  where, s.parallelism.pp));
  // Verifying k + 1 tokens through a state layer advances (and on rejection rolls back) its
  // recurrent state: not priced by the decode step's state update.
  if (s.model.state.enabled())
    throw Error(fmt::format("{}: speculative decoding is not modelled with {}'s {} (their state update and "
                            "rollback in verification are not priced); leave speculative out",
                            where, s.model.name, s.model.state.describe()));
  // vllm_v0_prefill_first leaves the decoders out of prompt steps; the speculating
  // decode step assumes every decoder verifies in every step, so the two do not combine.
  if (s.engine.scheduler == "vllm_v0_prefill_first")
    throw Error(fmt::format("{}: speculative decoding is modelled with the schedulers that run every decoder in "
                            "every step (vllm_v1, trtllm_no_evict, trtllm_max_utilization), not {} (engine.framework "
                            "{}); set engine.scheduler or another framework",
                            where, s.engine.scheduler, s.engine.framework));
  // MTP drafts with the checkpoint's own prediction modules: a model without them
  // (every dense Llama, Qwen, ...) cannot run it; EAGLE heads are trained separately.
  if (c.method == "mtp" && s.model.mtp_layers <= 0)
    throw Error(fmt::format("{}.method: mtp drafts with the model's own multi-token-prediction modules, and {} has "
                            "none (its config.json gives no num_nextn_predict_layers, or its model file no "
                            "mtp_layers); use eagle or draft_model",
                            where, s.model.name));
  if (c.head()) {
    c.drafter = std::make_shared<const ModelSpec>(speculative_head(s.model, c.method));
    return;
  }
  ModelSpec d;
  try {
    d = load_model(c.draft_model);
  } catch (const std::exception& ex) {
    throw Error(fmt::format("{}.draft_model: {}", where, ex.what()));
  }
  if (d.vocab != s.model.vocab)
    throw Error(fmt::format("{}.draft_model: {} has a vocabulary of {} tokens and the target {} of {}: a draft "
                                  "model must share the target's tokenizer",
                                  where, d.name, d.vocab, s.model.name, s.model.vocab));
  c.drafter = std::make_shared<const ModelSpec>(std::move(d));
}

void resolve_max_model_len(ConfigMap& eng, Setup& s) {
  EngineConfig& c = s.engine;
  if (c.max_model_len > s.model.max_context)
    throw Error(fmt::format("{}: max_model_len {} is longer than {}'s context length of {} tokens (the model "
                            "cannot attend beyond it; vLLM refuses this too): lower it or leave it out",
                            eng.where("max_model_len"), c.max_model_len, s.model.name, s.model.max_context));
  if (c.max_model_len <= 0) c.max_model_len = s.model.max_context;
  if (c.kind == "vllm" && !c.chunked_prefill && c.max_num_batched_tokens < c.max_model_len)
    throw Error(fmt::format("{}: max_num_batched_tokens ({}) is smaller than max_model_len ({}) with "
                            "chunked_prefill: false, so a long prompt could never be scheduled (vLLM refuses this "
                            "at start-up too): set max_num_batched_tokens to at least {}, lower max_model_len, or "
                            "enable chunked_prefill",
                            eng.where("chunked_prefill"), c.max_num_batched_tokens, c.max_model_len,
                            c.max_model_len));
}

void resolve_local_attention_kv(ConfigMap& eng, Setup& s) {
  EngineConfig& c = s.engine;
  if (!s.model.local.enabled() || !s.model.local.frees_keys() || !c.free_window_kv || !c.prefix_caching) return;
  // Prefix caching over per-layer window blocks is not modelled (batch_state.cpp
  // refuses the pair). When one of the two is only the framework preset's default,
  // the model still runs as its user asked for the other, and the change is said
  // out loud; a scenario that sets both explicitly is refused there.
  const bool prefix_set = has_key(eng, kPrefixCaching), window_set = has_key(eng, kFreeWindowKv);
  if (prefix_set && window_set) return;
  const std::string why = fmt::format(
      "{} has local attention ({}), and prefix caching together with freed window blocks is not modelled yet",
      s.model.name, s.model.local.describe());
  if (prefix_set) {
    c.free_window_kv = false;
    warn(fmt::format("{}: false for this run (the framework's default is true): {}; every layer keeps the whole "
                     "context's KV (an upper bound on its memory); set engine.prefix_caching: false to free the "
                     "window blocks instead",
                     eng.where(std::string(kFreeWindowKv.name)), why));
  } else {
    c.prefix_caching = false;
    warn(fmt::format("{}: false for this run (the framework's default is true): {}; no request reuses another's "
                     "prompt blocks; set engine.free_window_kv: false to keep prefix caching with full-context KV",
                     eng.where(std::string(kPrefixCaching.name)), why));
  }
}

// A model with state layers (layer_kinds.h) cannot reuse a cached prompt prefix: the
// attention layers' KV of the prefix is in the cache, but a state layer's state after it is
// not (vLLM disables prefix caching for such models unless it also caches states, which
// servesim does not model). When prefix caching is only the framework preset's default it is
// turned off, said out loud, and so is a scenario file's setting when the model was put in
// on the command line (--set model.name=...: the file chose it for another model); asked for
// explicitly for this model, the scenario is refused.
void resolve_state_layers(ConfigMap& eng, Setup& s, bool model_from_command_line) {
  EngineConfig& c = s.engine;
  if (!s.model.state.enabled() || !c.prefix_caching) return;
  const std::string key(kPrefixCaching.name);
  const std::string why = fmt::format("{} has {}, whose per-sequence state after a cached prefix is not cached, so "
                                      "prefix caching with it is not modelled",
                                      s.model.name, s.model.state.describe());
  const ConfigNode* set = eng.get(key);
  if (set && (set->from_edit() || !model_from_command_line))
    eng.fail(key, fmt::format("{}; set engine.prefix_caching: false", why));
  c.prefix_caching = false;
  warn(fmt::format("{}: false for this run (the {} is true): {}", eng.where(key),
                   set ? "scenario's, chosen for another model," : "framework's default", why));
}

}  // namespace servesim
