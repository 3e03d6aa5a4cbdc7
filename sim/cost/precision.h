#pragma once
// Precision as three separate choices (weights, activations/compute, KV cache),
// resolved against what a GPU's tensor cores can run.
#include <string>

#include "hardware/gpu_spec.h"
#include "model/dtype.h"
#include "model/gguf.h"

namespace servesim {

struct PrecisionSpec {
  DType weights = DType::bf16;
  DType activations = DType::bf16;  // what the tensor cores compute in
  DType kv_cache = DType::bf16;
  bool emulate = false;  // run a precision the GPU lacks at its 16-bit rate instead of failing
  // A GGUF file's weight type (model/gguf.h), none for every other checkpoint. With one,
  // `weights` holds the nearest plain format (f16: fp16, q8_0: int8, the 4-6 bit mixes: int4)
  // for the code that only asks "how narrow", and bytes come from the GGUF layout.
  GgufType gguf = GgufType::none;
};

struct ResolvedPrecision {
  DType weights = DType::bf16;
  DType compute = DType::bf16;      // tensor-core precision actually used
  DType kv_cache = DType::bf16;
  DType activation_storage = DType::bf16;  // activations between kernels (16-bit unless fp32)
  GgufType gguf = GgufType::none;  // PrecisionSpec::gguf
  bool weight_only = false;  // weights narrower than compute: dequantize in the GEMM
  bool emulated = false;
  std::string describe() const;  // "W4A16 (int4 weights, bf16 compute), fp8 KV"
};

// Throws servesim::Error with the reason: int4 KV, fp8 compute on A100 (unless
// emulate), activations narrower than weights.
ResolvedPrecision resolve_precision(const PrecisionSpec& p, const GpuSpec& gpu);

// The weight format's name: the GGUF type ("q4_k_m") or the precision ("bf16").
std::string weight_format_name(const PrecisionSpec& p);
std::string weight_format_name(const ResolvedPrecision& p);
// The plain format a GGUF type stands in for (f16: fp16, q8_0: int8, the 4-6 bit mixes: int4).
DType gguf_carrier_dtype(GgufType t);

// The one meaning of a weight-precision shorthand: the compute (activation)
// precision that goes with `weights` on `gpu` when activations are not given with
// them. 16/32-bit weights compute at their own precision; fp8 weights compute in
// fp8 (W8A8) on GPUs with fp8 tensor cores, else bf16 (W8A16, weight-only);
// int8, int4 and fp4 weights are weight-only (A16, bf16 compute).
DType default_activations(DType weights, const GpuSpec& gpu);

}  // namespace servesim
