#include "workload/trace_reader.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"
#include "workload/trace_text.h"

namespace servesim {

std::unique_ptr<TraceReader> open_trace_reader(const std::string& path, TraceFormat format,
                                               const TraceReaderOptions& options) {
  if (format == TraceFormat::automatic) format = detect_trace_format(path);
  if (options.hash_block_tokens && *options.hash_block_tokens < 1)
    throw Error(fmt::format("hash_block_tokens must be >= 1, got {}", *options.hash_block_tokens));
  switch (format) {
    case TraceFormat::csv: return open_csv_trace(path, options.hash_block_tokens.value_or(16));
    case TraceFormat::azure: return open_azure_trace(path);
    case TraceFormat::mooncake: return open_mooncake_trace(path, options.hash_block_tokens.value_or(512));
    case TraceFormat::vllm_bench: return open_vllm_bench_trace(path, options.seed);
    case TraceFormat::guidellm: return open_guidellm_trace(path);
    case TraceFormat::aiperf: return open_aiperf_trace(path);
    case TraceFormat::aiperf_summary: return open_aiperf_summary_trace(path, options.seed);
    case TraceFormat::vllm_bench_summary: return open_vllm_bench_summary_trace(path, options.seed);
    case TraceFormat::automatic: break;
  }
  throw Error("internal: unhandled trace format");
}

std::int64_t count_trace_records(const std::string& path, TraceFormat format) {
  if (format == TraceFormat::automatic) format = detect_trace_format(path);
  // Whole documents, and JSONL records that are read whole to be sorted: the readers know their size.
  if (format == TraceFormat::vllm_bench || format == TraceFormat::guidellm || format == TraceFormat::aiperf ||
      format == TraceFormat::aiperf_summary || format == TraceFormat::vllm_bench_summary)
    return -1;
  trace_detail::LineReader in(path);
  std::string line;
  std::int64_t n = 0;
  while (in.next(line)) {
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] != '#') ++n;
  }
  const bool header = format == TraceFormat::csv || format == TraceFormat::azure;
  return header && n > 0 ? n - 1 : n;
}

}  // namespace servesim
