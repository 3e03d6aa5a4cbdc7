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
// Older AIPerf versions call the send time metadata.timestamp_ns.
#include <fmt/format.h>

#include <cmath>

#include "util/json_file.h"
#include "util/error.h"
#include "util/text.h"
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

ExportedRequest parse_record(const json& j, const std::string& path, std::int64_t line) {
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

  auto in = token_metric(metrics, "input_sequence_length", path, line);
  if (!in) in = token_metric(metrics, "error_isl", path, line);
  auto out = token_metric(metrics, "output_sequence_length", path, line);
  if (!out) out = token_metric(metrics, "output_token_count", path, line);
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
  auto metric = [&](const char* key) -> std::optional<double> {
    const json* m = field(metrics, key);
    return m ? trace_detail::latency_ms(*m, "ms", path, where + key) : std::nullopt;
  };
  q.ttft_ms = metric("time_to_first_token");
  q.e2e_ms = metric("request_latency");
  if (q.output_tokens > 1) q.tpot_ms = metric("inter_token_latency");
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
  while (in.next(text)) {
    const std::string t = trim(text);
    if (t.empty() || t[0] == '#') continue;
    const json j = parse_json_or_discarded(t);
    if (j.is_discarded()) fail_at(path, in.line_number(), "not a JSON object (one AIPerf record per line)");
    try {
      ExportedRequest q = parse_record(j, path, in.line_number());
      run.failed += q.measured ? 0 : 1;
      run.tokens_adjusted += q.tokens_adjusted ? 1 : 0;
      run.requests.push_back(std::move(q));
    } catch (const json::exception& e) {
      fail_at(path, in.line_number(), fmt::format("unexpected value: {}", e.what()));
    }
  }
  if (run.requests.empty()) throw Error(fmt::format("{}: the AIPerf export holds no records", path));
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
