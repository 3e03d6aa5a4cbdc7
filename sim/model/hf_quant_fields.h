#pragma once
// Small readers the quantization config parsers share (hf_quantization.cpp,
// hf_quant_methods.cpp): an integer field, a scheme's group sizes, a list of module names.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model_spec.h"

namespace servesim::quant_fields {

// `key` of object `o` when it is an integer, else `otherwise`.
inline std::int64_t integer(const nlohmann::json& o, const char* key, std::int64_t otherwise = 0) {
  if (!o.is_object() || !o.contains(key) || !o[key].is_number_integer()) return otherwise;
  return o[key].get<std::int64_t>();
}

// Groups of `size` weights sharing `scale_bytes` (size <= 0: per-channel or per-tensor scales).
inline WeightGroups groups(const std::string& scheme, std::int64_t size, double scale_bytes) {
  WeightGroups g;
  g.scheme = scheme;
  if (size > 0) {
    g.size = static_cast<int>(size);
    g.scale_bytes = scale_bytes;
  }
  return g;
}

// The strings of list `key` (ignore, modules_to_not_convert, exclude, skip_modules) into `out`.
inline void add_names(const nlohmann::json& q, const char* key, std::vector<std::string>& out) {
  if (!q.is_object() || !q.contains(key) || !q[key].is_array()) return;
  for (const nlohmann::json& x : q[key])
    if (x.is_string()) out.push_back(x.get<std::string>());
}

}  // namespace servesim::quant_fields
