#include "scenario/setup.h"

#include <fmt/format.h>

#include "hardware/gpu_catalog.h"
#include "model/model_catalog.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

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

EngineConfig parse_engine(YamlMap& e) {
  EngineConfig c;
  c.kind = e.string("kind", "vllm");
  if (c.kind != "vllm" && c.kind != "static") {
    throw Error(fmt::format("{}: unknown engine '{}'{} (valid: vllm, static)", e.where("kind"), c.kind,
                            did_you_mean(c.kind, {"vllm", "static"})));
  }
  c.max_num_seqs = e.integer("max_num_seqs", c.max_num_seqs);
  c.max_num_batched_tokens = e.integer("max_num_batched_tokens", c.max_num_batched_tokens);
  c.block_size = static_cast<int>(e.integer("block_size", c.block_size));
  c.gpu_memory_utilization = e.quantity("gpu_memory_utilization", Dimension::fraction, c.gpu_memory_utilization);
  c.prefix_caching = e.boolean("prefix_caching", c.prefix_caching);
  c.chunked_prefill = e.boolean("chunked_prefill", c.chunked_prefill);
  c.max_model_len = e.integer("max_model_len", 0);
  c.num_gpu_blocks_override = e.integer("num_gpu_blocks_override", 0);
  c.runtime_overhead_bytes = e.quantity("runtime_overhead", Dimension::bytes, c.runtime_overhead_bytes);
  c.step_cpu_overhead = e.quantity("step_cpu_overhead", Dimension::time, c.step_cpu_overhead);
  c.per_seq_cpu_overhead = e.quantity("per_seq_cpu_overhead", Dimension::time, c.per_seq_cpu_overhead);
  c.frontend_latency = e.quantity("frontend_latency", Dimension::time, c.frontend_latency);
  c.async_scheduling = e.boolean("async_scheduling", c.async_scheduling);
  c.cpu_offload_bytes = e.quantity("cpu_offload", Dimension::bytes, 0.0);
  const std::string attn = e.string("attention_kernel", "flash");
  if (attn == "flash") c.attention = AttentionKernel::flash;
  else if (attn == "naive") c.attention = AttentionKernel::naive;
  else
    throw Error(fmt::format("{}: unknown attention kernel '{}'{} (valid: flash, naive)", e.where("attention_kernel"),
                            attn, did_you_mean(attn, {"flash", "naive"})));
  auto positive = [&](const char* key, double v) {
    if (v <= 0) throw Error(fmt::format("{}: must be positive, got {}", e.where(key), v));
  };
  positive("max_num_seqs", static_cast<double>(c.max_num_seqs));
  positive("max_num_batched_tokens", static_cast<double>(c.max_num_batched_tokens));
  positive("block_size", c.block_size);
  if (c.gpu_memory_utilization <= 0 || c.gpu_memory_utilization > 1)
    throw Error(fmt::format("{}: must be in (0, 1], got {}", e.where("gpu_memory_utilization"), c.gpu_memory_utilization));
  e.finish();
  return c;
}

}  // namespace

Setup parse_setup(YamlMap& doc) {
  Setup s;
  YamlMap hw = doc.map("hardware");
  const std::string gpu_ref = resolve_relative(hw.string("gpu"), doc.file());
  s.gpu = with_location(hw.where("gpu"), [&] { return load_gpu(gpu_ref); });
  YamlMap eff = hw.map("efficiency");
  apply_efficiency_overrides(eff, s.gpu.efficiency);
  YamlMap ic = hw.map("interconnect");
  apply_interconnect_overrides(ic, s.gpu);
  hw.finish();

  YamlMap md = doc.map("model");
  const std::string model_ref = resolve_relative(md.string("name"), doc.file());
  s.model = with_location(md.where("name"), [&] { return load_model(model_ref); });
  const DType native = s.model.native_dtype == DType::fp32 ? DType::bf16 : s.model.native_dtype;
  s.precision.weights = parse_dtype(md.string("weights", dtype_name(native)), md.where("weights"));
  const DType default_act = dtype_bytes(s.precision.weights) >= 2.0 ? s.precision.weights
                            : (s.precision.weights == DType::fp8 && s.gpu.supports(DType::fp8)) ? DType::fp8
                                                                                                : DType::bf16;
  s.precision.activations = parse_dtype(md.string("activations", dtype_name(default_act)), md.where("activations"));
  s.precision.kv_cache = parse_dtype(md.string("kv_cache", s.precision.activations == DType::fp16 ? "fp16" : "bf16"),
                                     md.where("kv_cache"));
  s.precision.emulate = md.boolean("emulate", false);
  s.resolved = with_location(md.where(), [&] { return resolve_precision(s.precision, s.gpu); });
  md.finish();

  YamlMap par = doc.map("parallelism");
  s.parallelism.tp = static_cast<int>(par.integer("tp", 1));
  s.parallelism.pp = static_cast<int>(par.integer("pp", 1));
  s.parallelism.ep = static_cast<int>(par.integer("ep", 1));
  s.parallelism.replicas = static_cast<int>(par.integer("replicas", 1));
  s.router = parse_router(par.string("router", "least_outstanding"), par.where("router"));
  with_location(par.where(), [&] {
    validate_parallelism(s.parallelism, s.model);
    return 0;
  });
  par.finish();

  YamlMap eng = doc.map("engine");
  s.engine = parse_engine(eng);
  if (s.engine.max_model_len <= 0) s.engine.max_model_len = s.model.max_context;
  return s;
}

CostModel make_cost_model(const Setup& s) {
  return CostModel(s.gpu, s.model, s.resolved, s.parallelism, s.engine.attention);
}

}  // namespace servesim
