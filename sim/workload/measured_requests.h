#pragma once
// Measured per-request latencies that come with some traces, for validation
// (`run` ignores them). These readers load the whole file.
#include <cstdint>
#include <optional>
#include <string>
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

}  // namespace servesim
