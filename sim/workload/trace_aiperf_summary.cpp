// Aggregate-only exports: AIPerf's `profile_export_aiperf.json` (github ai-dynamo/aiperf,
// docs/tutorials/working-with-profile-exports.md, "Aggregated Statistics (JSON)") and
// genai-perf's `profile_export_genai_perf.json` (its JsonExporter; github
// triton-inference-server/perf_analyzer, genai-perf/genai_perf/export_data/json_exporter.py).
// Both write one object per metric, {"unit": "ms", "avg": .., "min": .., "max": ..,
// "p1".."p99": .., "std": ..}, at the top level, beside the run's input_config.
//
// Without per-request records the run is regenerated: request_count requests whose
// prompt and output lengths follow the files' input/output_sequence_length
// distributions (the value at quantile (k + 0.5) / n of the piecewise-linear quantile
// function through min, the percentiles and max; lengths shuffled independently with
// the workload seed; past kMaxStratifiedRequests requests, where holding every length
// would cost 16 bytes a request, each length is drawn independently from that quantile
// function instead), sent as the run sent them: all at once under the recorded
// concurrency limit (input_config.loadgen.concurrency in AIPerf, input_config.concurrency
// in genai-perf), else as a Poisson stream at the recorded request rate, else at the
// measured request_throughput. `validate` then compares distributions only.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/rng.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/text.h"
#include "workload/measured_requests.h"
#include "workload/trace_export.h"
#include "workload/trace_reader.h"

namespace servesim {

namespace {
using nlohmann::json;

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

// Piecewise-linear quantile function through (0, min), (q, p_q) ..., (1, max) as far as
// the file gives them; the mean alone gives a constant.
struct Quantiles {
  std::vector<std::pair<double, double>> points;  // (quantile, value), increasing quantile
  double at(double q) const {
    if (points.size() == 1) return points.front().second;
    if (q <= points.front().first) return points.front().second;
    for (std::size_t i = 1; i < points.size(); ++i) {
      if (q <= points[i].first) {
        const auto [q0, v0] = points[i - 1];
        const auto [q1, v1] = points[i];
        return q1 > q0 ? v0 + (v1 - v0) * (q - q0) / (q1 - q0) : v1;
      }
    }
    return points.back().second;
  }
};

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

struct Summary {
  MeasuredAggregate measured;
  Quantiles isl, osl;
};

Summary load_summary_fields(const std::string& path) {
  const json doc = trace_detail::read_export_document(path);
  if (!doc.is_object()) throw Error(fmt::format("{}: expected a JSON object (an AIPerf or genai-perf summary)", path));
  Summary s;
  MeasuredAggregate& m = s.measured;
  m.tool = field(doc, {"input_config", "loadgen"}) || field(doc, {"error_summary"}) ? "AIPerf" : "genai-perf";

  std::optional<double> count = stat(doc, "request_count", "avg", path);
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

  if (const json* c = field(doc, {"input_config", "loadgen", "concurrency"}); c) m.concurrency = positive(c, path, "input_config.loadgen.concurrency");
  else if (const json* c2 = field(doc, {"input_config", "concurrency"})) m.concurrency = positive(c2, path, "input_config.concurrency");
  if (const json* r = field(doc, {"input_config", "loadgen", "request_rate"}); r) m.request_rate = positive(r, path, "input_config.loadgen.request_rate");
  else if (const json* r2 = field(doc, {"input_config", "request_rate"})) m.request_rate = positive(r2, path, "input_config.request_rate");
  if (m.concurrency && std::floor(*m.concurrency) != *m.concurrency)
    throw Error(fmt::format("{}: the concurrency must be an integer, got {}", path, *m.concurrency));
  m.request_throughput = stat(doc, "request_throughput", "avg", path).value_or(0.0);
  m.output_tps = stat(doc, "output_token_throughput", "avg", path).value_or(0.0);
  m.duration_s = stat(doc, "benchmark_duration", "avg", path).value_or(0.0);
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

  // Measured latencies: TTFT, TPOT (both tools' inter_token_latency is (E2E - TTFT) / (OSL - 1)), E2E.
  for (const auto& entry : {std::pair<const char*, const char*>{"ttft", "time_to_first_token"},
                             {"tpot", "inter_token_latency"},
                             {"e2e", "request_latency"}}) {
    // (plain variables, not a structured binding: the lambda below captures them, which
    // clang before 16 refuses for bindings)
    const char* metric = entry.first;
    const char* name = entry.second;
    const json* obj = field(doc, {name});
    if (!obj) continue;
    const std::string unit = obj->contains("unit") && obj->at("unit").is_string() ? obj->at("unit").get<std::string>()
                                                                                   : "ms";
    MeasuredStats d;
    d.count = m.requests;
    auto need = [&](const char* key) {
      const auto v = stat(doc, name, key, path);
      if (!v)
        throw Error(fmt::format("{}: {} has no '{}' (a summary needs avg, p50, p90, p95 and p99 of each latency)",
                                path, name, key));
      return *trace_detail::latency_ms(json(*v), unit, path, fmt::format("{}.{}", name, key));
    };
    d.mean = need("avg");
    d.p50 = need("p50");
    d.p90 = need("p90");
    d.p95 = need("p95");
    d.p99 = need("p99");
    d.min = stat(doc, name, "min", path) ? need("min") : d.p50;
    d.max = stat(doc, name, "max", path) ? need("max") : d.p99;
    m.metrics.emplace_back(metric, d);
  }
  if (m.metrics.empty())
    throw Error(fmt::format("{}: no time_to_first_token, inter_token_latency or request_latency statistics", path));
  s.isl = length_quantiles(doc, "input_sequence_length", path);
  s.osl = length_quantiles(doc, "output_sequence_length", path);
  return s;
}

Summary load_summary(const std::string& path) {
  try {
    return load_summary_fields(path);
  } catch (const json::exception& e) {
    throw Error(json_field_error(path, "unexpected value", e));
  }
}

// Up to this many requests the lengths are stratified and held in memory (two vectors of
// 8 bytes a request: 160 MB at the limit); a larger run draws them one at a time, so its
// empirical quantile levels carry sampling noise of about sqrt(p (1 - p) / n): 3e-5 at
// p = 0.99 and n = 10M, where stratifying pins them to 1 / n.
constexpr std::int64_t kMaxStratifiedRequests = 10'000'000;

// A length at quantile u of q, at least 1 token.
std::int64_t length_at(const Quantiles& q, double u) { return std::max<std::int64_t>(1, std::llround(q.at(u))); }

// Lengths at the midpoints of n equal quantile slices, shuffled (Fisher-Yates) by `rng`.
std::vector<std::int64_t> regenerated_lengths(const Quantiles& q, std::int64_t n, RandomStream& rng) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k)
    out[static_cast<std::size_t>(k)] = length_at(q, (static_cast<double>(k) + 0.5) / static_cast<double>(n));
  for (std::int64_t k = n - 1; k > 0; --k)
    std::swap(out[static_cast<std::size_t>(k)], out[static_cast<std::size_t>(rng.uniform_int(0, k))]);
  return out;
}

class SummaryTraceReader final : public TraceReader {
 public:
  SummaryTraceReader(const std::string& path, std::uint64_t seed)
      : TraceReader(path, TraceFormat::aiperf_summary),
        summary_(load_summary(path)),
        arrivals_(seed, "arrivals"),
        lengths_(seed, "lengths") {
    const MeasuredAggregate& m = summary_.measured;
    if (m.requests <= kMaxStratifiedRequests) {
      input_ = regenerated_lengths(summary_.isl, m.requests, lengths_);
      output_ = regenerated_lengths(summary_.osl, m.requests, lengths_);
    }
    rate_ = m.concurrency ? 0.0 : m.request_rate.value_or(m.request_throughput);
  }

  std::optional<TraceRecord> read() override {
    const MeasuredAggregate& m = summary_.measured;
    if (next_ >= m.requests) return std::nullopt;
    const auto i = static_cast<std::size_t>(next_++);
    TraceRecord r;
    r.line = next_;
    if (rate_ > 0 && i > 0) t_ += arrivals_.exponential(rate_);
    r.time_ns = static_cast<std::int64_t>(std::llround(t_ * 1e9));
    if (input_.empty()) {  // past kMaxStratifiedRequests: independent draws
      r.input_tokens = length_at(summary_.isl, lengths_.uniform01());
      r.output_tokens = length_at(summary_.osl, lengths_.uniform01());
    } else {
      r.input_tokens = input_[i];
      r.output_tokens = output_[i];
    }
    return r;
  }
  std::int64_t size() const override { return summary_.measured.requests; }
  std::optional<std::int64_t> max_concurrency() const override {
    if (!summary_.measured.concurrency) return std::nullopt;
    return static_cast<std::int64_t>(*summary_.measured.concurrency);
  }

 private:
  Summary summary_;
  RandomStream arrivals_;
  RandomStream lengths_;
  std::vector<std::int64_t> input_, output_;  // empty past kMaxStratifiedRequests
  double rate_ = 0, t_ = 0;
  std::int64_t next_ = 0;
};
}  // namespace

std::unique_ptr<TraceReader> open_aiperf_summary_trace(const std::string& path, std::uint64_t seed) {
  return std::make_unique<SummaryTraceReader>(path, seed);
}

MeasuredAggregate read_measured_aiperf_summary(const std::string& path, std::uint64_t seed) {
  MeasuredAggregate m = load_summary(path).measured;
  m.arrivals = m.concurrency ? fmt::format("all {} requests at once, at most {} in flight (the run's concurrency)",
                                           m.requests, static_cast<std::int64_t>(*m.concurrency))
               : m.request_rate
                   ? fmt::format("Poisson arrivals at the run's request rate, {:g} req/s, seed {}", *m.request_rate, seed)
                   : fmt::format("Poisson arrivals at the measured request throughput, {:g} req/s, seed {} (the file "
                                 "records no rate or concurrency)",
                                 m.request_throughput, seed);
  return m;
}

}  // namespace servesim
