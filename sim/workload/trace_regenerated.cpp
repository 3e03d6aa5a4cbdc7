#include "workload/trace_regenerated.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/rng.h"
#include "util/error.h"

namespace servesim::trace_detail {

double Quantiles::at(double q) const {
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

namespace {

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

class RegeneratedTraceReader final : public TraceReader {
 public:
  RegeneratedTraceReader(const std::string& path, TraceFormat format, RegeneratedRun run, std::uint64_t seed)
      : TraceReader(path, format), run_(std::move(run)), arrivals_(seed, "arrivals"), lengths_(seed, "lengths") {
    const MeasuredAggregate& m = run_.measured;
    if (m.requests <= kMaxStratifiedRequests) {
      input_ = regenerated_lengths(run_.isl, m.requests, lengths_);
      output_ = regenerated_lengths(run_.osl, m.requests, lengths_);
    }
    rate_ = m.concurrency && !run_.paced_under_concurrency ? 0.0 : m.request_rate.value_or(m.request_throughput);
    if (std::isinf(rate_)) rate_ = 0.0;  // an infinite rate: every request at once
    if (!(run_.burstiness > 0) || !std::isfinite(run_.burstiness))
      throw Error(fmt::format("{}: burstiness must be a finite number > 0, got {}", path, run_.burstiness));
  }

  std::optional<TraceRecord> read() override {
    const MeasuredAggregate& m = run_.measured;
    if (next_ >= m.requests) return std::nullopt;
    const auto i = static_cast<std::size_t>(next_++);
    TraceRecord r;
    r.line = next_;
    if (rate_ > 0 && i > 0)  // Poisson gaps at burstiness 1 (as before the shape was read), gamma otherwise
      t_ += run_.burstiness == 1.0 ? arrivals_.exponential(rate_)
                                   : arrivals_.gamma(run_.burstiness, 1.0 / (rate_ * run_.burstiness));
    r.time_ns = static_cast<std::int64_t>(std::llround(t_ * 1e9));
    if (input_.empty()) {  // past kMaxStratifiedRequests: independent draws
      r.input_tokens = length_at(run_.isl, lengths_.uniform01());
      r.output_tokens = length_at(run_.osl, lengths_.uniform01());
    } else {
      r.input_tokens = input_[i];
      r.output_tokens = output_[i];
    }
    return r;
  }
  std::int64_t size() const override { return run_.measured.requests; }
  std::optional<std::int64_t> max_concurrency() const override {
    if (!run_.measured.concurrency) return std::nullopt;
    return static_cast<std::int64_t>(*run_.measured.concurrency);
  }

 private:
  RegeneratedRun run_;
  RandomStream arrivals_;
  RandomStream lengths_;
  std::vector<std::int64_t> input_, output_;  // empty past kMaxStratifiedRequests
  double rate_ = 0, t_ = 0;
  std::int64_t next_ = 0;
};

}  // namespace

std::unique_ptr<TraceReader> open_regenerated_run(const std::string& path, TraceFormat format, RegeneratedRun run,
                                                  std::uint64_t seed) {
  return std::make_unique<RegeneratedTraceReader>(path, format, std::move(run), seed);
}

std::string regenerated_arrivals(const RegeneratedRun& run, std::uint64_t seed) {
  const MeasuredAggregate& m = run.measured;
  const std::string shape =
      run.burstiness == 1.0 ? "Poisson arrivals" : fmt::format("gamma arrivals (burstiness {:g})", run.burstiness);
  const std::string limit =
      m.concurrency ? fmt::format(", at most {} in flight (the run's concurrency)",
                                  static_cast<std::int64_t>(*m.concurrency))
                    : std::string();
  if (m.concurrency && !(run.paced_under_concurrency && m.request_rate && std::isfinite(*m.request_rate)))
    return fmt::format("all {} requests at once{}", m.requests, limit);
  if (m.request_rate && std::isinf(*m.request_rate))
    return fmt::format("all {} requests at once (the run's request rate was inf)", m.requests);
  if (m.request_rate)
    return fmt::format("{} at the run's request rate, {:g} req/s, seed {}{}", shape, *m.request_rate, seed, limit);
  return fmt::format("{} at the measured request throughput, {:g} req/s, seed {} (the file records no rate or "
                     "concurrency)",
                     shape, m.request_throughput, seed);
}

}  // namespace servesim::trace_detail
