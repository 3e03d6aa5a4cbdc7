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
      {TraceFormat::aiperf, "aiperf"},    {TraceFormat::aiperf_summary, "aiperf_summary"},
      {TraceFormat::vllm_bench_summary, "vllm_bench_summary"}};
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

bool has_summary_statistic(const nlohmann::json& metrics) {
  if (!metrics.is_object()) return false;
  for (const char* metric : {"time_to_first_token", "ttft", "request_latency", "inter_token_latency"})
    if (metrics.contains(metric) && metrics.at(metric).is_object() && metrics.at(metric).contains("avg")) return true;
  return false;
}

// A whole JSON document by its keys; a layout none of the tools writes is an error that
// names what the file holds (reading it as the nearest format would lose its metrics).
TraceFormat classify_document(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object())
    throw Error(fmt::format("{}: a JSON {} where a trace document is an object (a vllm bench serve result, a "
                            "GuideLLM report or an AIPerf / genai-perf summary)",
                            path, j.type_name()));
  if (j.contains("benchmarks")) return TraceFormat::guidellm;
  if (j.contains("input_lens")) return TraceFormat::vllm_bench;
  if (has_summary_statistic(j) || (j.contains("records") && has_summary_statistic(j.at("records"))))
    return TraceFormat::aiperf_summary;
  for (const char* stat : {"mean_ttft_ms", "mean_tpot_ms", "mean_itl_ms", "mean_e2el_ms"})
    if (j.contains(stat)) return TraceFormat::vllm_bench_summary;
  if (j.contains("experiments"))
    throw Error(fmt::format("{}: a genai-perf per-request profile_export.json: its records hold request and "
                            "response payloads but no token counts, so they cannot be replayed; give the "
                            "profile_export_genai_perf.json summary beside it (format aiperf_summary)",
                            path));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  if (keys.size() > 12) {
    const std::size_t n = keys.size();
    keys.resize(12);
    keys.push_back(fmt::format("... ({} keys)", n));
  }
  throw Error(fmt::format("{}: a JSON document in no trace layout servesim knows (keys: {}); expected a vllm bench "
                          "serve result (input_lens, or mean_ttft_ms without --save-detailed), a GuideLLM report "
                          "(benchmarks) or an AIPerf / genai-perf summary (time_to_first_token.avg or ttft.avg, at "
                          "the top level or under records); --format names one to read it as that",
                          path, keys.empty() ? std::string("none") : join(keys)));
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
      return doc.is_discarded() ? TraceFormat::vllm_bench : classify_document(doc, path);  // vllm_bench's reader says where it is malformed
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
               "JSON with benchmarks (or .yaml) guidellm, with input_lens vllm_bench, with latency avg statistics "
               "aiperf_summary, with mean_ttft_ms-style statistics only vllm_bench_summary, other JSON an error; "
               "else by the CSV header"},
      {"csv", "arrival_s,input_tokens,output_tokens[,hash_ids][,ttft_ms,tpot_ms,e2e_ms]"},
      {"azure", "Azure LLM inference trace: TIMESTAMP,ContextTokens,GeneratedTokens"},
      {"mooncake", "Mooncake JSONL: timestamp (ms), input_length, output_length, hash_ids (512-token blocks)"},
      {"vllm_bench", "vllm bench serve --save-detailed result JSON: input_lens/output_lens, send times from "
                     "start_times (less queue_times) when saved, else regenerated from request_rate"},
      {"guidellm", "GuideLLM benchmark report (JSON or YAML): every benchmark's requests at their recorded send times"},
      {"aiperf", "AIPerf profile_export.jsonl: per-request records at their recorded send times"},
      {"aiperf_summary", "AIPerf profile_export_aiperf.json / genai-perf profile_export_genai_perf.json aggregates: "
                         "requests regenerated from the length distributions, rate or concurrency"},
      {"vllm_bench_summary", "vllm bench serve result JSON without --save-detailed (statistics only): requests "
                             "regenerated with the mean lengths at the recorded rate, burstiness and concurrency"},
  };
}

}  // namespace servesim
