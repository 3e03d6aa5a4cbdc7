// The local runtimes' sections, engine.llama_cpp and engine.transformers (engine/
// local_runtime.h), and what they make of the engine servesim runs: each key declared
// once, read through its declaration, and mapped onto EngineConfig in
// resolve_local_runtime() once the model and the device are known.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "config/catalog_reader.h"
#include "config/local_engine.h"
#include "config/scenario_sections.h"
#include "cost/kv_size.h"
#include "cost/memory_plan.h"
#include "engine/framework_preset.h"
#include "util/error.h"
#include "util/units.h"
#include "util/warnings.h"

namespace servesim {
namespace {

constexpr double kTokensLimit = 100'000'000;
const LlamaCppConfig kLlama{};
const TransformersConfig kHf{};

// --- engine.llama_cpp ---
const Key kParallel{.name = "parallel", .type = KeyType::integer,
                    .doc = "slots: requests decoded together, with continuous batching (llama-server -np; Ollama "
                           "OLLAMA_NUM_PARALLEL)",
                    .spec = "LlamaCppConfig::parallel", .unit = "slots",
                    .default_number = static_cast<double>(kLlama.parallel),
                    .default_note = "llama.cpp: 1; ollama: 4 when four slots' context fits, else 1",
                    .min = 1, .max = 4096, .why = "slots of one server"};
const Key kCtxSize{.name = "ctx_size", .type = KeyType::integer,
                   .doc = "KV cache tokens allocated up front for all slots together (llama-server -c; Ollama "
                          "num_ctx per slot)",
                   .spec = "LlamaCppConfig::ctx_size", .unit = "tokens",
                   .default_number = static_cast<double>(kLlama.ctx_size),
                   .default_note = "4096 (llama.cpp's common default; Ollama's num_ctx 4096 per slot)",
                   .min = 16, .max = kTokensLimit, .why = "tokens of KV cache"};
const Key kKvUnified{.name = "kv_unified", .type = KeyType::boolean,
                     .doc = "one KV pool shared by all slots (--kv-unified): a request may use the whole ctx_size; "
                            "false: each slot gets ctx_size / parallel tokens",
                     .spec = "LlamaCppConfig::kv_unified", .default_bool = kLlama.kv_unified};
const Key kFlashAttention{.name = "flash_attention", .type = KeyType::boolean,
                          .doc = "fused attention kernel (-fa); off: KQ, softmax and KQV as separate kernels over the "
                                 "materialised scores",
                          .spec = "LlamaCppConfig::flash_attention", .default_bool = kLlama.flash_attention,
                          .default_note = "llama.cpp: true (llama-server's -fa auto turns it on on CUDA, Metal and "
                                          "CPU); ollama: false (OLLAMA_FLASH_ATTENTION unset)"};
const Key kUbatchSize{.name = "ubatch_size", .type = KeyType::integer,
                      .doc = "tokens per forward pass (-ub): a prompt is processed in steps of this many tokens, "
                             "with the other slots' decodes",
                      .spec = "LlamaCppConfig::ubatch_size", .unit = "tokens",
                      .default_number = static_cast<double>(kLlama.ubatch_size), .min = 1, .max = 65536,
                      .why = "tokens of one forward pass"};
const Key kBatchSize{.name = "batch_size", .type = KeyType::integer,
                     .doc = "tokens per llama_decode call (-b), split into ubatches; at least ubatch_size",
                     .spec = "LlamaCppConfig::batch_size", .unit = "tokens",
                     .default_number = static_cast<double>(kLlama.batch_size), .min = 1, .max = 1'000'000,
                     .why = "tokens of one llama_decode call"};
const Key kNGpuLayers{.name = "n_gpu_layers", .type = KeyType::integer,
                      .doc = "layers on the device (-ngl); -1: all. Fewer layers on the device than the model has "
                             "is not modelled yet: servesim refuses it",
                      .spec = "LlamaCppConfig::n_gpu_layers", .unit = "layers",
                      .default_number = static_cast<double>(kLlama.n_gpu_layers), .min = -1, .max = 100000,
                      .why = "a layer count, -1 for all"};

// --- engine.llama_cpp.kernels: the back end's kernel parameters (cost/ggml_kernels.h) ---
const Key kKernels{.name = "kernels", .type = KeyType::section,
                   .doc = "overrides of the ggml back end's fitted kernel parameters, to calibrate a device of your own "
                          "(`servesim llama-bench --data`)",
                   .spec = "LlamaCppConfig::kernels"};
const Key kMatvecMemory{.name = "matvec_memory", .type = KeyType::quantity,
                        .doc = "fraction of memory bandwidth the mat-vec (decode) kernels stream weights at",
                        .spec = "GgmlKernels::matvec_memory", .dimension = Dimension::fraction,
                        .default_note = "the back end's (cuda 0.9, metal 0.9, cpu 0.7; cost/ggml_kernels.cpp)",
                        .min = 0.05, .max = 1.0, .why = "a fraction of the bandwidth"};
const Key kMatvecAlu{.name = "matvec_alu_per_weight", .type = KeyType::number,
                     .doc = "FP32-operation equivalents a quantized mat-vec kernel spends per weight per token "
                            "(unpacking, scaling, multiplying), on the device's FP32 units",
                     .spec = "GgmlKernels::matvec_alu_per_weight", .default_note = "the back end's", .min = 0,
                     .max = 100, .why = "operations per weight"};
const Key kMmqRate{.name = "mmq_flops_per_sm_cycle", .type = KeyType::number,
                   .doc = "CUDA: quantized mat-mat (MMQ, prompt processing) FLOP per SM clock cycle",
                   .spec = "GgmlKernels::mmq_flops_per_sm_cycle", .default_note = "the back end's", .min = 0,
                   .max = 1e5, .why = "FLOP per SM-cycle"};
const Key kGgmlGemmCompute{.name = "gemm_compute", .type = KeyType::quantity,
                           .doc = "mat-mat (prompt processing): fraction of the fp16 peak (CPU quantized: the int8 "
                                  "peak) reached",
                           .spec = "GgmlKernels::gemm_compute", .dimension = Dimension::fraction,
                           .default_note = "the back end's", .min = 0.01, .max = 1.0, .why = "a fraction of peak"};
const Key kGgmlDequant{.name = "dequant_compute", .type = KeyType::quantity,
                       .doc = "Metal and CPU quantized mat-mat: fraction of the F16 rate kept after dequantising",
                       .spec = "GgmlKernels::dequant_compute", .dimension = Dimension::fraction,
                       .default_note = "the back end's", .min = 0.05, .max = 1.0, .why = "a fraction of the rate"};
const Key kKernelTime{.name = "kernel_time", .type = KeyType::quantity,
                      .doc = "fixed time per kernel of a step (launch, encoding, tail)",
                      .spec = "GgmlKernels::kernel_time", .dimension = Dimension::time,
                      .default_note = "the back end's", .min = 0, .max = 1e-3,
                      .why = "microseconds per kernel, not milliseconds"};

// --- engine.transformers ---
const Key kHfBatchSize{.name = "batch_size", .type = KeyType::integer,
                       .doc = "requests per generate() call: a static batch, padded to its longest prompt, returned "
                              "when its longest request is done",
                       .spec = "TransformersConfig::batch_size", .unit = "requests",
                       .default_number = static_cast<double>(kHf.batch_size), .min = 1, .max = 65536,
                       .why = "requests of one generate() call"};
const Key kHfAttention{.name = "attn_implementation", .type = KeyType::choice,
                       .doc = "sdpa (torch's fused scaled_dot_product_attention) or eager (scores materialised, "
                              "softmax and value product as separate kernels)",
                       .spec = "TransformersConfig::sdpa", .default_text = "sdpa", .choices = {"sdpa", "eager"}};
const Key kHfStaticCache{.name = "static_cache", .type = KeyType::boolean,
                         .doc = "cache_implementation \"static\": the KV cache preallocated at fixed shapes (what "
                                "torch.compile needs to replay CUDA graphs)",
                         .spec = "TransformersConfig::static_cache", .default_bool = kHf.static_cache};
const Key kHfCompile{.name = "torch_compile", .type = KeyType::boolean,
                     .doc = "torch.compile of the forward; with static_cache its kernels are replayed from CUDA "
                            "graphs (no per-kernel Python launch)",
                     .spec = "TransformersConfig::torch_compile", .default_bool = kHf.torch_compile};

bool is_ollama(const EngineConfig& c) { return c.framework == "ollama"; }

}  // namespace

const KeySection& llama_cpp_key_section() {
  static const KeySection s{.path = "engine.llama_cpp",
                            .doc = "llama.cpp's server (engine/local_runtime.h states what servesim makes of it)",
                            .keys = {&kParallel, &kCtxSize, &kKvUnified, &kFlashAttention, &kUbatchSize, &kBatchSize,
                                     &kNGpuLayers, &kKernels}};
  return s;
}

const KeySection& llama_cpp_kernels_key_section() {
  static const KeySection s{.path = "engine.llama_cpp.kernels",
                            .doc = "the ggml back end's kernel parameters (cost/ggml_kernels.h)",
                            .keys = {&kMatvecMemory, &kMatvecAlu, &kMmqRate, &kGgmlGemmCompute, &kGgmlDequant,
                                     &kKernelTime}};
  return s;
}

const KeySection& transformers_key_section() {
  static const KeySection s{.path = "engine.transformers",
                            .doc = "Transformers' generate() (engine/local_runtime.h states what servesim makes of it)",
                            .keys = {&kHfBatchSize, &kHfAttention, &kHfStaticCache, &kHfCompile}};
  return s;
}

// Function-local statics: engine_key_section() (another file) lists them in its own static.
const Key& llama_cpp_section_key() {
  static const Key k{.name = "llama_cpp", .type = KeyType::section,
                     .doc = "llama.cpp's server settings (engine.framework llama.cpp or ollama)",
                     .spec = "EngineConfig::llama_cpp"};
  return k;
}
const Key& transformers_section_key() {
  static const Key k{.name = "transformers", .type = KeyType::section,
                     .doc = "Hugging Face Transformers generate() settings (engine.framework transformers)",
                     .spec = "EngineConfig::transformers"};
  return k;
}

void read_local_runtime_sections(ConfigMap& e, EngineConfig& c, const FrameworkPreset& preset) {
  const std::string llama(llama_cpp_section_key().name), hf(transformers_section_key().name);
  if (e.has(llama) && preset.runtime != "llama.cpp")
    e.fail(llama, fmt::format("engine.llama_cpp is for engine.framework llama.cpp or ollama, not {}", c.framework));
  if (e.has(hf) && preset.runtime != "transformers")
    e.fail(hf, fmt::format("engine.transformers is for engine.framework transformers, not {}", c.framework));
  if (preset.runtime == "llama.cpp") {
    ConfigMap m = e.map(llama);
    LlamaCppConfig& l = c.llama_cpp;
    l.parallel = has_key(m, kParallel) ? read_integer(m, kParallel) : (is_ollama(c) ? 0 : kLlama.parallel);
    l.ctx_size = read_integer(m, kCtxSize);
    l.kv_unified = read_boolean(m, kKvUnified);
    l.flash_attention = has_key(m, kFlashAttention) ? read_boolean(m, kFlashAttention) : !is_ollama(c);
    l.ubatch_size = read_integer(m, kUbatchSize);
    l.batch_size = read_integer(m, kBatchSize);
    l.n_gpu_layers = read_integer(m, kNGpuLayers);
    ConfigMap km = m.map(std::string(kKernels.name));
    auto opt = [&km](const Key& k, std::optional<double>& v) {
      if (has_key(km, k)) v = k.type == KeyType::number ? read_number(km, k) : read_quantity(km, k);
    };
    opt(kMatvecMemory, l.kernels.matvec_memory);
    opt(kMatvecAlu, l.kernels.matvec_alu_per_weight);
    opt(kMmqRate, l.kernels.mmq_flops_per_sm_cycle);
    opt(kGgmlGemmCompute, l.kernels.gemm_compute);
    opt(kGgmlDequant, l.kernels.dequant_compute);
    opt(kKernelTime, l.kernels.kernel_time);
    km.finish();
    if (l.batch_size < l.ubatch_size)
      m.fail(std::string(kBatchSize.name),
             fmt::format("batch_size ({}) is below ubatch_size ({}): a llama_decode call holds whole ubatches",
                         l.batch_size, l.ubatch_size));
    m.finish();
  }
  if (preset.runtime == "transformers") {
    ConfigMap m = e.map(hf);
    TransformersConfig& t = c.transformers;
    t.batch_size = read_integer(m, kHfBatchSize);
    t.sdpa = read_choice(m, kHfAttention) == "sdpa";
    t.static_cache = read_boolean(m, kHfStaticCache);
    t.torch_compile = read_boolean(m, kHfCompile);
    m.finish();
  }
}

namespace {

// Engine keys a local runtime sets from its own settings: writing them too would be two
// answers to one question, so the scenario is told which key to use.
// engine.kind may still be written when it names the runtime's own kind.
void refuse_engine_keys(ConfigMap& eng, const EngineConfig& c, const std::string& kind,
                        std::initializer_list<std::pair<const char*, const char*>> keys) {
  for (const auto& [key, instead] : keys) {
    if (!eng.has(key)) continue;
    if (std::string_view(key) == "kind" && c.kind == kind) continue;
    eng.fail(key, fmt::format("engine.framework {} sets {} from {}; set that instead", c.framework, key, instead));
  }
}

// Bytes the KV cache of `tokens` tokens takes on the device, and the weights, for the fit check.
double kv_bytes(const Setup& s, std::int64_t tokens) {
  return gpu_kv_bytes_per_token(s.model, shard_shape(s.parallelism, s.model), s.resolved.kv_cache) *
         static_cast<double>(tokens);
}

void resolve_llama_cpp(ConfigMap& eng, Setup& s) {
  EngineConfig& c = s.engine;
  LlamaCppConfig& l = c.llama_cpp;
  refuse_engine_keys(eng, c, "vllm",
                     {{"kind", "the framework (continuous batching)"},
                      {"max_num_seqs", "engine.llama_cpp.parallel"},
                      {"max_num_batched_tokens", "engine.llama_cpp.ubatch_size"},
                      {"num_gpu_blocks_override", "engine.llama_cpp.ctx_size"},
                      {"max_model_len", "engine.llama_cpp.ctx_size (per slot: ctx_size / parallel)"},
                      {"chunked_prefill", "the framework (prompts run in ubatches)"},
                      {"attention_kernel", "engine.llama_cpp.flash_attention"},
                      {"gpu_memory_utilization", "engine.llama_cpp.ctx_size (llama.cpp allocates what it needs)"}});
  if (s.parallelism.tp > 1 || s.parallelism.pp > 1)
    throw Error(fmt::format("{}: engine.framework {} on several devices (llama.cpp's -sm layer/row) is not modelled; "
                            "use parallelism.tp 1 and pp 1 (replicas are separate servers)",
                            eng.where(), c.framework));
  if (l.n_gpu_layers >= 0 && l.n_gpu_layers < s.model.layers && s.gpu.family != DeviceFamily::cpu)
    throw Error(fmt::format("{}: n_gpu_layers {} puts {} of {}'s {} layers on the host CPU: partial offload is not "
                            "modelled yet (servesim would price them on the device); use -1 (all layers on {}) or "
                            "hardware.gpu set to a CPU (cpu-epyc-9654, cpu-xeon-8480) for CPU-only",
                            eng.where("llama_cpp.n_gpu_layers"), l.n_gpu_layers, s.model.layers - l.n_gpu_layers,
                            s.model.name, s.model.layers, s.gpu.name));
  // Ollama's OLLAMA_NUM_PARALLEL default: 4 slots when four slots' context fits beside the
  // weights, else 1 (Ollama FAQ). Its num_ctx is per slot, so the KV holds parallel x ctx_size.
  const MemoryPlan weights_only = plan_setup_memory(s, make_cost_model(s));
  const double usable = s.gpu.usable_memory();
  if (is_ollama(c)) {
    if (l.parallel == 0)
      l.parallel = weights_only.weights + kv_bytes(s, 4 * l.ctx_size) <= usable ? 4 : 1;
    l.ctx_size *= l.parallel;  // Ollama multiplies num_ctx by the slots (FAQ: parallel requests grow the context)
    l.kv_unified = false;
  }
  if (l.ctx_size % l.parallel != 0 && !l.kv_unified)
    warn(fmt::format("{}: ctx_size {} is not a multiple of parallel {}: each slot gets {} tokens, as llama-server "
                     "divides it",
                     eng.where("llama_cpp.ctx_size"), l.ctx_size, l.parallel, l.ctx_size / l.parallel));
  c.kind = "vllm";
  c.scheduler = "vllm_v1";
  c.max_num_seqs = l.parallel;
  c.max_num_batched_tokens = l.ubatch_size;
  c.chunked_prefill = true;
  c.block_size = 16;
  // KV for ctx_size tokens is allocated at start-up, whatever the device could hold more of.
  c.num_gpu_blocks_override = (l.ctx_size + c.block_size - 1) / c.block_size;
  const std::int64_t per_request = l.kv_unified ? l.ctx_size : l.ctx_size / l.parallel;
  c.max_model_len = std::min<std::int64_t>(per_request, s.model.max_context);
  if (per_request > s.model.max_context)
    warn(fmt::format("{}: {} tokens per slot is more than {}'s context of {}; a request stops at the model's context",
                     eng.where("llama_cpp.ctx_size"), per_request, s.model.name, s.model.max_context));
  c.attention = l.flash_attention ? AttentionKernel::flash : AttentionKernel::naive;
  c.gpu_memory_utilization = 1.0;
  c.runtime_overhead_bytes = 0;
  // The back end's kernels replace the GPU profile's GEMM pricing and fixed overheads.
  c.ggml = ggml_backend_kernels(ggml_backend_for(s.gpu));
  const GgmlKernelOverrides& o = l.kernels;
  c.ggml.matvec_memory = o.matvec_memory.value_or(c.ggml.matvec_memory);
  c.ggml.matvec_alu_per_weight = o.matvec_alu_per_weight.value_or(c.ggml.matvec_alu_per_weight);
  c.ggml.mmq_flops_per_sm_cycle = o.mmq_flops_per_sm_cycle.value_or(c.ggml.mmq_flops_per_sm_cycle);
  c.ggml.gemm_compute = o.gemm_compute.value_or(c.ggml.gemm_compute);
  c.ggml.dequant_compute = o.dequant_compute.value_or(c.ggml.dequant_compute);
  c.ggml.kernel_time = o.kernel_time.value_or(c.ggml.kernel_time);
  s.gpu.efficiency.kernel_overhead = c.ggml.kernel_time;
  s.gpu.efficiency.elementwise_overhead = c.ggml.kernel_time;
  s.gpu.efficiency.step_overhead = 0;
  // What llama.cpp allocates must fit the memory a process may hold: weights, KV for ctx_size
  // and the compute buffer of one ubatch (activations of ubatch_size tokens).
  const double kv = kv_bytes(s, l.ctx_size);
  MemoryConfig one_ubatch;
  one_ubatch.max_num_batched_tokens = l.ubatch_size;
  one_ubatch.max_num_seqs = l.parallel;
  const MemoryPlan p = plan_memory(make_cost_model(s), one_ubatch);
  const double need = p.weights + kv + p.activations;
  if (need > usable)
    throw Error(fmt::format(
        "{}: {} ({} weights) with a {}-token context does not fit {}: weights {} + KV cache {} + compute buffer {} = {} "
        "but a process may hold {} ({} of {}{}); use a smaller GGUF type, a smaller ctx_size or a device with more "
        "memory",
        eng.where(), s.model.name, weight_format_name(s.resolved), l.ctx_size, s.gpu.name, format_bytes(p.weights),
        format_bytes(kv), format_bytes(p.activations), format_bytes(need), format_bytes(usable),
        fmt::format("{:.0f}%", 100 * s.gpu.usable_memory_fraction), format_bytes(s.gpu.memory_capacity),
        s.gpu.usable_memory_fraction < 1 ? ", the rest kept by the OS" : ""));
  if (s.gpu.family == DeviceFamily::cpu && s.gpu.cpu.sockets > 1)
    warn(fmt::format("{}: {} sockets: llama.cpp without NUMA placement (--numa distribute) reads most weights from "
                     "one socket's memory; servesim prices the sum of the sockets' bandwidth, an upper bound",
                     eng.where(), s.gpu.cpu.sockets));
}

void resolve_transformers(ConfigMap& eng, Setup& s) {
  EngineConfig& c = s.engine;
  const TransformersConfig& t = c.transformers;
  refuse_engine_keys(eng, c, "static",
                     {{"kind", "the framework (static batches)"},
                      {"max_num_seqs", "engine.transformers.batch_size"},
                      {"attention_kernel", "engine.transformers.attn_implementation"}});
  c.kind = "static";
  c.max_num_seqs = t.batch_size;
  c.pad_to_longest = true;
  c.release_at_batch_end = true;
  c.attention = t.sdpa ? AttentionKernel::flash : AttentionKernel::naive;
  // With a static cache and torch.compile the decode step replays CUDA graphs: no per-kernel
  // Python launch (set kernel_launch_overhead to keep one).
  if (t.static_cache && t.torch_compile && !eng.has("kernel_launch_overhead")) c.kernel_launch_overhead = 0;
  if (t.torch_compile && !t.static_cache)
    warn(fmt::format("{}: torch_compile without static_cache recompiles as the dynamic cache grows; servesim keeps "
                     "the eager launch cost (set static_cache: true for CUDA-graph replay)",
                     eng.where("transformers.torch_compile")));
  if (s.resolved.gguf != GgufType::none) {
    // Transformers loads GGUF files by dequantizing them (its gguf integration): the model runs in 16 bits.
    warn(fmt::format("{}: Transformers dequantizes a GGUF file ({}) to 16 bits when it loads it; running the "
                     "weights as fp16",
                     eng.where(), gguf_type_name(s.resolved.gguf)));
    s.precision.gguf = GgufType::none;
    s.precision.weights = DType::fp16;
    s.precision.activations = DType::fp16;
    s.resolved = resolve_precision(s.precision, s.gpu);
  }
}

}  // namespace

void resolve_local_runtime(ConfigMap& eng, Setup& s) {
  const FrameworkPreset& preset = *find_framework_preset(s.engine.framework);
  if (preset.runtime == "llama.cpp") resolve_llama_cpp(eng, s);
  if (preset.runtime == "transformers") resolve_transformers(eng, s);
}

}  // namespace servesim
