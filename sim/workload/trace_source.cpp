#include "workload/trace_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "util/error.h"

namespace servesim {

void TraceSource::throw_trace_span(const TraceRecord& rec, double offset_s) const {
  throw Error(fmt::format("{}:{}: this request arrives {:.4g} s after the trace's first one{}, beyond the {:g} s "
                          "(31.7 years) servesim simulates: simulated time is int64 nanoseconds kept within that "
                          "range; check the timestamps (or cut the trace with workload.requests or duration)",
                          reader_->path(), rec.line, offset_s, time_scale_ == 1.0 ? "" : " after time_scale",
                          kMaxSimSeconds));
}

TraceSource::TraceSource(const WorkloadSpec& spec) {
  if (!spec.trace) throw std::logic_error("TraceSource: the workload has no trace");
  const TraceSpec& t = *spec.trace;
  TraceFormat format = t.format == TraceFormat::automatic ? detect_trace_format(t.path) : t.format;
  TraceReaderOptions opt;
  opt.hash_block_tokens = spec.hash_block_tokens;
  opt.seed = spec.seed;
  reader_ = open_trace_reader(t.path, format, opt);
  requests_cap_ = spec.requests;
  if (spec.duration_s) duration_end_ = to_nanos(*spec.duration_s);
  time_scale_ = t.time_scale;
  max_in_flight_ = reader_->max_concurrency();

  const std::int64_t size = reader_->size() >= 0 ? reader_->size() : count_trace_records(t.path, format);
  if (!duration_end_) expected_ = requests_cap_ >= 0 ? std::min(size, requests_cap_) : size;
  lookahead_ = pull();
  // A trace without a single request (a header only, or blank) is a mistake, not
  // an empty run that would report zero everything as a result.
  if (!lookahead_ && !first_ns_ && requests_cap_ != 0)
    throw Error(fmt::format("{}: the trace holds no requests (a header and no rows?): nothing to simulate",
                            reader_->path()));
}

std::optional<TraceSource::Ahead> TraceSource::pull() {
  // Never read past the last request the caps allow.
  if (count_reached()) return std::nullopt;  // called with no record ahead
  std::optional<TraceRecord> rec = reader_->read();
  if (!rec) return std::nullopt;
  if (!first_ns_) {
    first_ns_ = rec->time_ns;
  } else if (rec->time_ns < last_ns_) {
    // In double: two valid timestamps far apart would overflow an int64 difference.
    throw Error(fmt::format("{}:{}: timestamps decrease: this request arrives {:.9g} s before the one on line {} "
                            "(traces must be sorted by arrival time)",
                            reader_->path(), rec->line,
                            (static_cast<double>(last_ns_) - static_cast<double>(rec->time_ns)) * 1e-9, last_line_));
  }
  last_ns_ = rec->time_ns;
  last_line_ = rec->line;
  // Arrivals are offsets from the first record; they must stay inside the
  // simulated clock's range (core/sim_time.h), after time_scale too.
  // A duration cap (at most 1e7 s) ends the replay before any such record.
  std::int64_t offset = 0;
  const bool overflow = __builtin_sub_overflow(rec->time_ns, *first_ns_, &offset);
  // From the exact int64 offset when it fits (rounding the two timestamps to double
  // first would lose nanoseconds: they are ~1.7e18 for dates since 1970).
  const double scaled_ns =
      (overflow ? static_cast<double>(rec->time_ns) - static_cast<double>(*first_ns_) : static_cast<double>(offset)) *
      time_scale_;
  if (overflow || !(scaled_ns <= static_cast<double>(kMaxSimNanos))) {
    if (duration_end_) return std::nullopt;
    throw_trace_span(*rec, scaled_ns * 1e-9);
  }
  const Nanos arrival = time_scale_ == 1.0 ? offset : static_cast<Nanos>(std::llround(scaled_ns));
  if (duration_end_ && arrival > *duration_end_) return std::nullopt;
  return Ahead{arrival, std::move(*rec)};
}

std::optional<Request> TraceSource::next() {
  if (exhausted()) return std::nullopt;
  if (max_in_flight_ && in_flight_ >= *max_in_flight_) return std::nullopt;  // wait for a completion
  Ahead a = std::move(*lookahead_);
  lookahead_.reset();
  Request r;
  r.id = issued_++;
  r.arrival = max_in_flight_ ? std::max(a.arrival, last_release_) : a.arrival;
  r.input_tokens = a.record.input_tokens;
  r.output_tokens = a.record.output_tokens;
  r.block_hashes = std::move(a.record.block_hashes);
  r.hash_block_tokens = r.block_hashes.empty() ? 0 : a.record.hash_block_tokens;
  ++in_flight_;
  lookahead_ = pull();
  return r;
}

void TraceSource::on_complete(const Request& r, Nanos completion_time) {
  if (in_flight_ > 0) --in_flight_;
  last_release_ = std::max(last_release_, completion_time);
}

bool TraceSource::exhausted() const { return !lookahead_.has_value(); }

std::int64_t TraceSource::expected_total() const { return expected_; }

std::unique_ptr<RequestSource> make_trace_source(const WorkloadSpec& spec) {
  return std::make_unique<TraceSource>(spec);
}

}  // namespace servesim
