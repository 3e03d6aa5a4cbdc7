// A `vllm bench serve --save-result` JSON saved without --save-detailed: vLLM then drops
// the per-request lists (input_lens, output_lens, start_times, ttfts, itls,
// generated_texts, errors; vllm-project/vllm, vllm/benchmarks/serve.py, main_async) and
// keeps the run's settings and statistics:
//   num_prompts, request_rate ("inf" or a number), burstiness, max_concurrency   -> how it sent
//   completed, failed, total_input_tokens, total_output_tokens                    -> mean lengths
//   duration, request_throughput, output_throughput, model_id
//   mean_/median_/std_/p<P>_ {ttft, tpot, itl, e2el} _ms, one set per --percentile-metrics
//   entry, P from --metric-percentiles (default "99")
//   latencies (s, one per request: kept without --save-detailed too) -> the E2E
//   distribution when the file has no e2el statistics and no request failed (a failed
//   request's latency is not a measurement, and without `errors` it cannot be told apart)
// The requests are regenerated (trace_regenerated.h): completed + failed of them, every one
// with the mean prompt and output length (total tokens over completed requests: vLLM
// counts successful requests only), sent as the run sent them (gamma gaps of shape
// burstiness at request_rate, all at once when it is inf, under max_concurrency when set).
// `validate` then compares the file's statistics with the simulation's; a percentile
// the file does not give is left out (NaN), never made up.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

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
using trace_detail::RegeneratedRun;

const json* member(const json& doc, const std::string& key) {
  return doc.contains(key) && !doc.at(key).is_null() ? &doc.at(key) : nullptr;
}

std::optional<double> number(const json& doc, const std::string& key, const std::string& path) {
  const json* v = member(doc, key);
  if (!v) return std::nullopt;
  if (v->is_string()) {
    const std::string s = to_lower(trim(v->get<std::string>()));
    if (s == "inf" || s == "infinity") return std::numeric_limits<double>::infinity();
  }
  if (!v->is_number() || std::isnan(v->get<double>()))
    throw Error(fmt::format("{}: '{}' must be a number, got {}", path, key, excerpt(v->dump())));
  return v->get<double>();
}

std::int64_t count(const json& doc, const char* key, const std::string& path) {
  const auto v = number(doc, key, path);
  if (!v) return -1;
  if (!(*v >= 0) || *v > 1e9 || std::floor(*v) != *v)
    throw Error(fmt::format("{}: '{}' must be an integer in 0..1e9, got {}", path, key, *v));
  return static_cast<std::int64_t>(*v);
}

// The latency statistics vLLM wrote for one metric ("ttft", "tpot", "itl", "e2el").
std::optional<MeasuredStats> latency_stats(const json& doc, const std::string& name, std::int64_t n,
                                           const std::string& path) {
  const auto mean = number(doc, "mean_" + name + "_ms", path);
  if (!mean) return std::nullopt;
  auto ms = [&](const std::string& key) {
    const auto v = number(doc, key, path);
    if (v && !(*v >= 0 && std::isfinite(*v)))
      throw Error(fmt::format("{}: '{}' must be a finite latency >= 0 ms, got {}", path, key, *v));
    return v.value_or(std::nan(""));
  };
  MeasuredStats s;
  s.count = n;
  s.mean = ms("mean_" + name + "_ms");
  s.p50 = member(doc, "median_" + name + "_ms") ? ms("median_" + name + "_ms") : ms("p50_" + name + "_ms");
  s.p90 = ms("p90_" + name + "_ms");
  s.p95 = ms("p95_" + name + "_ms");
  s.p99 = ms("p99_" + name + "_ms");
  s.min = std::nan("");
  s.max = std::nan("");
  return s;
}

// The E2E distribution from the per-request latencies (seconds), nearest-rank percentiles.
std::optional<MeasuredStats> latencies_stats(const json& doc, std::int64_t completed, std::int64_t failed,
                                             const std::string& path) {
  const json* a = member(doc, "latencies");
  if (!a || failed > 0) return std::nullopt;
  if (!a->is_array() || static_cast<std::int64_t>(a->size()) != completed)
    throw Error(fmt::format("{}: 'latencies' must hold one number per completed request ({}), got {}", path, completed,
                            a->is_array() ? fmt::format("{} entries", a->size()) : excerpt(a->dump())));
  std::vector<double> v;
  v.reserve(a->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    const json& x = (*a)[i];
    if (!x.is_number() || !(x.get<double>() >= 0) || !std::isfinite(x.get<double>()))
      throw Error(fmt::format("{}: latencies[{}] must be a finite number of seconds >= 0, got {}", path, i,
                              excerpt(x.dump())));
    v.push_back(x.get<double>() * 1e3);
  }
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  auto rank = [&](double p) {  // nearest rank: the ceil(p n)-th smallest
    const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(k, 1, v.size()) - 1];
  };
  MeasuredStats s;
  s.count = static_cast<std::int64_t>(v.size());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  s.p50 = rank(0.50);
  s.p90 = rank(0.90);
  s.p95 = rank(0.95);
  s.p99 = rank(0.99);
  s.min = v.front();
  s.max = v.back();
  return s;
}

RegeneratedRun load_fields(const std::string& path) {
  const json doc = trace_detail::read_export_document(path);
  if (!doc.is_object()) throw Error(fmt::format("{}: expected a JSON object (a vllm bench serve result)", path));
  RegeneratedRun run;
  MeasuredAggregate& m = run.measured;
  m.tool = "vllm bench serve";
  const std::int64_t completed = count(doc, "completed", path), failed = count(doc, "failed", path),
                     prompts = count(doc, "num_prompts", path);
  m.requests = completed >= 0 ? completed + std::max<std::int64_t>(failed, 0) : prompts;
  m.errored = std::max<std::int64_t>(failed, 0);
  if (m.requests < 1)
    throw Error(fmt::format("{}: no request count (completed + failed, or num_prompts) >= 1: the run cannot be "
                            "regenerated",
                            path));
  if (completed < 1)
    throw Error(fmt::format("{}: 'completed' must be >= 1: the mean lengths are the token totals over the completed "
                            "requests",
                            path));
  const auto in_total = number(doc, "total_input_tokens", path), out_total = number(doc, "total_output_tokens", path);
  if (!in_total || !out_total || !(*in_total >= completed) || !(*out_total >= 0) || !std::isfinite(*in_total) ||
      !std::isfinite(*out_total))
    throw Error(fmt::format("{}: needs total_input_tokens >= completed and total_output_tokens >= 0 (the lengths "
                            "are regenerated from their means)",
                            path));
  run.isl.points = {{0.5, *in_total / static_cast<double>(completed)}};
  run.osl.points = {{0.5, std::max(1.0, *out_total / static_cast<double>(completed))}};

  m.request_rate = number(doc, "request_rate", path);
  if (m.request_rate && !(*m.request_rate > 0))
    throw Error(fmt::format("{}: request_rate must be > 0 or \"inf\", got {}", path, *m.request_rate));
  if (const auto b = number(doc, "burstiness", path)) {
    if (!(*b >= 1e-6 && *b <= 1e6))
      throw Error(fmt::format("{}: burstiness must be between 1e-06 and 1e+06, got {}", path, *b));
    run.burstiness = *b;
  }
  if (const auto c = number(doc, "max_concurrency", path)) {
    if (!(*c >= 1) || std::floor(*c) != *c || *c > 1e9)
      throw Error(fmt::format("{}: max_concurrency must be an integer >= 1 or null, got {}", path, *c));
    m.concurrency = *c;
  }
  run.paced_under_concurrency = true;
  m.request_throughput = number(doc, "request_throughput", path).value_or(0.0);
  m.output_tps = number(doc, "output_throughput", path).value_or(0.0);
  m.duration_s = number(doc, "duration", path).value_or(0.0);
  if (!m.concurrency && !m.request_rate && !(m.request_throughput > 0))
    throw Error(fmt::format("{}: neither max_concurrency, request_rate nor request_throughput: how the requests were "
                            "sent is unknown",
                            path));
  if (const json* id = member(doc, "model_id"); id && id->is_string()) m.model_id = id->get<std::string>();

  for (const auto& [metric, name] : {std::pair<const char*, const char*>{"ttft", "ttft"},
                                     {"tpot", "tpot"},
                                     {"itl", "itl"},
                                     {"e2e", "e2el"}})
    if (auto s = latency_stats(doc, name, completed, path)) m.metrics.emplace_back(metric, *s);
  const bool has_e2e = std::any_of(m.metrics.begin(), m.metrics.end(), [](const auto& e) { return e.first == "e2e"; });
  if (!has_e2e)
    if (auto s = latencies_stats(doc, completed, std::max<std::int64_t>(failed, 0), path)) m.metrics.emplace_back("e2e", *s);
  if (m.metrics.empty())
    throw Error(fmt::format("{}: no latency statistics (mean_ttft_ms, mean_tpot_ms, mean_itl_ms or mean_e2el_ms): "
                            "not a vllm bench serve result servesim knows",
                            path));
  return run;
}

RegeneratedRun load(const std::string& path) {
  try {
    return load_fields(path);
  } catch (const json::exception& e) {
    throw Error(json_field_error(path, "unexpected value", e));
  }
}
}  // namespace

std::unique_ptr<TraceReader> open_vllm_bench_summary_trace(const std::string& path, std::uint64_t seed) {
  return trace_detail::open_regenerated_run(path, TraceFormat::vllm_bench_summary, load(path), seed);
}

MeasuredAggregate read_measured_vllm_bench_summary(const std::string& path, std::uint64_t seed) {
  const RegeneratedRun run = load(path);
  MeasuredAggregate m = run.measured;
  m.arrivals = fmt::format("{}; every request {} prompt and {} output tokens (the file's means: it keeps no "
                           "per-request lengths without --save-detailed)",
                           trace_detail::regenerated_arrivals(run, seed), std::llround(run.isl.at(0.5)),
                           std::llround(run.osl.at(0.5)));
  return m;
}

}  // namespace servesim
