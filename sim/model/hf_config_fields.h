#pragma once
// Typed, checked access to the fields of a Hugging Face config (the text model's, for a
// multimodal wrapper), shared by the importer and its family readers (hf_families.h).
// Every integer read is a model dimension or count: one beyond int32 is refused before a
// cast could wrap it; a value of the wrong type is an Error naming the file and the field.
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

class JsonFields {
 public:
  using json = nlohmann::json;
  JsonFields(const json& j, std::string file) : j_(j), file_(std::move(file)) {}
  const json& doc() const { return j_; }
  const std::string& where() const { return file_; }
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  std::int64_t integer(const char* key) const {
    if (!has(key)) throw Error(fmt::format("{}: missing field '{}'", file_, key));
    if (!j_[key].is_number_integer())
      throw Error(fmt::format("{}: field '{}' must be an integer, got {}", file_, key, excerpt(j_[key].dump())));
    const json& v = j_[key];
    constexpr auto kMax = static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max());
    const bool too_big = v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMax)
                                                : v.get<std::int64_t>() > kMax || v.get<std::int64_t>() < -kMax;
    if (too_big)
      throw Error(fmt::format("{}: field '{}' = {} is out of range (at most {}; no model comes near it)", file_, key,
                              excerpt(v.dump()), kMax));
    return v.get<std::int64_t>();
  }
  std::int64_t integer(const char* key, std::int64_t fallback) const { return has(key) ? integer(key) : fallback; }
  // A count that must be at least `min` (a layer, head or expert count).
  std::int64_t at_least(const char* key, std::int64_t min) const {
    const std::int64_t v = integer(key);
    if (v < min) throw Error(fmt::format("{}: {} must be at least {}, got {}", file_, key, min, v));
    return v;
  }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j_[key].is_boolean()) throw Error(fmt::format("{}: field '{}' must be true or false", file_, key));
    return j_[key].get<bool>();
  }
  std::string string(const char* key, const std::string& fallback) const {
    return has(key) && j_[key].is_string() ? j_[key].get<std::string>() : fallback;
  }
  // A list of strings (layer_types); empty when absent. A non-string entry is refused.
  std::vector<std::string> strings(const char* key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    if (!j_[key].is_array()) throw Error(fmt::format("{}: field '{}' must be a list", file_, key));
    for (const json& x : j_[key]) {
      if (!x.is_string())
        throw Error(fmt::format("{}: field '{}' must list strings, got {}", file_, key, excerpt(x.dump())));
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  // A list of integers (mlp_only_layers); empty when absent.
  std::vector<std::int64_t> integers(const char* key) const {
    std::vector<std::int64_t> out;
    if (!has(key)) return out;
    if (!j_[key].is_array()) throw Error(fmt::format("{}: field '{}' must be a list", file_, key));
    for (const json& x : j_[key])
      if (x.is_number_integer()) out.push_back(x.get<std::int64_t>());
    return out;
  }

 private:
  const json& j_;
  std::string file_;
};

}  // namespace servesim
