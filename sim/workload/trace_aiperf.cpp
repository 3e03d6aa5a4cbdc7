// AIPerf per-request records (`profile_export.jsonl`, github ai-dynamo/aiperf,
// docs/tutorials/working-with-profile-exports.md; models in
// aiperf/common/models/record_models.py, MetricRecordInfo): one JSON object per line,
// written as requests finish,
//   {"metadata": {"request_start_ns": ..., "was_cancelled": false, ...},
//    "metrics": {"input_sequence_length": {"value": 550, "unit": "tokens"},
//                "output_sequence_length": {...}, "time_to_first_token": {"value": 255.9, "unit": "ms"},
//                "request_latency": {...}, "inter_token_latency": {...},
//                "inter_chunk_latency": {"value": [4.9, 5.3, ...], "unit": "ms"}, ...},
//    "error": null}
// AIPerf's inter_token_latency is (request_latency - TTFT) / (OSL - 1): servesim's TPOT.
// inter_chunk_latency holds the gaps between streamed chunks; they are per-token gaps
// (servesim's ITL samples) only when each chunk carried one token, i.e. when there
// are OSL - 1 of them, and are used only then. A failed record (`error` set, or
// cancelled) keeps its prompt length as metrics.error_isl; it is replayed, not measured.
// Older AIPerf versions (the repository's examples/artifacts/run1 of 2025-10-03,
// ai-dynamo/aiperf@7c31f579, in tests/fixtures/tool_exports/) call the send time
// metadata.timestamp_ns, TTFT "ttft" and the second token "ttst", and may give the
// output as output_token_count + reasoning_token_count beside output_sequence_length.
//
// Never a silently missing metric: a successful record without request_latency, or a
// streamed one (inter_chunk_latency or a second-token time) without a TTFT under either
// name, is a layout servesim does not know and an error naming the metrics it holds;
// metrics outside the list AIPerf's metric registry defines (aiperf/metrics/types/, tags as
// of 2025-10) are named in a warning, once per file.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "util/json_file.h"
#include "util/error.h"
#include "util/text.h"
#include "util/warnings.h"
#include "workload/measured_requests.h"
#include "workload/trace_export.h"
#include "workload/trace_text.h"

namespace servesim {

namespace {
using nlohmann::json;
using trace_detail::ExportedRequest;
using trace_detail::ExportedRun;
using trace_detail::fail_at;

const json* field(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && !j.at(key).is_null() ? &j.at(key) : nullptr;
}

// The first of `names` the metrics hold.
const json* field_any(const json& j, std::initializer_list<const char*> names, const char** found = nullptr) {
  for (const char* n : names)
    if (const json* f = field(j, n)) {
      if (found) *found = n;
      return f;
    }
  return nullptr;
}

// Every per-record metric tag of AIPerf's registry (aiperf/metrics/types/*.py, 2025-10) and
// its earlier names: those servesim reads and those it knowingly leaves (throughputs,
// timestamps, counts, reasoning split, credit and stream-setup internals).
bool known_metric(const std::string& tag) {
  static const std::set<std::string> known = {
      "time_to_first_token", "ttft", "time_to_second_token", "ttst", "request_latency", "inter_token_latency",
      "inter_chunk_latency", "input_sequence_length", "output_sequence_length", "output_token_count",
      "reasoning_token_count", "error_isl", "error_request_count", "request_count", "good_request_count",
      "min_request_timestamp", "max_response_timestamp", "output_token_throughput_per_user",
      "output_token_throughput", "request_throughput", "prefill_throughput", "goodput", "thinking_efficiency",
      "overall_thinking_efficiency", "stream_prefill_latency", "stream_setup_latency", "credit_drop_latency",
      "benchmark_duration", "total_isl", "total_osl", "total_output_tokens", "total_reasoning_tokens",
      "total_error_isl"};
  return known.count(tag) > 0;
}

std::string metric_names(const json& metrics) {
  std::vector<std::string> names;
  for (const auto& [k, v] : metrics.items()) names.push_back(k);
  return names.empty() ? std::string("none") : join(names);
}

// metrics.<key>.value as a token count (an integral number >= 0), nullopt when absent.
std::optional<std::int64_t> token_metric(const json& metrics, const char* key, const std::string& path,
                                         std::int64_t line) {
  const json* m = field(metrics, key);
  if (!m) return std::nullopt;
  const json* v = m->is_object() ? field(*m, "value") : m;
  if (!v) return std::nullopt;
  if (v->is_number()) {
    const double d = v->get<double>();
    if (std::isfinite(d) && d >= 0 && std::floor(d) == d && d < 9.0e15) return static_cast<std::int64_t>(d);
  }
  fail_at(path, line, fmt::format("metrics.{} must be a token count (an integer >= 0), got {}", key, excerpt(m->dump())));
}

ExportedRequest parse_record(const json& j, const std::string& path, std::int64_t line,
                             std::set<std::string>& unknown) {
  if (!j.is_object()) fail_at(path, line, "expected a JSON object (an AIPerf MetricRecordInfo record)");
  const json* meta = field(j, "metadata");
  if (!meta || !meta->is_object())
    fail_at(path, line, "missing 'metadata' object (an AIPerf profile_export.jsonl record has metadata, metrics, error)");
  ExportedRequest q;
  q.where = fmt::format("line {}", line);
  const json* start = field(*meta, "request_start_ns");
  if (!start) start = field(*meta, "timestamp_ns");
  if (!start || !start->is_number_integer() || start->get<std::int64_t>() < 0)
    fail_at(path, line, fmt::format("metadata.request_start_ns must be an integer of nanoseconds, got {}",
                                    start ? excerpt(start->dump()) : std::string("nothing")));
  q.start_s = static_cast<double>(start->get<std::int64_t>()) * 1e-9;
  const json empty = json::object();
  const json* metrics_ptr = field(j, "metrics");
  const json& metrics = metrics_ptr && metrics_ptr->is_object() ? *metrics_ptr : empty;
  const bool cancelled = field(*meta, "was_cancelled") && meta->at("was_cancelled").is_boolean() &&
                         meta->at("was_cancelled").get<bool>();
  const bool failed = field(j, "error") != nullptr || cancelled;

  for (const auto& [tag, value] : metrics.items())
    if (!known_metric(tag) && unknown.size() < 32) unknown.insert(tag);
  auto in = token_metric(metrics, "input_sequence_length", path, line);
  if (!in) in = token_metric(metrics, "error_isl", path, line);
  auto out = token_metric(metrics, "output_sequence_length", path, line);
  if (!out) {  // every generated token: the answer's and the reasoning's
    const auto answer = token_metric(metrics, "output_token_count", path, line);
    const auto reasoning = token_metric(metrics, "reasoning_token_count", path, line);
    if (answer || reasoning) out = answer.value_or(0) + reasoning.value_or(0);
  }
  if (!failed && (!in || *in < 1))
    fail_at(path, line, "a successful record without metrics.input_sequence_length >= 1: its prompt length is unknown");
  if (!failed && (!out || *out < 1))
    fail_at(path, line,
            "a successful record without metrics.output_sequence_length >= 1: its output length is unknown");
  q.input_tokens = std::max<std::int64_t>(1, in.value_or(0));
  q.output_tokens = std::max<std::int64_t>(1, out.value_or(0));
  q.tokens_adjusted = !in || *in < 1 || !out || *out < 1;
  if (failed) return q;

  q.measured = true;
  const std::string where = q.where + ": metrics.";
  const char* ttft_name = "time_to_first_token";
  const json* ttft = field_any(metrics, {"time_to_first_token", "ttft"}, &ttft_name);
  const json* e2e = field(metrics, "request_latency");
  if (!e2e)
    fail_at(path, line,
            fmt::format("a successful record without metrics.request_latency: not an AIPerf record layout servesim "
                        "knows (metrics: {})",
                        metric_names(metrics)));
  const bool streamed = field_any(metrics, {"inter_chunk_latency", "time_to_second_token", "ttst"}) != nullptr;
  if (streamed && !ttft)
    fail_at(path, line,
            fmt::format("a streamed record (inter-chunk or second-token times) without time_to_first_token or ttft: "
                        "not an AIPerf record layout servesim knows (metrics: {})",
                        metric_names(metrics)));
  q.ttft_ms = ttft ? trace_detail::latency_ms(*ttft, "ms", path, where + ttft_name) : std::nullopt;
  q.e2e_ms = trace_detail::latency_ms(*e2e, "ms", path, where + "request_latency");
  if (q.output_tokens > 1)
    if (const json* tpot = field(metrics, "inter_token_latency"))
      q.tpot_ms = trace_detail::latency_ms(*tpot, "ms", path, where + "inter_token_latency");
  if (const json* icl = field(metrics, "inter_chunk_latency"); icl && icl->is_object() && field(*icl, "value")) {
    const json& gaps = icl->at("value");
    const std::string unit = icl->contains("unit") && icl->at("unit").is_string() ? icl->at("unit").get<std::string>()
                                                                                 : "ms";
    if (!gaps.is_array()) fail_at(path, line, "metrics.inter_chunk_latency.value must be a list");
    if (static_cast<std::int64_t>(gaps.size()) == q.output_tokens - 1) {  // one token per chunk
      for (std::size_t k = 0; k < gaps.size(); ++k)
        q.itl_ms.push_back(*trace_detail::latency_ms(gaps[k], unit, path,
                                                     fmt::format("{}inter_chunk_latency[{}]", where, k)));
    }
  }
  return q;
}

ExportedRun load_records(const std::string& path) {
  trace_detail::LineReader in(path);
  ExportedRun run;
  run.path = path;
  std::string text;
  std::set<std::string> unknown;
  while (in.next(text)) {
    const std::string t = trim(text);
    if (t.empty() || t[0] == '#') continue;
    const json j = parse_json_or_discarded(t);
    if (j.is_discarded()) fail_at(path, in.line_number(), "not a JSON object (one AIPerf record per line)");
    try {
      ExportedRequest q = parse_record(j, path, in.line_number(), unknown);
      run.failed += q.measured ? 0 : 1;
      run.tokens_adjusted += q.tokens_adjusted ? 1 : 0;
      run.requests.push_back(std::move(q));
    } catch (const json::exception& e) {
      fail_at(path, in.line_number(), fmt::format("unexpected value: {}", e.what()));
    }
  }
  if (run.requests.empty()) throw Error(fmt::format("{}: the AIPerf export holds no records", path));
  if (!unknown.empty())
    warn(fmt::format("{}: metrics servesim does not know are left out of the comparison: {}", path,
                     join(std::vector<std::string>(unknown.begin(), unknown.end()))));
  trace_detail::sort_by_start(run);
  return run;
}
}  // namespace

trace_detail::ExportedRun trace_detail::load_aiperf_records(const std::string& path) { return load_records(path); }

std::unique_ptr<TraceReader> open_aiperf_trace(const std::string& path) {
  trace_detail::ExportedRun run = load_records(path);
  trace_detail::warn_adjusted(path, run);
  return trace_detail::open_exported_run(path, TraceFormat::aiperf, std::move(run));
}

std::vector<MeasuredRequest> read_measured_aiperf(const std::string& path, std::vector<double>* itl_gaps) {
  return trace_detail::measured_requests(load_records(path), itl_gaps);
}

}  // namespace servesim
