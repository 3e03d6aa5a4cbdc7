#include "metrics/requests_csv.h"

#include <fmt/format.h>

#include <charconv>

namespace servesim {

void write_requests_csv_header(std::ostream& out, bool with_class) {
  out << "id,replica,arrival_s,input_tokens,output_tokens,cached_tokens,queue_ms,ttft_ms,tpot_ms,e2e_ms,"
         "preemptions,failed,failure"
      << (with_class ? ",class\n" : "\n");
}

void write_requests_csv_row(std::ostream& out, const RequestResult& r, std::string_view class_name) {
  // Class names are letters, digits, '_', '-' and '.' (config/printable_name.h): a cell as is.
  const std::string_view tail = class_name.empty() ? std::string_view() : class_name;
  const char* sep = class_name.empty() ? "" : ",";
  if (r.failure == FailureReason::abandoned) {
    // The user gave up: only the time waited until then (e2e_ms) is known.
    out << fmt::format("{},{},{:.6f},{},{},{},,,,{:.3f},{},1,{}{}{}\n", r.id, r.replica, r.arrival_s, r.input_tokens,
                       r.output_tokens, r.cached_tokens, r.e2e_ms, r.preemptions, failure_name(r.failure), sep, tail);
  } else if (r.failed) {
    // A failed request has no latencies: empty fields, not 0.000 that reads as measured.
    out << fmt::format("{},{},{:.6f},{},{},{},,,,,{},1,{}{}{}\n", r.id, r.replica, r.arrival_s, r.input_tokens,
                       r.output_tokens, r.cached_tokens, r.preemptions, failure_name(r.failure), sep, tail);
  } else {
    out << fmt::format("{},{},{:.6f},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{},0,{}{}{}\n", r.id, r.replica, r.arrival_s,
                       r.input_tokens, r.output_tokens, r.cached_tokens, r.queue_ms, r.ttft_ms, r.tpot_ms, r.e2e_ms,
                       r.preemptions, failure_name(r.failure), sep, tail);
  }
}

namespace {
// `x` printed with `decimals` decimals and read back (fmt and from_chars both round correctly).
double printed(double x, int decimals) {
  char text[64];
  const auto end = fmt::format_to_n(text, sizeof text, "{:.{}f}", x, decimals).out;
  double value = x;
  std::from_chars(text, end, value);
  return value;
}
}  // namespace

RequestResult at_csv_precision(RequestResult r) {
  r.arrival_s = printed(r.arrival_s, 6);
  r.e2e_ms = printed(r.e2e_ms, 3);  // also an abandoned request's wait
  if (r.failed) return r;  // no latencies
  r.queue_ms = printed(r.queue_ms, 3);
  r.ttft_ms = printed(r.ttft_ms, 3);
  r.tpot_ms = printed(r.tpot_ms, 3);
  return r;
}

}  // namespace servesim
