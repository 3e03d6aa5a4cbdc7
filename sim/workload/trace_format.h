#pragma once
// The request-trace file formats servesim replays, and their detection.
//
//   csv         servesim's generic per-request CSV: arrival_s,input_tokens,output_tokens
//               [,hash_ids][,ttft_ms,tpot_ms,e2e_ms]
//   azure       Azure LLM inference trace: TIMESTAMP,ContextTokens,GeneratedTokens
//   mooncake    Mooncake JSONL: {"timestamp" (ms), "input_length", "output_length", "hash_ids"}
//   vllm_bench  a `vllm bench serve --save-result --save-detailed` JSON (input_lens, output_lens,
//               request_rate, start_times, ttfts, itls, ...)
//   vllm_bench_summary  a `vllm bench serve --save-result` JSON without per-request lists
//               (statistics only: mean/median/p99_ttft_ms, ...): the requests are regenerated
//   guidellm    a GuideLLM benchmark report, JSON or YAML ({"benchmarks": [{"requests": ...}]})
//   aiperf      AIPerf per-request records, profile_export.jsonl ({"metadata", "metrics", "error"} a line)
//   aiperf_summary  an aggregate-only AIPerf profile_export_aiperf.json or genai-perf
//               profile_export_genai_perf.json (per-metric avg/percentiles, at the top level or
//               under "records"): the requests are regenerated
#include <string>
#include <utility>
#include <vector>

namespace servesim {

enum class TraceFormat {
  automatic, csv, azure, mooncake, vllm_bench, guidellm, aiperf, aiperf_summary, vllm_bench_summary
};

// "auto", "csv", "azure", "mooncake", "vllm_bench", "guidellm", "aiperf", "aiperf_summary",
// "vllm_bench_summary".
std::string trace_format_name(TraceFormat f);

// Parses a format name; throws servesim::Error "<where>: unknown trace format
// 'x'; did you mean 'y'? (valid: ...)" otherwise.
TraceFormat parse_trace_format(const std::string& name, const std::string& where);

// The format of an existing file: .yaml/.yml is guidellm; otherwise the first
// non-blank line decides: a whole JSON object with "input_length" is mooncake, one
// with "metadata" and "metrics" aiperf (so is a .jsonl file whose first record has
// them; other .jsonl files are mooncake); another JSON document is read whole: with
// "benchmarks" guidellm, with "input_lens" vllm_bench, with a latency statistic such
// as time_to_first_token.avg (or ttft.avg, at the top level or under "records")
// aiperf_summary, with vLLM's statistics (mean_ttft_ms, mean_e2el_ms, ...) but no
// per-request lists vllm_bench_summary; a CSV header naming TIMESTAMP and ContextTokens
// is azure, another header csv. Throws servesim::Error when the file cannot be
// opened or is empty, for a JSON document in none of these layouts (naming the keys
// it has), and for genai-perf's per-request profile_export.json, whose records have
// no token counts (its profile_export_genai_perf.json summary is read).
TraceFormat detect_trace_format(const std::string& path);

// (name, one-line description) of every format, for `servesim list`.
std::vector<std::pair<std::string, std::string>> trace_format_registry();

}  // namespace servesim
