#include "model/dtype.h"

#include <fmt/format.h>

#include <map>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

double dtype_bytes(DType t) {
  switch (t) {
    case DType::fp32:
    case DType::tf32: return 4.0;  // tf32 is stored as fp32
    case DType::fp16:
    case DType::bf16: return 2.0;
    case DType::fp8:
    case DType::int8: return 1.0;
    case DType::int4:
    case DType::fp4: return 0.5;
  }
  return 2.0;
}

std::string dtype_name(DType t) {
  switch (t) {
    case DType::fp32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp8: return "fp8";
    case DType::int8: return "int8";
    case DType::int4: return "int4";
    case DType::fp4: return "fp4";
  }
  return "?";
}

std::vector<std::string> dtype_names() { return {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"}; }

DType parse_dtype(const std::string& text, const std::string& what) {
  static const std::map<std::string, DType> aliases = {
      {"fp32", DType::fp32},    {"float32", DType::fp32},  {"float", DType::fp32},
      {"tf32", DType::tf32},    {"fp16", DType::fp16},     {"float16", DType::fp16},
      {"half", DType::fp16},    {"bf16", DType::bf16},     {"bfloat16", DType::bf16},
      {"fp8", DType::fp8},      {"fp8_e4m3", DType::fp8},  {"fp8_e5m2", DType::fp8},
      {"float8", DType::fp8},   {"int8", DType::int8},     {"w8a8", DType::int8},
      {"int4", DType::int4},    {"awq", DType::int4},      {"gptq", DType::int4},
      {"fp4", DType::fp4},      {"nvfp4", DType::fp4},     {"mxfp4", DType::fp4},
  };
  const auto it = aliases.find(to_lower(trim(text)));
  if (it != aliases.end()) return it->second;
  throw Error(fmt::format("{}: unknown precision '{}'{} (valid: {})", what, text,
                          did_you_mean(text, dtype_names()), join(dtype_names())));
}

}  // namespace servesim
