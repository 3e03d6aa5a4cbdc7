#pragma once
// Replays a request trace (workload.trace) as a RequestSource.
//
// Formats (trace_format.h): the generic servesim CSV, the Azure LLM inference
// trace CSV, Mooncake JSONL and a `vllm bench serve` result JSON. Request k is
// the trace's k-th record; its arrival is the record's time minus the first
// record's, times spec.trace->time_scale. Timestamps must not decrease (a
// record that goes back in time is an error naming the file and line).
// block_hashes carry the trace's hash ids (csv: hash_ids of hash_block_tokens
// tokens, default 16; mooncake: 512-token blocks), full blocks only; the engine
// re-blocks them to its own block size.
//
// A vllm_bench JSON with start_times replays them (less queue_times, the wait for a
// concurrency slot: the limit below waits again). Without them arrivals are regenerated as vLLM's
// benchmark draws them, Gamma(burstiness) gaps at request_rate (Poisson at
// burstiness 1; all at t = 0 at request_rate "inf"; linear or exponential
// ramp-up when the file says so) from RandomStream(spec.seed, "arrivals"),
// rescaled so the last arrival is at num_prompts / request_rate. When the file
// sets max_concurrency at most that many requests are in flight: a request
// waits for a completion (on_complete) as the benchmark's semaphore did.
//
// Streaming: CSV and JSONL traces are read one line at a time, one record ahead
// of the request handed out (so exhausted() is exact), so memory does not grow
// with the trace's length. Construction makes one extra streaming pass to count
// the records for expected_total(). The JSON is read whole (it is small).
//
// Caps: spec.requests stops after that many requests; spec.duration_s at the
// first arrival later than it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "workload/request_source.h"
#include "workload/trace_reader.h"
#include "workload/workload_spec.h"

namespace servesim {

class TraceSource final : public RequestSource {
 public:
  // Precondition: spec.trace is set. Opens the trace (throws servesim::Error if
  // it cannot be read or its header is wrong); a malformed record throws from
  // the next() that reaches it (or the one before, which reads it ahead).
  explicit TraceSource(const WorkloadSpec& spec);

  std::optional<Request> next() override;
  void on_complete(const Request& r, Nanos completion_time) override;
  bool exhausted() const override;
  std::int64_t expected_total() const override;

  TraceFormat format() const { return reader_->format(); }
  const std::string& path() const { return reader_->path(); }

 private:
  struct Ahead {
    Nanos arrival = 0;
    TraceRecord record;
  };
  std::optional<Ahead> pull();
  // Throws: `rec` arrives `offset_s` after the first record, past the clock's range.
  [[noreturn]] void throw_trace_span(const TraceRecord& rec, double offset_s) const;
  bool count_reached() const { return requests_cap_ >= 0 && issued_ >= requests_cap_; }

  std::unique_ptr<TraceReader> reader_;
  std::int64_t requests_cap_ = -1;
  std::optional<Nanos> duration_end_;
  double time_scale_ = 1.0;
  std::int64_t expected_ = -1;

  std::optional<Ahead> lookahead_;
  std::optional<std::int64_t> first_ns_;
  std::int64_t last_ns_ = 0;
  std::int64_t last_line_ = 0;
  std::int64_t issued_ = 0;

  // vllm_bench max_concurrency.
  std::optional<std::int64_t> max_in_flight_;
  std::int64_t in_flight_ = 0;
  Nanos last_release_ = 0;
};

std::unique_ptr<RequestSource> make_trace_source(const WorkloadSpec& spec);

}  // namespace servesim
