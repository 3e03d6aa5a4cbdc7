#pragma once
// Numeric formats for weights, activations (what the tensor cores run) and KV cache.
#include <optional>
#include <string>
#include <vector>

namespace servesim {

enum class DType { fp32, tf32, fp16, bf16, fp8, int8, int4, fp4 };

// Storage size of one element in bytes (int4/fp4 pack two per byte).
double dtype_bytes(DType t);
std::string dtype_name(DType t);
// Accepts "bf16", "bfloat16", "float16", "fp8", "fp8_e4m3", "int4", "awq"... Throws with
// the valid names on anything else; `what` names the field in the message.
DType parse_dtype(const std::string& text, const std::string& what);
std::vector<std::string> dtype_names();

}  // namespace servesim
