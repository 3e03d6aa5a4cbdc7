#include "workload/trace_format.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "util/json_file.h"
#include "util/paths.h"
#include "util/error.h"
#include "util/text.h"
#include "workload/trace_text.h"

namespace servesim {

namespace {
const std::vector<std::pair<TraceFormat, std::string>>& names() {
  static const std::vector<std::pair<TraceFormat, std::string>> n = {
      {TraceFormat::automatic, "auto"},   {TraceFormat::csv, "csv"},
      {TraceFormat::azure, "azure"},      {TraceFormat::mooncake, "mooncake"},
      {TraceFormat::vllm_bench, "vllm_bench"}, {TraceFormat::guidellm, "guidellm"},
      {TraceFormat::aiperf, "aiperf"},    {TraceFormat::aiperf_summary, "aiperf_summary"}};
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

namespace {
bool is_aiperf_record(const nlohmann::json& j) {
  return j.is_object() && j.contains("metadata") && j.contains("metrics");
}

// A whole JSON document by its keys.
TraceFormat classify_document(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) return TraceFormat::vllm_bench;  // its reader says what is wrong
  if (j.contains("benchmarks")) return TraceFormat::guidellm;
  if (j.contains("input_lens")) return TraceFormat::vllm_bench;
  for (const char* metric : {"time_to_first_token", "request_latency", "inter_token_latency"})
    if (j.contains(metric) && j.at(metric).is_object() && j.at(metric).contains("avg")) return TraceFormat::aiperf_summary;
  if (j.contains("experiments"))
    throw Error(fmt::format("{}: a genai-perf per-request profile_export.json: its records hold request and "
                            "response payloads but no token counts, so they cannot be replayed; give the "
                            "profile_export_genai_perf.json summary beside it (format aiperf_summary)",
                            path));
  return TraceFormat::vllm_bench;
}
}  // namespace

TraceFormat detect_trace_format(const std::string& path) {
  const std::string lower = to_lower(path);
  if (ends_with(lower, ".yaml") || ends_with(lower, ".yml")) return TraceFormat::guidellm;
  const bool jsonl = ends_with(lower, ".jsonl");
  trace_detail::LineReader in(path, /*require_final_newline=*/false);  // the readers check it
  std::string line;
  while (in.next(line)) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (jsonl || t[0] == '{') {
      const auto j = parse_json_or_discarded(t);
      if (!j.is_discarded() && is_aiperf_record(j)) return TraceFormat::aiperf;
      if (jsonl || (!j.is_discarded() && j.is_object() && j.contains("input_length"))) return TraceFormat::mooncake;
      // One document over many lines (or on one): read it whole to tell the tools apart.
      const auto doc = parse_json_or_discarded(read_text_file(path));
      return doc.is_discarded() ? TraceFormat::vllm_bench : classify_document(doc, path);
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
      {"auto", "detected: JSON lines with metadata+metrics aiperf, other .jsonl or lines with input_length mooncake; "
               "JSON with benchmarks (or .yaml) guidellm, with latency avg statistics aiperf_summary, other JSON "
               "vllm_bench; else by the CSV header"},
      {"csv", "arrival_s,input_tokens,output_tokens[,hash_ids][,ttft_ms,tpot_ms,e2e_ms]"},
      {"azure", "Azure LLM inference trace: TIMESTAMP,ContextTokens,GeneratedTokens"},
      {"mooncake", "Mooncake JSONL: timestamp (ms), input_length, output_length, hash_ids (512-token blocks)"},
      {"vllm_bench", "vllm bench serve result JSON: input_lens/output_lens, arrivals regenerated from request_rate"},
      {"guidellm", "GuideLLM benchmark report (JSON or YAML): every benchmark's requests at their recorded send times"},
      {"aiperf", "AIPerf profile_export.jsonl: per-request records at their recorded send times"},
      {"aiperf_summary", "AIPerf profile_export_aiperf.json / genai-perf profile_export_genai_perf.json aggregates: "
                         "requests regenerated from the length distributions, rate or concurrency"},
  };
}

}  // namespace servesim
