#pragma once
// Format readers behind TraceSource: each yields the trace's records one at a
// time, in file order, holding at most the current line in memory (the
// vllm_bench JSON is the exception: a JSON document is read whole, and it is
// small: one integer pair per request).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "workload/trace_format.h"

namespace servesim {

struct TraceRecord {
  std::int64_t time_ns = 0;      // arrival on the trace's own clock (not yet relative to the first)
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  // Ids of the prompt's FULL blocks of hash_block_tokens tokens (ids of a
  // trailing partial block are dropped); empty when the trace has none.
  std::vector<std::uint64_t> block_hashes;
  std::int32_t hash_block_tokens = 0;
  std::int64_t line = 0;         // 1-based line of the record (vllm_bench, guidellm, aiperf, aiperf_summary:
                                 // request index + 1 in send order)
};

struct TraceReaderOptions {
  // Block size of hash_ids; nullopt = the format's own (csv 16, mooncake 512).
  std::optional<std::int32_t> hash_block_tokens;
  std::uint64_t seed = 1;        // vllm_bench: seed of the regenerated arrivals ("arrivals" stream)
};

class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // The next record, or nullopt at the end of the file. Throws servesim::Error
  // "<path>:<line>: <what is wrong>" for a malformed record.
  virtual std::optional<TraceRecord> read() = 0;
  // Records in the trace when known without reading it (vllm_bench), else -1.
  virtual std::int64_t size() const { return -1; }
  // vllm_bench --max-concurrency: at most this many requests in flight.
  virtual std::optional<std::int64_t> max_concurrency() const { return std::nullopt; }
  const std::string& path() const { return path_; }
  TraceFormat format() const { return format_; }

 protected:
  TraceReader(std::string path, TraceFormat format) : path_(std::move(path)), format_(format) {}

 private:
  std::string path_;
  TraceFormat format_;
};

// Opens `path` as `format` (automatic: detect_trace_format). Reads the header
// (CSV) or the whole document (vllm_bench) now, so a missing column or field
// fails here: servesim::Error listing the columns found and required.
std::unique_ptr<TraceReader> open_trace_reader(const std::string& path, TraceFormat format,
                                               const TraceReaderOptions& options = {});

// The format readers (open_trace_reader picks one).
std::unique_ptr<TraceReader> open_csv_trace(const std::string& path, std::int32_t hash_block_tokens);
std::unique_ptr<TraceReader> open_azure_trace(const std::string& path);
std::unique_ptr<TraceReader> open_mooncake_trace(const std::string& path, std::int32_t hash_block_tokens);
std::unique_ptr<TraceReader> open_vllm_bench_trace(const std::string& path, std::uint64_t seed);
std::unique_ptr<TraceReader> open_guidellm_trace(const std::string& path);
std::unique_ptr<TraceReader> open_aiperf_trace(const std::string& path);
// Regenerates the requests of an aggregate-only export (lengths shuffled and Poisson
// arrivals drawn with `seed`; see trace_aiperf_summary.cpp).
std::unique_ptr<TraceReader> open_aiperf_summary_trace(const std::string& path, std::uint64_t seed);
// The same for a vllm bench serve result without per-request lists (trace_vllm_bench_summary.cpp).
std::unique_ptr<TraceReader> open_vllm_bench_summary_trace(const std::string& path, std::uint64_t seed);

// Parses an Azure trace TIMESTAMP ("2023-11-16 18:15:46.6805900": date, time,
// up to 9 fractional digits; a 'T' separator and a "Z" or "+hh:mm" suffix are
// accepted) into nanoseconds since 1970-01-01 UTC; nullopt when malformed or
// when the year is outside [kMinAzureYear, kMaxAzureYear]: int64 nanoseconds
// since 1970 cover 1677-09-21 to 2262-04-11 only.
inline constexpr int kMinAzureYear = 1678;
inline constexpr int kMaxAzureYear = 2261;
std::optional<std::int64_t> parse_azure_timestamp(const std::string& text);

// Counts the data lines of a CSV/JSONL trace (non-blank lines that are not '#'
// comments, less the CSV header) in one streaming pass; -1 for vllm_bench.
std::int64_t count_trace_records(const std::string& path, TraceFormat format);

}  // namespace servesim
