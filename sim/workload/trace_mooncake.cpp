// Mooncake JSONL traces (github kvcache-ai/Mooncake, FAST'25 release): one JSON
// object per line, {"timestamp": ms, "input_length", "output_length", "hash_ids"}.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/json_file.h"
#include "util/text.h"
#include "workload/trace_reader.h"
#include "workload/trace_text.h"

namespace servesim {

namespace {
using trace_detail::fail_at;
using nlohmann::json;

std::int64_t integer_field(const json& j, const char* key, const std::string& path, std::int64_t line) {
  if (!j.contains(key)) fail_at(path, line, fmt::format("missing field '{}' (required: timestamp, input_length, "
                                                        "output_length; optional: hash_ids)", key));
  const json& v = j.at(key);
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e15) return static_cast<std::int64_t>(d);
  }
  fail_at(path, line, fmt::format("'{}' must be an integer, got {}", key, excerpt(v.dump())));
}

class MooncakeTraceReader final : public TraceReader {
 public:
  MooncakeTraceReader(const std::string& path, std::int32_t block)
      : TraceReader(path, TraceFormat::mooncake), in_(path), block_(block) {}

  std::optional<TraceRecord> read() override {
    std::string line;
    while (in_.next(line)) {
      const std::string t = trim(line);
      if (t.empty() || t[0] == '#') continue;
      return parse(t, in_.line_number());
    }
    return std::nullopt;
  }

 private:
  TraceRecord parse(const std::string& text, std::int64_t line) {
    if (json_depth_exceeded_at(text) != 0)
      fail_at(path(), line, fmt::format("not a JSON object: nested deeper than {} levels", kMaxJsonDepth));
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      fail_at(path(), line, fmt::format("not a JSON object: {}", e.what()));
    }
    if (!j.is_object()) fail_at(path(), line, "not a JSON object");
    TraceRecord r;
    r.line = line;
    if (!j.contains("timestamp"))
      fail_at(path(), line, "missing field 'timestamp' (required: timestamp, input_length, output_length; "
                            "optional: hash_ids)");
    const json& ts = j.at("timestamp");
    if (!ts.is_number()) fail_at(path(), line, fmt::format("'timestamp' must be a number (ms), got {}", excerpt(ts.dump())));
    const double ms = ts.get<double>();
    if (!std::isfinite(ms) || ms < 0.0 || ms > 9.0e12)
      fail_at(path(), line, fmt::format("'timestamp' must be >= 0 ms, got {}", excerpt(ts.dump())));
    r.time_ns = ts.is_number_integer() ? ts.get<std::int64_t>() * 1000000 : std::llround(ms * 1e6);
    r.input_tokens = integer_field(j, "input_length", path(), line);
    r.output_tokens = integer_field(j, "output_length", path(), line);
    if (r.input_tokens < 1) fail_at(path(), line, fmt::format("input_length must be >= 1, got {}", r.input_tokens));
    if (r.output_tokens < 1)
      fail_at(path(), line, fmt::format("output_length must be >= 1, got {}", r.output_tokens));
    if (j.contains("hash_ids") && !j.at("hash_ids").is_null()) {
      const json& ids = j.at("hash_ids");
      if (!ids.is_array()) fail_at(path(), line, "'hash_ids' must be a list of integers");
      const auto full = static_cast<std::size_t>(r.input_tokens / block_);
      r.block_hashes.reserve(std::min(full, ids.size()));
      for (const json& id : ids) {
        if (!id.is_number_integer() || (id.is_number_integer() && !id.is_number_unsigned() && id.get<std::int64_t>() < 0))
          fail_at(path(), line, fmt::format("'hash_ids' entry {} is not a non-negative integer", excerpt(id.dump())));
        if (r.block_hashes.size() < full) r.block_hashes.push_back(id.get<std::uint64_t>());
      }
      if (!r.block_hashes.empty()) r.hash_block_tokens = block_;
    }
    return r;
  }

  trace_detail::LineReader in_;
  std::int32_t block_;
};
}  // namespace

std::unique_ptr<TraceReader> open_mooncake_trace(const std::string& path, std::int32_t hash_block_tokens) {
  return std::make_unique<MooncakeTraceReader>(path, hash_block_tokens);
}

}  // namespace servesim
