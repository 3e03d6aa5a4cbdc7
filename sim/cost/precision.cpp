#include "cost/precision.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

std::string ResolvedPrecision::describe() const {
  auto bits = [](DType t) { return static_cast<int>(dtype_bytes(t) * 8); };
  if (gguf != GgufType::none)
    return fmt::format("GGUF {} weights ({} compute{}{}), {} KV", gguf_type_name(gguf), dtype_name(compute),
                       weight_only ? ", weight-only dequant" : "", emulated ? ", emulated" : "", dtype_name(kv_cache));
  std::string s = fmt::format("W{}A{} ({} weights, {} compute{}{}), {} KV", bits(weights), bits(compute),
                              dtype_name(weights), dtype_name(compute), weight_only ? ", weight-only dequant" : "",
                              emulated ? ", emulated" : "", dtype_name(kv_cache));
  return s;
}

DType default_activations(DType weights, const GpuSpec& gpu) {
  if (dtype_bytes(weights) >= 2.0) return weights;
  if (weights == DType::fp8 && gpu.supports(DType::fp8)) return DType::fp8;
  return DType::bf16;
}

std::string weight_format_name(const PrecisionSpec& p) {
  return p.gguf != GgufType::none ? gguf_type_name(p.gguf) : dtype_name(p.weights);
}
std::string weight_format_name(const ResolvedPrecision& p) {
  return p.gguf != GgufType::none ? gguf_type_name(p.gguf) : dtype_name(p.weights);
}

DType gguf_carrier_dtype(GgufType t) {
  switch (t) {
    case GgufType::none:
    case GgufType::f16: return DType::fp16;
    case GgufType::q8_0: return DType::int8;
    case GgufType::q6_k:
    case GgufType::q5_k_m:
    case GgufType::q4_k_m:
    case GgufType::q4_0: return DType::int4;
  }
  return DType::fp16;
}

ResolvedPrecision resolve_precision(const PrecisionSpec& p, const GpuSpec& gpu) {
  ResolvedPrecision r;
  r.weights = p.weights;
  r.gguf = p.gguf;
  r.kv_cache = p.kv_cache;
  if (p.kv_cache != DType::fp16 && p.kv_cache != DType::bf16 && p.kv_cache != DType::fp8 &&
      p.kv_cache != DType::int8) {
    throw Error(fmt::format("KV cache precision {} is not supported by serving engines: use fp16, bf16, fp8 or int8",
                            dtype_name(p.kv_cache)));
  }
  if (p.activations == DType::int4) {
    throw Error("int4 activations are not supported: use int4 weights with fp16/bf16 activations (W4A16)");
  }
  if (dtype_bytes(p.weights) > dtype_bytes(p.activations)) {
    throw Error(fmt::format("{} weights with {} activations: weights must be quantized at least as far as the "
                            "activations (e.g. fp8 weights for fp8 compute)",
                            dtype_name(p.weights), dtype_name(p.activations)));
  }
  r.compute = p.activations;
  if (!gpu.supports(p.activations)) {
    std::vector<std::string> have;
    for (const auto& [t, _] : gpu.peak_flops) have.push_back(dtype_name(t));
    if (!p.emulate) {
      throw Error(fmt::format("{} has no {} tensor cores (it supports: {}); choose another activation precision, "
                              "or set model.emulate: true to run {} at the 16-bit rate",
                              gpu.name, dtype_name(p.activations), join(have), dtype_name(p.activations)));
    }
    r.compute = gpu.supports(DType::bf16) ? DType::bf16 : DType::fp16;
    if (!gpu.supports(r.compute)) throw Error(fmt::format("{} has no 16-bit tensor cores to emulate on", gpu.name));
    r.emulated = true;
  }
  if (r.weights == DType::fp8 && r.kv_cache == DType::fp8 && !gpu.supports(DType::fp8) && !p.emulate) {
    // fp8 storage is fine anywhere (converted on load); nothing to reject.
  }
  r.weight_only = dtype_bytes(r.weights) < dtype_bytes(r.compute);
  r.activation_storage = r.compute == DType::fp32 ? DType::fp32 : DType::bf16;
  return r;
}

}  // namespace servesim
