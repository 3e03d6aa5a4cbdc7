// Aggregate-only exports: AIPerf's `profile_export_aiperf.json` (github ai-dynamo/aiperf,
// docs/tutorials/working-with-profile-exports.md, "Aggregated Statistics (JSON)";
// aiperf/common/models/export_models.py, JsonExportData) and genai-perf's
// `profile_export_genai_perf.json` (its JsonExporter; github
// triton-inference-server/perf_analyzer, genai-perf/genai_perf/export_data/json_exporter.py).
// Both write one object per metric, {"unit": "ms", "avg": .., "min": .., "max": ..,
// "p1".."p99": .., "std": ..}, beside the run's input_config. Two layouts are read:
//   - metrics at the top level, TTFT as "time_to_first_token" (genai-perf; AIPerf since
//     its JsonExportData, 2025-10);
//   - metrics under "records", each with its "tag" and "header", TTFT as "ttft" and the
//     second token as "ttst" (AIPerf's examples/artifacts/run1, ai-dynamo/aiperf@7c31f579,
//     2025-10-03; tests/fixtures/tool_exports/).
// A file in neither layout is an error that lists what it holds, never a run with a
// metric silently missing.
//
// Without per-request records the run is regenerated (trace_regenerated.h): request_count requests whose
// prompt and output lengths follow the files' input/output_sequence_length
// distributions (the value at quantile (k + 0.5) / n of the piecewise-linear quantile
// function through min, the percentiles and max; lengths shuffled independently with
// the workload seed; past 10M requests, where holding every length
// would cost 16 bytes a request, each length is drawn independently from that quantile
// function instead), sent as the run sent them: all at once under the recorded
// concurrency limit (input_config.loadgen.concurrency in AIPerf, input_config.concurrency
// in genai-perf), else as a Poisson stream at the recorded request rate, else at the
// measured request_throughput. `validate` then compares distributions only.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "util/json_file.h"
#include "util/text.h"
#include "workload/measured_requests.h"
#include "workload/trace_export.h"
#include "workload/trace_reader.h"
#include "workload/trace_regenerated.h"

namespace servesim {

namespace {
using nlohmann::json;
using trace_detail::Quantiles;
using trace_detail::RegeneratedRun;

// The latency metrics read, each under every name a version of the tools gave it.
struct LatencyMetric {
  const char* metric;                   // servesim's name: "ttft", "tpot", "e2e"
  std::vector<const char*> names;       // the file's names, newest first
};
const std::vector<LatencyMetric>& latency_metrics() {
  static const std::vector<LatencyMetric> m = {
      {"ttft", {"time_to_first_token", "ttft"}},
      // Both tools' inter_token_latency is (E2E - TTFT) / (OSL - 1): servesim's TPOT.
      {"tpot", {"inter_token_latency"}},
      {"e2e", {"request_latency"}},
  };
  return m;
}

const json* field(const json& j, std::initializer_list<const char*> keys) {
  const json* cur = &j;
  for (const char* k : keys) {
    if (!cur->is_object() || !cur->contains(k) || cur->at(k).is_null()) return nullptr;
    cur = &cur->at(k);
  }
  return cur;
}

// The statistic `stat` of the metric object `name`, in the metric's own unit.
std::optional<double> stat(const json& doc, const char* name, const char* stat_name, const std::string& path) {
  const json* v = field(doc, {name, stat_name});
  if (!v) return std::nullopt;
  if (!v->is_number() || !std::isfinite(v->get<double>()))
    throw Error(fmt::format("{}: {}.{} must be a finite number, got {}", path, name, stat_name, excerpt(v->dump())));
  return v->get<double>();
}

std::optional<double> positive(const json* v, const std::string& path, const std::string& key) {
  if (!v) return std::nullopt;
  if (!v->is_number() || !(v->get<double>() > 0) || !std::isfinite(v->get<double>()))
    throw Error(fmt::format("{}: {} must be a finite number > 0, got {}", path, key, excerpt(v->dump())));
  return v->get<double>();
}

Quantiles length_quantiles(const json& doc, const char* name, const std::string& path) {
  Quantiles qs;
  const auto avg = stat(doc, name, "avg", path);
  if (!avg || *avg < 0)
    throw Error(fmt::format("{}: missing '{}.avg' (the mean {} length in tokens): the requests cannot be regenerated",
                            path, name, std::string(name).substr(0, std::string(name).find('_'))));
  static const std::vector<std::pair<const char*, double>> kStats = {
      {"min", 0.0},  {"p1", 0.01},  {"p5", 0.05},  {"p10", 0.10}, {"p25", 0.25}, {"p50", 0.50},
      {"p75", 0.75}, {"p90", 0.90}, {"p95", 0.95}, {"p99", 0.99}, {"max", 1.0}};
  for (const auto& [key, q] : kStats)
    if (const auto v = stat(doc, name, key, path)) qs.points.emplace_back(q, *v);
  if (qs.points.size() < 2) qs.points = {{0.5, *avg}};
  for (std::size_t i = 1; i < qs.points.size(); ++i)
    if (qs.points[i].second < qs.points[i - 1].second)
      throw Error(fmt::format("{}: {}: the percentiles decrease ({} then {})", path, name, qs.points[i - 1].second,
                              qs.points[i].second));
  return qs;
}

// Where a summary keeps its metric objects: under "records" (AIPerf before its
// JsonExportData) or at the top level.
const json& metrics_of(const json& doc) {
  const json* records = field(doc, {"records"});
  return records && records->is_object() ? *records : doc;
}

// The first of `names` that the metrics hold, nullptr when none.
const char* present_name(const json& metrics, const std::vector<const char*>& names) {
  for (const char* n : names)
    if (field(metrics, {n})) return n;
  return nullptr;
}

// The keys of an object, for messages ("a, b, c" with at most 12 shown).
std::string keys_of(const json& j) {
  std::vector<std::string> keys;
  if (j.is_object())
    for (const auto& [k, v] : j.items()) keys.push_back(k);
  const std::size_t shown = std::min<std::size_t>(keys.size(), 12);
  std::string out = join(std::vector<std::string>(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(shown)));
  if (keys.size() > shown) out += fmt::format(", ... ({} keys)", keys.size());
  return out.empty() ? "none" : out;
}

RegeneratedRun load_summary_fields(const std::string& path) {
  const json doc = trace_detail::read_export_document(path);
  if (!doc.is_object()) throw Error(fmt::format("{}: expected a JSON object (an AIPerf or genai-perf summary)", path));
  const json& metrics = metrics_of(doc);
  const std::string where = &metrics == &doc ? std::string() : "records.";
  bool any_latency = false;
  for (const auto& lm : latency_metrics()) any_latency = any_latency || present_name(metrics, lm.names);
  if (!any_latency)
    throw Error(fmt::format("{}: not a summary layout servesim knows: no time_to_first_token (or ttft), "
                            "inter_token_latency or request_latency statistics {}(keys found: {}); an AIPerf or "
                            "genai-perf summary holds them at the top level or under \"records\"",
                            path, where.empty() ? "at the top level " : "under \"records\" ", keys_of(metrics)));
  RegeneratedRun s;
  MeasuredAggregate& m = s.measured;
  m.tool = field(doc, {"input_config", "loadgen"}) || field(doc, {"error_summary"}) ? "AIPerf" : "genai-perf";

  std::optional<double> count = stat(metrics, "request_count", "avg", path);
  for (const auto& keys : {std::vector<const char*>{"input_config", "loadgen", "request_count"},
                           std::vector<const char*>{"input_config", "request_count"}}) {
    if (count) break;
    const json* cur = &doc;
    for (const char* k : keys) cur = cur ? field(*cur, {k}) : nullptr;
    if (cur) count = positive(cur, path, "input_config request_count");
  }
  if (!count || !(*count >= 1) || *count > 1e9 || std::floor(*count) != *count)
    throw Error(fmt::format("{}: no request count (request_count.avg, or input_config's request_count) that is an "
                            "integer in 1..1e9: the run cannot be regenerated",
                            path));
  m.requests = static_cast<std::int64_t>(*count);
  if (const auto errors = stat(metrics, "error_request_count", "avg", path); errors && *errors >= 1)
    m.errored = static_cast<std::int64_t>(*errors);

  if (const json* c = field(doc, {"input_config", "loadgen", "concurrency"}); c) m.concurrency = positive(c, path, "input_config.loadgen.concurrency");
  else if (const json* c2 = field(doc, {"input_config", "concurrency"})) m.concurrency = positive(c2, path, "input_config.concurrency");
  if (const json* r = field(doc, {"input_config", "loadgen", "request_rate"}); r) m.request_rate = positive(r, path, "input_config.loadgen.request_rate");
  else if (const json* r2 = field(doc, {"input_config", "request_rate"})) m.request_rate = positive(r2, path, "input_config.request_rate");
  if (m.request_rate && std::isinf(*m.request_rate))
    throw Error(fmt::format("{}: the request rate must be finite", path));
  if (m.concurrency && std::floor(*m.concurrency) != *m.concurrency)
    throw Error(fmt::format("{}: the concurrency must be an integer, got {}", path, *m.concurrency));
  m.request_throughput = stat(metrics, "request_throughput", "avg", path).value_or(0.0);
  m.output_tps = stat(metrics, "output_token_throughput", "avg", path).value_or(0.0);
  m.duration_s = stat(metrics, "benchmark_duration", "avg", path).value_or(0.0);
  if (!m.concurrency && !m.request_rate && !(m.request_throughput > 0))
    throw Error(fmt::format("{}: neither a concurrency, a request rate nor request_throughput.avg: how the requests "
                            "were sent is unknown",
                            path));
  if (const json* names = field(doc, {"input_config", "endpoint", "model_names"}); names && names->is_array() &&
                                                                                  !names->empty() && (*names)[0].is_string())
    m.model_id = (*names)[0].get<std::string>();
  else if (const json* model = field(doc, {"input_config", "model"}); model && model->is_array() && !model->empty() &&
                                                                        (*model)[0].is_string())
    m.model_id = (*model)[0].get<std::string>();

  for (const auto& lm : latency_metrics()) {
    const char* name = present_name(metrics, lm.names);
    if (!name) continue;
    const json& obj = metrics.at(name);
    if (!obj.is_object())
      throw Error(fmt::format("{}: {}{} must be an object of statistics, got {}", path, where, name, excerpt(obj.dump())));
    const std::string unit = obj.contains("unit") && obj.at("unit").is_string() ? obj.at("unit").get<std::string>()
                                                                                 : "ms";
    MeasuredStats d;
    d.count = m.requests;
    // (a lambda over plain variables, not structured bindings: clang before 16 refuses to capture those)
    auto need = [&](const char* key) {
      const auto v = stat(metrics, name, key, path);
      if (!v)
        throw Error(fmt::format("{}: {}{} has no '{}' (a summary needs avg, p50, p90, p95 and p99 of each latency)",
                                path, where, name, key));
      return *trace_detail::latency_ms(json(*v), unit, path, fmt::format("{}{}.{}", where, name, key));
    };
    d.mean = need("avg");
    d.p50 = need("p50");
    d.p90 = need("p90");
    d.p95 = need("p95");
    d.p99 = need("p99");
    d.min = stat(metrics, name, "min", path) ? need("min") : d.p50;
    d.max = stat(metrics, name, "max", path) ? need("max") : d.p99;
    m.metrics.emplace_back(lm.metric, d);
  }
  s.isl = length_quantiles(metrics, "input_sequence_length", path);
  s.osl = length_quantiles(metrics, "output_sequence_length", path);
  return s;
}

RegeneratedRun load_summary(const std::string& path) {
  try {
    return load_summary_fields(path);
  } catch (const json::exception& e) {
    throw Error(json_field_error(path, "unexpected value", e));
  }
}
}  // namespace

std::unique_ptr<TraceReader> open_aiperf_summary_trace(const std::string& path, std::uint64_t seed) {
  return trace_detail::open_regenerated_run(path, TraceFormat::aiperf_summary, load_summary(path), seed);
}

MeasuredAggregate read_measured_aiperf_summary(const std::string& path, std::uint64_t seed) {
  const RegeneratedRun run = load_summary(path);
  MeasuredAggregate m = run.measured;
  m.arrivals = trace_detail::regenerated_arrivals(run, seed);
  return m;
}

}  // namespace servesim
