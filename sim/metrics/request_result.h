#pragma once
// One finished request's result, typed: the numbers requests.csv prints in its row.
// The collector derives it once per request from the engine's RequestRecord; the
// summary statistics, the requests.csv writer and every consumer of per-request
// results (plan's saturation test, validate, validate-experiments) read these same
// numbers, so none of them parses text back.
#include <cstdint>
#include <vector>

#include "metrics/failure.h"
#include "metrics/run_observer.h"

namespace servesim {

struct RequestResult {
  std::int64_t id = 0;
  int replica = 0;
  double arrival_s = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_tokens = 0;
  // Latencies in ms from the arrival; 0 for a failed request (requests.csv leaves them empty),
  // except e2e_ms of an abandoned one: how long its user waited before giving up.
  double queue_ms = 0, ttft_ms = 0, tpot_ms = 0, e2e_ms = 0;
  int preemptions = 0;
  bool failed = false;
  FailureReason failure = FailureReason::none;

  // TPOT is undefined for a single output token (and for a failed request).
  bool has_tpot() const { return !failed && output_tokens > 1; }
};

// A run's per-request results, in the order the requests finished.
using RequestResults = std::vector<RequestResult>;

inline RequestResult request_result(const RequestRecord& r) {
  RequestResult out;
  out.id = r.id;
  out.replica = r.replica;
  out.arrival_s = to_seconds(r.arrival);
  out.input_tokens = r.input_tokens;
  out.output_tokens = r.output_tokens;
  out.cached_tokens = r.cached_tokens;
  out.preemptions = r.preemptions;
  out.failed = r.failed;
  out.failure = r.failure;
  if (r.failure == FailureReason::abandoned) out.e2e_ms = to_seconds(r.finish - r.arrival) * 1e3;
  if (r.failed) return out;  // nothing was served: no latency
  out.ttft_ms = to_seconds(r.first_token - r.arrival) * 1e3;
  out.e2e_ms = to_seconds(r.finish - r.arrival) * 1e3;
  out.queue_ms = to_seconds(r.first_scheduled - r.arrival) * 1e3;
  // TPOT as vLLM and the validation data define it: (E2E - TTFT) / (output - 1).
  out.tpot_ms = r.output_tokens > 1 ? (out.e2e_ms - out.ttft_ms) / static_cast<double>(r.output_tokens - 1) : 0.0;
  return out;
}

}  // namespace servesim
