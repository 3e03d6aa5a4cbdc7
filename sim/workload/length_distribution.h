#pragma once
// Token-length distributions for synthetic prompts and outputs. A sample is the
// continuous draw rounded to the nearest integer and clipped to [min, max]
// (inclusive; min defaults to 1, so every length is >= 1 token).
//
// YAML (one mapping, `dist` names the kind; only that kind's keys are accepted):
//   {dist: fixed, value: 512}
//   {dist: uniform, min: 64, max: 512}              integers, inclusive
//   {dist: normal, mean: 512, stddev: 128}
//   {dist: lognormal, mean: 1024, stddev: 512, max: 8192}   mean/stddev of the lengths
//   {dist: exponential, mean: 256}
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "config/config_map.h"

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

// Longest token length a distribution key (value, min, max, mean) may give.
inline constexpr std::int64_t kMaxLengthTokens = 1'000'000'000;

// Reads a length mapping and finish()es it. Throws servesim::Error at the
// offending key for an unknown `dist` (with did-you-mean), mean <= 0, stddev < 0,
// min < 1, min > max or value < 1.
LengthSpec parse_length_distribution(ConfigMap& m);

// One token length >= 1, drawn from `rng`.
std::int64_t sample_length(const LengthSpec& spec, RandomStream& rng);

// e.g. "lognormal(mean=1024, stddev=512) in [1, 8192]", for reports.
std::string describe_length(const LengthSpec& spec);

// (name, one-line description) of every `dist`, for `servesim list`.
std::vector<std::pair<std::string, std::string>> length_distribution_registry();

}  // namespace servesim
