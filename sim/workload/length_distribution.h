#pragma once
// Token-length distributions for synthetic prompts and outputs. A sample is the
// continuous draw rounded to the nearest integer and clipped to [min, max]
// (inclusive; min defaults to 1, so every length is >= 1 token).
//
// YAML (read by config/read_lengths.cpp; `dist` names the kind and only that
// kind's keys are accepted):
//   {dist: fixed, value: 512}
//   {dist: uniform, min: 64, max: 512}              integers, inclusive
//   {dist: normal, mean: 512, stddev: 128}
//   {dist: lognormal, mean: 1024, stddev: 512, max: 8192}   mean/stddev of the lengths
//   {dist: exponential, mean: 256}
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/rng.h"

namespace servesim {

enum class LengthKind { fixed, uniform, normal, lognormal, exponential };

struct LengthSpec {
  LengthKind kind = LengthKind::fixed;
  std::int64_t value = 1;  // fixed: the length, tokens
  double mean = 0.0;       // normal, lognormal, exponential: tokens (> 0)
  double stddev = 0.0;     // normal, lognormal: tokens (>= 0)
  std::int64_t min = 1;    // clip bounds, tokens, inclusive; uniform's range
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
};

// The distributions by name: the `dist` values the reader accepts, the names
// reports print and the descriptions `servesim list` and `describe` show.
struct LengthDistributionInfo {
  std::string_view name;
  LengthKind kind;
  std::string_view keys;  // the keys it reads, as `servesim list` shows them: "mean, stddev"
  std::string_view doc;   // one line: what the lengths are
};
std::span<const LengthDistributionInfo> length_distributions();

// One token length >= 1, drawn from `rng`.
std::int64_t sample_length(const LengthSpec& spec, RandomStream& rng);

// std::llround(x) without the library call: below 2^53 in magnitude the truncation
// i is exact and so is x - i (the fraction of a double is a double), so rounding
// the half away from zero on it is llround's answer; larger values are integers
// already. Anything else (NaN, huge) goes to llround itself.
inline std::int64_t round_half_away(double x) {
  if (!(x > -0x1.0p53 && x < 0x1.0p53)) return std::llround(x);
  const auto i = static_cast<std::int64_t>(x);
  const double frac = x - static_cast<double>(i);
  if (frac >= 0.5) return i + 1;
  if (frac <= -0.5) return i - 1;
  return i;
}

// A continuous draw x as a length: clipped in double first (a far tail draw, or an
// unbounded max, must not reach the rounding outside the int64 range; 1e18 tokens
// is beyond any real context), rounded, clipped to [min, max].
inline std::int64_t clip_length(const LengthSpec& spec, double x) {
  const double hi = std::min(static_cast<double>(spec.max), 1e18);
  x = std::clamp(x, static_cast<double>(spec.min), hi);
  return std::clamp<std::int64_t>(round_half_away(x), spec.min, spec.max);
}

// sample_length for one spec drawn many times (a synthetic workload's prompts and
// outputs, per request): the lognormal's mu and sigma worked out once, by the
// same expressions, and the common kinds drawn inline, so every draw is the
// integer sample_length(spec, rng) gives.
class LengthSampler {
 public:
  explicit LengthSampler(const LengthSpec& spec);
  std::int64_t operator()(RandomStream& rng) const {
    if (lognormal_) return clip_length(spec_, std::exp(rng.normal(mu_, sigma_)));
    if (spec_.kind == LengthKind::uniform) return rng.uniform_int(spec_.min, spec_.max);
    return sample_length(spec_, rng);
  }

 private:
  LengthSpec spec_;
  bool lognormal_ = false;  // a lognormal with valid parameters (else sample_length reports them)
  double mu_ = 0, sigma_ = 0;
};

// e.g. "lognormal(mean=1024, stddev=512) in [1, 8192]", for reports.
std::string describe_length(const LengthSpec& spec);

// (name, one-line description) of every `dist`, for `servesim list`.
std::vector<std::pair<std::string, std::string>> length_distribution_registry();

}  // namespace servesim
