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

// e.g. "lognormal(mean=1024, stddev=512) in [1, 8192]", for reports.
std::string describe_length(const LengthSpec& spec);

// (name, one-line description) of every `dist`, for `servesim list`.
std::vector<std::pair<std::string, std::string>> length_distribution_registry();

}  // namespace servesim
