#include "workload/trace_format.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/text.h"
#include "workload/trace_text.h"

namespace servesim {

namespace {
const std::vector<std::pair<TraceFormat, std::string>>& names() {
  static const std::vector<std::pair<TraceFormat, std::string>> n = {
      {TraceFormat::automatic, "auto"},   {TraceFormat::csv, "csv"},
      {TraceFormat::azure, "azure"},      {TraceFormat::mooncake, "mooncake"},
      {TraceFormat::vllm_bench, "vllm_bench"}};
  return n;
}
}  // namespace

std::string trace_format_name(TraceFormat f) {
  for (const auto& [k, n] : names())
    if (k == f) return n;
  return "?";
}

TraceFormat parse_trace_format(const std::string& name, const std::string& where) {
  std::vector<std::string> valid;
  for (const auto& [k, n] : names()) {
    if (n == name) return k;
    valid.push_back(n);
  }
  throw Error(fmt::format("{}: unknown trace format '{}'{} (valid: {})", where, name, did_you_mean(name, valid),
                          join(valid)));
}

TraceFormat detect_trace_format(const std::string& path) {
  const std::string lower = to_lower(path);
  if (ends_with(lower, ".jsonl")) return TraceFormat::mooncake;
  trace_detail::LineReader in(path, /*require_final_newline=*/false);  // the readers check it
  std::string line;
  while (in.next(line)) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (t[0] == '{') {
      const auto j = nlohmann::json::parse(t, nullptr, /*allow_exceptions=*/false);
      return !j.is_discarded() && j.is_object() && j.contains("input_length") ? TraceFormat::mooncake
                                                                               : TraceFormat::vllm_bench;
    }
    bool timestamp = false, context = false;
    for (const auto& col : trace_detail::split_csv(t)) {
      const std::string c = to_lower(trim(col));
      timestamp |= c == "timestamp";
      context |= c == "contexttokens";
    }
    return timestamp && context ? TraceFormat::azure : TraceFormat::csv;
  }
  throw Error(fmt::format("{}: the trace file is empty", path));
}

std::vector<std::pair<std::string, std::string>> trace_format_registry() {
  return {
      {"auto", "detected: .jsonl or JSON lines with input_length mooncake, other JSON vllm_bench, else by the CSV header"},
      {"csv", "arrival_s,input_tokens,output_tokens[,hash_ids][,ttft_ms,tpot_ms,e2e_ms]"},
      {"azure", "Azure LLM inference trace: TIMESTAMP,ContextTokens,GeneratedTokens"},
      {"mooncake", "Mooncake JSONL: timestamp (ms), input_length, output_length, hash_ids (512-token blocks)"},
      {"vllm_bench", "vllm bench serve result JSON: input_lens/output_lens, arrivals regenerated from request_rate"},
  };
}

}  // namespace servesim
