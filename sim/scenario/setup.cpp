#include "scenario/setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>

#include "config/catalog_reader.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"
#include "config/config_ranges.h"

namespace servesim {
namespace {

// Relative paths inside a scenario are relative to the scenario file's folder
// when they exist there, else to the working directory.
std::string resolve_relative(const std::string& ref, const std::string& scenario_file) {
  if (!looks_like_path(ref) || ref.empty() || ref[0] == '/') return ref;
  const auto slash = scenario_file.rfind('/');
  if (slash != std::string::npos) {
    const std::string candidate = scenario_file.substr(0, slash + 1) + ref;
    if (file_exists(candidate)) return candidate;
  }
  return ref;
}

template <typename F>
auto with_location(const std::string& where, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
}

// Bounds of engine counts (see parse_engine).
constexpr std::int64_t kMaxNumSeqs = 1'000'000;
constexpr std::int64_t kMaxBatchedTokens = 100'000'000;
constexpr std::int64_t kMaxContextTokens = 100'000'000;
constexpr std::int64_t kMaxKvBlocks = 100'000'000;
constexpr std::int64_t kMaxReplicas = 10'000;

// vLLM accepts only these KV block sizes (vllm/config/cache.py, CacheConfig:
// BlockSize = Literal[1, 8, 16, 32, 64, 128], 256 added in v0.11); the engine
// here relies on a power of two (block arithmetic uses shifts and masks).
int block_size_of(ConfigMap& e) {
  static constexpr std::int64_t kSizes[] = {1, 8, 16, 32, 64, 128, 256};
  const std::int64_t b = e.integer("block_size");
  if (std::find(std::begin(kSizes), std::end(kSizes), b) == std::end(kSizes))
    throw Error(fmt::format("{}: block_size must be one of 1, 8, 16, 32, 64, 128, 256 tokens (the sizes vLLM's "
                            "CacheConfig accepts), got {}",
                            e.where("block_size"), b));
  return static_cast<int>(b);
}

EngineConfig parse_engine(ConfigMap& e) {
  EngineConfig c;
  c.kind = e.string("kind", "vllm");
  if (c.kind != "vllm" && c.kind != "static") {
    throw Error(fmt::format("{}: unknown engine '{}'{} (valid: vllm, static)", e.where("kind"), c.kind,
                            did_you_mean(c.kind, {"vllm", "static"})));
  }
  // Each count is range-checked as read, before any narrowing: the bounds are far
  // beyond real deployments and keep every derived count inside int64/int.
  c.max_num_seqs = integer_in(e, "max_num_seqs", c.max_num_seqs, {1, kMaxNumSeqs},
                              "more sequences than any GPU could batch");
  c.max_num_batched_tokens = integer_in(e, "max_num_batched_tokens", c.max_num_batched_tokens,
                                        {1, kMaxBatchedTokens}, "tokens per engine step");
  if (e.has("block_size")) c.block_size = block_size_of(e);
  c.gpu_memory_utilization = e.quantity("gpu_memory_utilization", Dimension::fraction, c.gpu_memory_utilization);
  c.prefix_caching = e.boolean("prefix_caching", c.prefix_caching);
  c.chunked_prefill = e.boolean("chunked_prefill", c.chunked_prefill);
  // 0 (the default) means "the model's context length", resolved in parse_setup.
  c.max_model_len = integer_in(e, "max_model_len", 0, {1, kMaxContextTokens}, "tokens of one sequence");
  c.num_gpu_blocks_override = integer_in(e, "num_gpu_blocks_override", 0, {0, kMaxKvBlocks},
                                         "KV blocks per replica, 0 = no override; the engine keeps state per block");
  const RealRange non_negative{0.0, std::numeric_limits<double>::infinity()};
  c.runtime_overhead_bytes =
      quantity_in(e, "runtime_overhead", Dimension::bytes, c.runtime_overhead_bytes, non_negative);
  c.step_cpu_overhead = quantity_in(e, "step_cpu_overhead", Dimension::time, c.step_cpu_overhead, non_negative);
  c.per_seq_cpu_overhead =
      quantity_in(e, "per_seq_cpu_overhead", Dimension::time, c.per_seq_cpu_overhead, non_negative);
  c.frontend_latency = quantity_in(e, "frontend_latency", Dimension::time, c.frontend_latency, non_negative);
  c.async_scheduling = e.boolean("async_scheduling", c.async_scheduling);
  c.cpu_offload_bytes = quantity_in(e, "cpu_offload", Dimension::bytes, 0.0, non_negative);
  c.max_queue_memory_bytes = e.quantity("max_queue_memory", Dimension::bytes, 0.0);
  if (!(c.max_queue_memory_bytes >= 0))
    throw Error(fmt::format("{}: must be a size such as \"4 GiB\" (0 = a quarter of this machine's memory), got {}",
                            e.where("max_queue_memory"), c.max_queue_memory_bytes));
  const std::string attn = e.string("attention_kernel", "flash");
  if (attn == "flash") c.attention = AttentionKernel::flash;
  else if (attn == "naive") c.attention = AttentionKernel::naive;
  else
    throw Error(fmt::format("{}: unknown attention kernel '{}'{} (valid: flash, naive)", e.where("attention_kernel"),
                            attn, did_you_mean(attn, {"flash", "naive"})));
  if (c.gpu_memory_utilization <= 0 || c.gpu_memory_utilization > 1)
    throw Error(fmt::format("{}: must be in (0, 1], got {}", e.where("gpu_memory_utilization"), c.gpu_memory_utilization));
  e.finish();
  return c;
}

// max_model_len defaults to the model's context length and may not exceed it
// (vLLM raises at start-up unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is set). Without
// chunked prefill a prompt must fit one step's token budget, so vLLM also
// refuses max_num_batched_tokens < max_model_len then (SchedulerConfig
// verification): the engine would otherwise wait forever for a step that fits.
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

}  // namespace

Setup parse_setup(ConfigMap& doc) {
  Setup s;
  ConfigMap hw = doc.map("hardware");
  const std::string gpu_ref = resolve_relative(hw.string("gpu"), doc.file());
  s.gpu = with_location(hw.where("gpu"), [&] { return load_gpu(gpu_ref); });
  ConfigMap eff = hw.map("efficiency");
  apply_efficiency_overrides(eff, s.gpu.efficiency);
  ConfigMap ic = hw.map("interconnect");
  apply_interconnect_overrides(ic, s.gpu);
  hw.finish();

  ConfigMap md = doc.map("model");
  const std::string model_ref = resolve_relative(md.string("name"), doc.file());
  s.model = with_location(md.where("name"), [&] { return load_model(model_ref); });
  const DType native = s.model.native_dtype == DType::fp32 ? DType::bf16 : s.model.native_dtype;
  s.precision.weights = parse_dtype(md.string("weights", dtype_name(native)), md.where("weights"));
  const DType default_act = default_activations(s.precision.weights, s.gpu);
  // One meaning for a weight shorthand (precision.h default_activations): weights
  // given on the command line (--set, sweep/whatif --vary, plan candidates) bring
  // their default compute precision with them, replacing the file's activations
  // unless activations are given on the command line too. So `--set
  // model.weights=fp8` and `plan --candidates-weights fp8` both mean W8A8 on an
  // H100, whatever the file pinned for its own weights.
  const ConfigNode* weights_node = md.get("weights");
  const ConfigNode* act_node = md.get("activations");
  const bool file_act_overridden =
      weights_node && weights_node->from_edit() && act_node && !act_node->from_edit();
  s.precision.activations = file_act_overridden ? default_act
                                                : parse_dtype(md.string("activations", dtype_name(default_act)),
                                                              md.where("activations"));
  s.precision.kv_cache = parse_dtype(md.string("kv_cache", s.precision.activations == DType::fp16 ? "fp16" : "bf16"),
                                     md.where("kv_cache"));
  s.precision.emulate = md.boolean("emulate", false);
  s.resolved = with_location(md.where(), [&] { return resolve_precision(s.precision, s.gpu); });
  md.finish();

  ConfigMap par = doc.map("parallelism");
  // Checked before the cast to int. No model has more than 1024 attention heads or
  // layers to split; each replica is simulated with its own engine and KV cache,
  // so their number bounds the run's memory.
  s.parallelism.tp = static_cast<int>(integer_in(par, "tp", 1, {1, 1024}, "GPUs in a tensor-parallel group"));
  s.parallelism.pp = static_cast<int>(integer_in(par, "pp", 1, {1, 1024}, "pipeline stages"));
  s.parallelism.ep = static_cast<int>(integer_in(par, "ep", 1, {1, 1024}, "GPUs in an expert-parallel group"));
  s.parallelism.replicas = static_cast<int>(integer_in(
      par, "replicas", 1, {1, kMaxReplicas}, "each replica is simulated with its own engine and KV cache"));
  s.router = parse_router(par.string("router", "least_outstanding"), par.where("router"));
  with_location(par.where(), [&] {
    validate_parallelism(s.parallelism, s.model);
    return 0;
  });
  par.finish();

  ConfigMap eng = doc.map("engine");
  s.engine = parse_engine(eng);
  resolve_max_model_len(eng, s);
  return s;
}

CostModel make_cost_model(const Setup& s) {
  return CostModel(s.gpu, s.model, s.resolved, s.parallelism, s.engine.attention);
}

}  // namespace servesim
