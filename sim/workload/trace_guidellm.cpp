// GuideLLM benchmark reports (`guidellm benchmark --output-path report.json|.yaml`):
// a GenerativeBenchmarksReport, {"benchmarks": [{"requests": {"successful": [...],
// "errored": [...], "incomplete": [...]}, ...}, ...]}, one benchmark per load level of
// the run. Field names follow GuideLLM's pydantic models, whose computed fields are
// serialized with each request (github vllm-project/guidellm,
// src/guidellm/benchmark/objects.py in v0.3; src/guidellm/schemas/ and
// benchmark/schemas/generative/ from v0.4):
//   request_start_time (epoch s; v0.4+) or info.timings.request_start (v0.4+) or
//   scheduler_info.request_timings.request_start (v0.3) or start_time   -> send time
//   prompt_tokens, output_tokens                                        -> lengths
//   time_to_first_token_ms                                               -> TTFT
//   inter_token_latency_ms = (last token - first token) / (output - 1)   -> TPOT (servesim's definition)
//   request_latency (seconds, end - start)                               -> E2E
// GuideLLM's time_per_output_token_ms includes the first token's wait, so it is not
// servesim's TPOT and is not read. The benchmarks of a sweep ran one after another:
// every request of every benchmark is replayed at its recorded send time, so the gaps
// between benchmarks are idle time, as they were.
#include <fmt/format.h>

#include <cmath>

#include "util/error.h"
#include "util/json_file.h"
#include "util/text.h"
#include "workload/measured_requests.h"
#include "workload/trace_export.h"

namespace servesim {

namespace {
using nlohmann::json;
using trace_detail::ExportedRequest;
using trace_detail::ExportedRun;

const json* find_path(const json& j, std::initializer_list<const char*> keys) {
  const json* cur = &j;
  for (const char* k : keys) {
    if (!cur->is_object() || !cur->contains(k) || cur->at(k).is_null()) return nullptr;
    cur = &cur->at(k);
  }
  return cur;
}

// A token count: an integer (or integral number) >= 0, or nullopt when absent/null.
std::optional<std::int64_t> count_field(const json& r, const char* key, const std::string& path,
                                        const std::string& where) {
  const json* v = find_path(r, {key});
  if (!v) return std::nullopt;
  if (v->is_number()) {
    const double d = v->get<double>();
    if (std::isfinite(d) && d >= 0 && std::floor(d) == d && d < 9.0e15) return static_cast<std::int64_t>(d);
  }
  throw Error(fmt::format("{}: {}.{} must be an integer >= 0, got {}", path, where, key, excerpt(v->dump())));
}

double start_time(const json& r, const std::string& path, const std::string& where) {
  for (const auto& keys : {std::vector<const char*>{"request_start_time"},
                           std::vector<const char*>{"info", "timings", "request_start"},
                           std::vector<const char*>{"scheduler_info", "request_timings", "request_start"},
                           std::vector<const char*>{"start_time"}}) {
    const json* cur = &r;
    for (const char* k : keys) {
      cur = cur && cur->is_object() && cur->contains(k) && !cur->at(k).is_null() ? &cur->at(k) : nullptr;
    }
    if (!cur) continue;
    if (!cur->is_number() || !std::isfinite(cur->get<double>()))
      throw Error(fmt::format("{}: {}: the request start time must be a number of seconds, got {}", path, where,
                              excerpt(cur->dump())));
    return cur->get<double>();
  }
  throw Error(fmt::format("{}: {}: no request start time (looked for request_start_time, info.timings.request_start, "
                          "scheduler_info.request_timings.request_start, start_time)",
                          path, where));
}

ExportedRequest read_request(const json& r, bool successful, const std::string& path, const std::string& where) {
  if (!r.is_object()) throw Error(fmt::format("{}: {}: expected a request object, got {}", path, where, excerpt(r.dump())));
  ExportedRequest q;
  q.where = where;
  q.start_s = start_time(r, path, where);
  const auto in = count_field(r, "prompt_tokens", path, where);
  const auto out = count_field(r, "output_tokens", path, where);
  if (successful && (!in || *in < 1))
    throw Error(fmt::format("{}: {}: a successful request without prompt_tokens >= 1: its prompt length is unknown",
                            path, where));
  if (successful && (!out || *out < 1))
    throw Error(fmt::format("{}: {}: a successful request without output_tokens >= 1: its output length is unknown",
                            path, where));
  q.input_tokens = std::max<std::int64_t>(1, in.value_or(0));
  q.output_tokens = std::max<std::int64_t>(1, out.value_or(0));
  q.tokens_adjusted = !in || *in < 1 || !out || *out < 1;
  if (!successful) return q;
  // Never a silently missing metric: a successful request with none of the measured fields
  // is a layout servesim does not know (a GuideLLM version that moved them).
  if (!find_path(r, {"time_to_first_token_ms"}) && !find_path(r, {"inter_token_latency_ms"}) &&
      !find_path(r, {"request_latency"})) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : r.items()) keys.push_back(k);
    throw Error(fmt::format("{}: {}: a successful request without time_to_first_token_ms, inter_token_latency_ms or "
                            "request_latency: not a GuideLLM request layout servesim knows (keys: {})",
                            path, where, keys.empty() ? std::string("none") : join(keys)));
  }
  q.measured = true;
  q.ttft_ms = trace_detail::latency_ms(r.value("time_to_first_token_ms", json()), "ms", path,
                                       where + ".time_to_first_token_ms");
  if (q.output_tokens > 1)
    q.tpot_ms = trace_detail::latency_ms(r.value("inter_token_latency_ms", json()), "ms", path,
                                         where + ".inter_token_latency_ms");
  q.e2e_ms = trace_detail::latency_ms(r.value("request_latency", json()), "s", path, where + ".request_latency");
  return q;
}

ExportedRun load_guidellm_fields(const std::string& path) {
  const json doc = trace_detail::read_export_document(path);
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc.at("benchmarks").is_array())
    throw Error(fmt::format("{}: not a GuideLLM report: expected an object with a 'benchmarks' list", path));
  ExportedRun run;
  run.path = path;
  const json& benchmarks = doc.at("benchmarks");
  if (benchmarks.empty()) throw Error(fmt::format("{}: the GuideLLM report holds no benchmarks", path));
  for (std::size_t b = 0; b < benchmarks.size(); ++b) {
    const std::string bw = fmt::format("benchmarks[{}]", b);
    const json* requests = find_path(benchmarks[b], {"requests"});
    if (!requests || !requests->is_object())
      throw Error(fmt::format("{}: {}: no 'requests' object (successful, errored, incomplete): the report was saved "
                              "without per-request details",
                              path, bw));
    for (const char* status : {"successful", "errored", "incomplete"}) {
      const json* list = find_path(*requests, {status});
      if (!list) continue;
      if (!list->is_array())
        throw Error(fmt::format("{}: {}.requests.{} must be a list", path, bw, status));
      const bool ok = std::string(status) == "successful";
      for (std::size_t i = 0; i < list->size(); ++i) {
        ExportedRequest q = read_request((*list)[i], ok, path, fmt::format("{}.requests.{}[{}]", bw, status, i));
        run.failed += ok ? 0 : 1;
        run.tokens_adjusted += q.tokens_adjusted ? 1 : 0;
        run.requests.push_back(std::move(q));
      }
    }
    if (run.model_id.empty()) {
      // v0.3 records the served model under the benchmark's worker; later reports under args.
      if (const json* m = find_path(benchmarks[b], {"worker", "backend_model"}); m && m->is_string())
        run.model_id = m->get<std::string>();
    }
  }
  if (run.model_id.empty())
    if (const json* m = find_path(doc, {"args", "model"}); m && m->is_string()) run.model_id = m->get<std::string>();
  if (run.requests.empty())
    throw Error(fmt::format("{}: the GuideLLM report's benchmarks hold no requests", path));
  trace_detail::sort_by_start(run);
  return run;
}
}  // namespace

trace_detail::ExportedRun trace_detail::load_guidellm_report(const std::string& path) {
  try {
    return load_guidellm_fields(path);
  } catch (const json::exception& e) {
    throw Error(json_field_error(path, "unexpected value", e));
  }
}

std::unique_ptr<TraceReader> open_guidellm_trace(const std::string& path) {
  trace_detail::ExportedRun run = trace_detail::load_guidellm_report(path);
  trace_detail::warn_adjusted(path, run);
  return trace_detail::open_exported_run(path, TraceFormat::guidellm, std::move(run));
}

std::vector<MeasuredRequest> read_measured_guidellm(const std::string& path) {
  return trace_detail::measured_requests(trace_detail::load_guidellm_report(path));
}

}  // namespace servesim
