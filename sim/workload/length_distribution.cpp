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

// std::llround(x) without the library call (one per length drawn): below 2^53 in
// magnitude the truncation i is exact and so is x - i (the fraction of a double is
// a double), so rounding the half away from zero on it is llround's answer; larger
// values are integers already. Anything else (NaN, huge) goes to llround itself.
std::int64_t round_half_away(double x) {
  if (!(x > -0x1.0p53 && x < 0x1.0p53)) return std::llround(x);
  const auto i = static_cast<std::int64_t>(x);
  const double frac = x - static_cast<double>(i);
  if (frac >= 0.5) return i + 1;
  if (frac <= -0.5) return i - 1;
  return i;
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
  // Clip in double first: a far tail draw (or an unbounded max) must not reach
  // llround outside the int64 range. 1e18 tokens is beyond any real context.
  const double hi = std::min(static_cast<double>(spec.max), 1e18);
  x = std::clamp(x, static_cast<double>(spec.min), hi);
  return std::clamp<std::int64_t>(round_half_away(x), spec.min, spec.max);
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
