#pragma once
// Measured per-request latencies that come with some traces, for validation
// (`run` ignores them). These readers load the whole file.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace servesim {

struct MeasuredRequest {
  std::int64_t index = 0;              // 0, 1, 2, ... in file order (= the replayed Request id)
  double arrival_s = 0.0;              // as in the file (csv) or as regenerated (vllm_bench)
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::optional<double> ttft_ms;       // absent when the file has no value (empty, nan, failed)
  std::optional<double> tpot_ms;
  std::optional<double> e2e_ms;
  bool no_token = false;               // the server streamed no token: nothing was measured
};

// Rows of a generic servesim CSV with its optional ttft_ms, tpot_ms, e2e_ms
// columns (an empty or "nan" cell: not measured). Throws servesim::Error with
// file:line for a malformed row or a missing required column.
std::vector<MeasuredRequest> read_measured_csv(const std::string& path);

// Requests of a `vllm bench serve --save-result` JSON: ttft_ms from ttfts,
// e2e_ms = ttft + the sum of its itls, tpot_ms = (e2e - ttft) / (output - 1)
// (absent for a single output token), all absent for a request whose `errors`
// entry is non-empty or that streamed no token (output_lens 0 with ttfts 0: how
// vLLM's benchmark records a request whose server sent no text; no_token is set). arrival_s is the regenerated arrival (see
// open_vllm_bench_trace, same seed); output_tokens as replayed (>= 1).
std::vector<MeasuredRequest> read_measured_vllm_bench(const std::string& path, std::uint64_t seed = 1);

// Requests of a GuideLLM benchmark report (JSON or YAML), every benchmark's successful,
// errored and incomplete requests in send order (see trace_guidellm.cpp): ttft_ms from
// time_to_first_token_ms, tpot_ms from inter_token_latency_ms, e2e_ms from
// request_latency (s); only successful requests carry measurements. arrival_s is the
// send time relative to the first request's.
std::vector<MeasuredRequest> read_measured_guidellm(const std::string& path);

// Records of an AIPerf profile_export.jsonl in send order (see trace_aiperf.cpp):
// ttft_ms from time_to_first_token, tpot_ms from inter_token_latency, e2e_ms from
// request_latency; failed or cancelled records carry none. When `itl_gaps` is given,
// every per-token gap (inter_chunk_latency of requests that streamed one token per
// chunk) is appended to it.
std::vector<MeasuredRequest> read_measured_aiperf(const std::string& path, std::vector<double>* itl_gaps = nullptr);

// A latency distribution as a tool summarised it (ms): avg, percentiles, extremes; a
// statistic the file does not give is NaN (vllm bench serve writes p99 only by default).
struct MeasuredStats {
  std::int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, min = 0, max = 0;
};

// What an aggregate-only export measured: AIPerf / genai-perf (trace_aiperf_summary.cpp),
// vllm bench serve without --save-detailed (trace_vllm_bench_summary.cpp).
struct MeasuredAggregate {
  std::string tool;                  // "AIPerf", "genai-perf" or "vllm bench serve"
  std::int64_t requests = 0;         // requests replayed: AIPerf's request_count (the successful ones)
  std::int64_t errored = 0;          // requests the file counts as failed (not replayed by AIPerf's count)
  std::optional<double> concurrency, request_rate;  // as the run was configured, when recorded
  double request_throughput = 0;     // measured req/s (0: not in the file)
  double output_tps = 0;             // measured output tokens/s (0: not in the file)
  double duration_s = 0;             // benchmark_duration (0: not in the file)
  std::string model_id;              // the served model's name, "" when not recorded
  // ("ttft" | "tpot" | "itl" | "e2e", distribution in ms): avg, p50, p90, p95, p99 (min, max).
  std::vector<std::pair<std::string, MeasuredStats>> metrics;
  std::string arrivals;              // how the replay sends the regenerated requests, in words
};
MeasuredAggregate read_measured_aiperf_summary(const std::string& path, std::uint64_t seed = 1);
MeasuredAggregate read_measured_vllm_bench_summary(const std::string& path, std::uint64_t seed = 1);

}  // namespace servesim
