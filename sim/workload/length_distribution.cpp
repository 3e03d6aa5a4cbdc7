#include "workload/length_distribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

namespace {

constexpr LengthDistributionInfo kLengths[] = {
    {"fixed", LengthKind::fixed, "value", "every request has exactly `value` tokens"},
    {"uniform", LengthKind::uniform, "min, max", "integers uniform on [min, max] inclusive"},
    {"normal", LengthKind::normal, "mean, stddev", "normal, rounded, clipped to [min, max]"},
    {"lognormal", LengthKind::lognormal, "mean, stddev",
     "lognormal with this mean and stddev of the length itself (long tail)"},
    {"exponential", LengthKind::exponential, "mean", "exponential with this mean"},
};

std::string_view kind_name(LengthKind kind) {
  for (const auto& e : kLengths)
    if (e.kind == kind) return e.name;
  return "?";
}

// rng.lognormal_from_mean_std(mean, stddev) with its parameters worked out once
// per (mean, stddev) instead of per draw (a log1p, a log and a sqrt each time):
// the same expressions give the same mu and sigma, and exp(normal(mu, sigma)) is
// exp(mu + sigma * z) as there, so every draw is the same double. One entry per
// thread (concurrent runs draw on their own threads); a workload's prompts and
// outputs rarely alternate between two lognormal specs, and when they do the
// entry is recomputed, which is what every draw did before.
double lognormal(double mean, double stddev, RandomStream& rng) {
  struct Params {
    double mean = 0, stddev = -1, mu = 0, sigma = 0;
  };
  thread_local Params last;
  if (!(mean > 0.0 && stddev >= 0.0)) return rng.lognormal_from_mean_std(mean, stddev);  // its error
  if (mean != last.mean || stddev != last.stddev) {
    const double ratio = stddev / mean;
    const double sigma2 = std::log1p(ratio * ratio);
    last = Params{mean, stddev, std::log(mean) - 0.5 * sigma2, std::sqrt(sigma2)};
  }
  return std::exp(rng.normal(last.mu, last.sigma));
}

}  // namespace

std::span<const LengthDistributionInfo> length_distributions() { return kLengths; }

std::int64_t sample_length(const LengthSpec& spec, RandomStream& rng) {
  double x = 0.0;
  switch (spec.kind) {
    case LengthKind::fixed: x = static_cast<double>(spec.value); break;
    case LengthKind::uniform: return rng.uniform_int(spec.min, spec.max);
    case LengthKind::normal: x = rng.normal(spec.mean, spec.stddev); break;
    case LengthKind::lognormal: x = lognormal(spec.mean, spec.stddev, rng); break;
    case LengthKind::exponential: x = rng.exponential(1.0 / spec.mean); break;
  }
  return clip_length(spec, x);
}

LengthSampler::LengthSampler(const LengthSpec& spec) : spec_(spec) {
  // lognormal()'s parameters, the same expressions (so the same doubles).
  if (spec.kind == LengthKind::lognormal && spec.mean > 0.0 && spec.stddev >= 0.0) {
    const double ratio = spec.stddev / spec.mean;
    const double sigma2 = std::log1p(ratio * ratio);
    mu_ = std::log(spec.mean) - 0.5 * sigma2;
    sigma_ = std::sqrt(sigma2);
    lognormal_ = true;
  }
}

std::string describe_length(const LengthSpec& spec) {
  std::string body;
  switch (spec.kind) {
    case LengthKind::fixed: body = fmt::format("fixed({})", spec.value); break;
    case LengthKind::uniform: return fmt::format("uniform[{}, {}]", spec.min, spec.max);
    case LengthKind::normal:
    case LengthKind::lognormal:
      body = fmt::format("{}(mean={:g}, stddev={:g})", kind_name(spec.kind), spec.mean, spec.stddev);
      break;
    case LengthKind::exponential: body = fmt::format("exponential(mean={:g})", spec.mean); break;
  }
  if (spec.max == std::numeric_limits<std::int64_t>::max())
    return spec.min == 1 ? body : fmt::format("{} >= {}", body, spec.min);
  return fmt::format("{} in [{}, {}]", body, spec.min, spec.max);
}

std::vector<std::pair<std::string, std::string>> length_distribution_registry() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : kLengths) {
    std::string text = fmt::format("{{{}}}: {}", e.keys, e.doc);
    if (e.kind != LengthKind::uniform) text += "; optional clip min (default 1), max";
    out.emplace_back(std::string(e.name), text);
  }
  return out;
}

}  // namespace servesim
