#pragma once
// The request-trace file formats servesim replays, and their detection.
//
//   csv         servesim's generic per-request CSV: arrival_s,input_tokens,output_tokens
//               [,hash_ids][,ttft_ms,tpot_ms,e2e_ms]
//   azure       Azure LLM inference trace: TIMESTAMP,ContextTokens,GeneratedTokens
//   mooncake    Mooncake JSONL: {"timestamp" (ms), "input_length", "output_length", "hash_ids"}
//   vllm_bench  a `vllm bench serve --save-result` JSON (input_lens, output_lens, request_rate, ...)
#include <string>
#include <utility>
#include <vector>

namespace servesim {

enum class TraceFormat { automatic, csv, azure, mooncake, vllm_bench };

// "auto", "csv", "azure", "mooncake", "vllm_bench".
std::string trace_format_name(TraceFormat f);

// Parses a format name; throws servesim::Error "<where>: unknown trace format
// 'x'; did you mean 'y'? (valid: ...)" otherwise.
TraceFormat parse_trace_format(const std::string& name, const std::string& where);

// The format of an existing file: .jsonl is mooncake; otherwise its first
// non-blank line decides: a whole JSON object with "input_length" is mooncake,
// other JSON is vllm_bench, a CSV header naming TIMESTAMP and ContextTokens is
// azure, another header csv. Throws servesim::Error when the file cannot be
// opened or is empty.
TraceFormat detect_trace_format(const std::string& path);

// (name, one-line description) of every format, for `servesim list`.
std::vector<std::pair<std::string, std::string>> trace_format_registry();

}  // namespace servesim
