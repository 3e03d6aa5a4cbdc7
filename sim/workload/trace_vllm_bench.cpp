// A `vllm bench serve --save-result --save-detailed` JSON replayed as a trace: its
// per-request input_lens / output_lens (vllm-project/vllm, vllm/benchmarks/serve.py,
// benchmark() and main_async()). Send times:
//   - start_times (perf_counter seconds when each request was sent, after waiting for a
//     --max-concurrency slot; vLLM writes them since 2025) less queue_times (that wait)
//     when the file has them: the run's own arrivals, relative to the first;
//   - otherwise regenerated the way vLLM's get_request() draws them.
// Measured: ttfts (s), itls (s, per-token gaps), latencies (s, end to end; used when a
// request has no itls), errors. Without --save-detailed vLLM keeps only statistics:
// that file is vllm_bench_summary (trace_vllm_bench_summary.cpp).
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "core/sim_time.h"
#include "util/error.h"
#include "util/warnings.h"
#include "util/json_file.h"
#include "util/paths.h"
#include "util/text.h"
#include "workload/measured_requests.h"
#include "workload/trace_reader.h"

namespace servesim {

namespace {
using nlohmann::json;
constexpr double kInf = std::numeric_limits<double>::infinity();

json load_json(const std::string& path) {
  if (!file_exists(path) && !is_directory(path))
    throw Error(fmt::format("{}: cannot open trace file", path));
  return read_json_file(path, "not a valid JSON document");
}

// A rate-like field: a number, or "inf" / "infinity" (vLLM writes "inf").
double rate_field(const json& doc, const char* key, const std::string& path) {
  const json& v = doc.at(key);
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = to_lower(trim(v.get<std::string>()));
    if (s == "inf" || s == "infinity") return kInf;
  }
  throw Error(fmt::format("{}: '{}' must be a number or \"inf\", got {}", path, key, excerpt(v.dump())));
}

std::vector<std::int64_t> lengths(const json& doc, const char* key, const std::string& path) {
  if (!doc.contains(key) || !doc.at(key).is_array())
    throw Error(fmt::format("{}: missing per-request list '{}' (save the result with --save-detailed or a vLLM "
                            "version that keeps input_lens and output_lens; required: input_lens, output_lens, "
                            "request_rate){}",
                            path, key,
                            doc.contains("mean_ttft_ms") || doc.contains("mean_e2el_ms")
                                ? "; this file has vLLM's statistics only: --format vllm_bench_summary (or auto) "
                                  "replays its requests regenerated from them"
                                : ""));
  std::vector<std::int64_t> out;
  const json& a = doc.at(key);
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number_integer() || a[i].get<std::int64_t>() < 0)
      throw Error(fmt::format("{}: {}[{}] must be an integer >= 0, got {}", path, key, i, excerpt(a[i].dump())));
    out.push_back(a[i].get<std::int64_t>());
  }
  return out;
}

struct BenchFile {
  std::vector<std::int64_t> input, output;
  std::vector<double> arrival_s;
  bool recorded_arrivals = false;  // from start_times (less queue_times), not regenerated
  std::vector<bool> failed;
  std::optional<std::int64_t> max_concurrency;
  json doc;
};

BenchFile load_bench_fields(const std::string& path, std::uint64_t seed);

// A per-request list of seconds (start_times, queue_times, latencies) when the file has it
// with one finite number per request; nullopt when absent. A list of another length, or a
// non-number in it, is an error: reading part of it would pair values with the wrong requests.
std::optional<std::vector<double>> per_request_seconds(const json& doc, const char* key, std::size_t n,
                                                       const std::string& path) {
  if (!doc.contains(key) || doc.at(key).is_null()) return std::nullopt;
  const json& a = doc.at(key);
  if (!a.is_array() || a.size() != n)
    throw Error(fmt::format("{}: '{}' must be a list of {} numbers (one per request, as input_lens), got {}", path,
                            key, n, a.is_array() ? fmt::format("{} entries", a.size()) : excerpt(a.dump())));
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!a[i].is_number() || !std::isfinite(a[i].get<double>()) || a[i].get<double>() < 0)
      throw Error(fmt::format("{}: {}[{}] must be a finite number of seconds >= 0, got {}", path, key, i,
                              excerpt(a[i].dump())));
    out[i] = a[i].get<double>();
  }
  return out;
}

BenchFile load_bench(const std::string& path, std::uint64_t seed) {
  // The field readers check types first; this is the net for any nlohmann exception
  // they miss, which would otherwise leave the library as an internal error.
  try {
    return load_bench_fields(path, seed);
  } catch (const json::exception& e) {
    throw Error(json_field_error(path, "unexpected value", e));
  }
}

BenchFile load_bench_fields(const std::string& path, std::uint64_t seed) {
  BenchFile b;
  b.doc = load_json(path);
  const json& doc = b.doc;
  if (!doc.is_object()) throw Error(fmt::format("{}: expected a JSON object (a vllm bench serve result)", path));
  b.input = lengths(doc, "input_lens", path);
  b.output = lengths(doc, "output_lens", path);
  if (b.input.size() != b.output.size())
    throw Error(fmt::format("{}: input_lens has {} entries but output_lens {}", path, b.input.size(), b.output.size()));
  if (!doc.contains("request_rate"))
    throw Error(fmt::format("{}: missing 'request_rate' (required: input_lens, output_lens, request_rate)", path));
  const double rate = rate_field(doc, "request_rate", path);
  if (!(rate > 0.0)) throw Error(fmt::format("{}: request_rate must be > 0, got {}", path, rate));
  double burstiness = 1.0;
  if (doc.contains("burstiness") && !doc.at("burstiness").is_null()) burstiness = rate_field(doc, "burstiness", path);
  if (!(burstiness > 0.0)) throw Error(fmt::format("{}: burstiness must be > 0, got {}", path, burstiness));
  // Gaps are Gamma(shape burstiness, scale 1/(rate*burstiness)): both must stay positive
  // finite doubles (burstiness 1e308 at 16 req/s makes the scale 0; 1e-320 makes it inf).
  constexpr double kMinBurstiness = 1e-6, kMaxBurstiness = 1e6;
  if (!std::isinf(burstiness) && !(burstiness >= kMinBurstiness && burstiness <= kMaxBurstiness))
    throw Error(fmt::format("{}: burstiness must be between {:g} and {:g} (or \"inf\"), got {:g}", path,
                            kMinBurstiness, kMaxBurstiness, burstiness));
  if (doc.contains("max_concurrency") && !doc.at("max_concurrency").is_null()) {
    const json& mc = doc.at("max_concurrency");
    if (!mc.is_number_integer() || mc.get<std::int64_t>() < 1)
      throw Error(fmt::format("{}: max_concurrency must be an integer >= 1 or null, got {}", path, excerpt(mc.dump())));
    b.max_concurrency = mc.get<std::int64_t>();
  }
  std::string ramp;
  double ramp_start = 0.0, ramp_end = 0.0;
  if (doc.contains("ramp_up_strategy") && !doc.at("ramp_up_strategy").is_null()) {
    ramp = doc.at("ramp_up_strategy").is_string() ? doc.at("ramp_up_strategy").get<std::string>() : "?";
    if (ramp != "linear" && ramp != "exponential")
      throw Error(fmt::format("{}: unknown ramp_up_strategy {} (valid: linear, exponential)", path,
                              excerpt(doc.at("ramp_up_strategy").dump())));
    if (!doc.contains("ramp_up_start_rps") || !doc.contains("ramp_up_end_rps"))
      throw Error(fmt::format("{}: ramp_up_strategy needs ramp_up_start_rps and ramp_up_end_rps", path));
    ramp_start = rate_field(doc, "ramp_up_start_rps", path);
    ramp_end = rate_field(doc, "ramp_up_end_rps", path);
    if (!(ramp_start > 0.0) || !(ramp_end > 0.0) || std::isinf(ramp_start) || std::isinf(ramp_end))
      throw Error(fmt::format("{}: ramp_up_start_rps and ramp_up_end_rps must be finite and > 0", path));
  }
  if (!std::isinf(burstiness)) {
    // The extreme rates the gaps will see: the ramp's ends, else the request rate.
    for (const double r : ramp.empty() ? std::vector<double>{rate} : std::vector<double>{ramp_start, ramp_end}) {
      if (std::isinf(r)) continue;  // infinite rate: no gaps drawn
      if (!std::isnormal(1.0 / (r * burstiness)))
        throw Error(fmt::format("{}: a rate of {:g} req/s with burstiness {:g} gives gamma gaps of scale {:g}, "
                                "out of range; use a smaller rate or burstiness",
                                path, r, burstiness, 1.0 / (r * burstiness)));
    }
  }
  const std::size_t n = b.input.size();
  b.failed.assign(n, false);
  if (doc.contains("errors") && doc.at("errors").is_array() && doc.at("errors").size() == n) {
    for (std::size_t i = 0; i < n; ++i) {
      const json& e = doc.at("errors")[i];
      b.failed[i] = !(e.is_null() || (e.is_string() && e.get<std::string>().empty()));
    }
  }

  // Recorded send times: start_times less the client-side wait for a concurrency slot
  // (queue_times), so that the replay's own --max-concurrency limit does that waiting.
  if (auto starts = per_request_seconds(doc, "start_times", n, path)) {
    const auto waits = per_request_seconds(doc, "queue_times", n, path);
    b.arrival_s = std::move(*starts);
    if (waits)
      for (std::size_t i = 0; i < n; ++i) b.arrival_s[i] -= (*waits)[i];
    double first = kInf;
    for (const double a : b.arrival_s) first = std::min(first, a);
    for (double& a : b.arrival_s) a -= first;
    b.recorded_arrivals = true;
    return b;
  }

  // vLLM get_request(): per request a gap (0 at an infinite rate, 1/rate at an
  // infinite burstiness, else Gamma(burstiness, 1/(rate*burstiness))), summed;
  // without a ramp the sums are rescaled so the last one is n / request_rate.
  RandomStream rng(seed, "arrivals");
  b.arrival_s.resize(n);
  double t = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    double r = rate;
    if (!ramp.empty()) {
      const double progress = static_cast<double>(i) / static_cast<double>(std::max<std::size_t>(n - 1, 1));
      r = ramp == "linear" ? ramp_start + (ramp_end - ramp_start) * progress
                           : ramp_start * std::pow(ramp_end / ramp_start, progress);
    }
    double gap = 0.0;
    if (std::isinf(r)) gap = 0.0;
    else if (std::isinf(burstiness)) gap = 1.0 / r;
    else gap = rng.gamma(burstiness, 1.0 / (r * burstiness));
    t += gap;
    b.arrival_s[i] = t;
  }
  if (ramp.empty() && n > 0 && b.arrival_s.back() > 0.0 && std::isfinite(rate)) {
    const double factor = (static_cast<double>(n) / rate) / b.arrival_s.back();
    for (double& a : b.arrival_s) a *= factor;
  }
  return b;
}

class VllmBenchTraceReader final : public TraceReader {
 public:
  VllmBenchTraceReader(const std::string& path, std::uint64_t seed)
      : TraceReader(path, TraceFormat::vllm_bench), bench_(load_bench(path, seed)) {
    bench_.doc = json();  // keep only the per-request numbers
    // A request that failed or produced no text still reached the server; read()
    // replays it with at least one token each way. Say so, with the count.
    std::size_t adjusted = 0;
    for (std::size_t i = 0; i < bench_.input.size(); ++i)
      if (bench_.input[i] < 1 || bench_.output[i] < 1) ++adjusted;
    if (adjusted > 0)
      warn(fmt::format("{}: {} of {} requests recorded 0 input or output tokens (failed or empty responses); "
                       "replayed with 1 token each way",
                       path, adjusted, bench_.input.size()));
  }

  std::optional<TraceRecord> read() override {
    if (next_ >= bench_.input.size()) return std::nullopt;
    const std::size_t i = next_++;
    TraceRecord r;
    r.line = static_cast<std::int64_t>(i) + 1;
    // A tiny request_rate (1e-300) puts the regenerated arrivals past the clock; llround
    // would wrap them all to one instant. Refuse instead (core/sim_time.h).
    if (!(bench_.arrival_s[i] <= kMaxSimSeconds))
      throw Error(fmt::format("{}: request {} would arrive at {:.3g} s, beyond the {:g} s (31.7 years) servesim "
                              "simulates: request_rate is too low for {} requests",
                              path(), i + 1, bench_.arrival_s[i], kMaxSimSeconds, bench_.input.size()));
    r.time_ns = to_nanos(bench_.arrival_s[i]);
    // A request that failed or produced no text still reached the server; it is
    // replayed with at least one token each way.
    r.input_tokens = std::max<std::int64_t>(1, bench_.input[i]);
    r.output_tokens = std::max<std::int64_t>(1, bench_.output[i]);
    return r;
  }
  std::int64_t size() const override { return static_cast<std::int64_t>(bench_.input.size()); }
  std::optional<std::int64_t> max_concurrency() const override { return bench_.max_concurrency; }

 private:
  BenchFile bench_;
  std::size_t next_ = 0;
};
}  // namespace

std::unique_ptr<TraceReader> open_vllm_bench_trace(const std::string& path, std::uint64_t seed) {
  return std::make_unique<VllmBenchTraceReader>(path, seed);
}

std::vector<MeasuredRequest> read_measured_vllm_bench(const std::string& path, std::uint64_t seed) {
  const BenchFile b = load_bench(path, seed);
  const json& doc = b.doc;
  const std::size_t n = b.input.size();
  const bool has_ttft = doc.contains("ttfts") && doc.at("ttfts").is_array() && doc.at("ttfts").size() == n;
  const bool has_itl = doc.contains("itls") && doc.at("itls").is_array() && doc.at("itls").size() == n;
  const auto latencies = per_request_seconds(doc, "latencies", n, path);
  std::vector<MeasuredRequest> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    MeasuredRequest& m = out[i];
    m.index = static_cast<std::int64_t>(i);
    m.arrival_s = b.arrival_s[i];
    m.input_tokens = std::max<std::int64_t>(1, b.input[i]);
    m.output_tokens = std::max<std::int64_t>(1, b.output[i]);
    if (b.failed[i] || !has_ttft || !doc.at("ttfts")[i].is_number()) continue;
    const double ttft = doc.at("ttfts")[i].get<double>();
    if (!(ttft >= 0.0) || !std::isfinite(ttft))
      throw Error(fmt::format("{}: ttfts[{}] is {}: a time to first token must be a finite number >= 0 seconds",
                              path, i, ttft));
    if (b.output[i] == 0 && ttft == 0.0) {  // no token: a zero TTFT is not a measurement
      m.no_token = true;
      continue;
    }
    m.ttft_ms = ttft * 1e3;
    if (!has_itl || !doc.at("itls")[i].is_array()) {  // no gaps: the end-to-end latency alone, when recorded
      if (latencies && (*latencies)[i] >= ttft) {
        m.e2e_ms = (*latencies)[i] * 1e3;
        if (b.output[i] > 1) m.tpot_ms = ((*latencies)[i] - ttft) * 1e3 / static_cast<double>(b.output[i] - 1);
      }
      continue;
    }
    double decode = 0.0;
    std::size_t k = 0;
    for (const json& x : doc.at("itls")[i]) {
      // A negative gap would make the request end before its first token (e2e < ttft).
      if (x.is_number() && !(x.get<double>() >= 0.0 && std::isfinite(x.get<double>())))
        throw Error(fmt::format("{}: itls[{}][{}] is {}: inter-token latencies must be finite and >= 0 seconds "
                                "(end-to-end time would fall below the TTFT)",
                                path, i, k, x.get<double>()));
      if (x.is_number()) decode += x.get<double>();
      ++k;
    }
    m.e2e_ms = (ttft + decode) * 1e3;
    if (b.output[i] > 1) m.tpot_ms = decode * 1e3 / static_cast<double>(b.output[i] - 1);
  }
  return out;
}

}  // namespace servesim
