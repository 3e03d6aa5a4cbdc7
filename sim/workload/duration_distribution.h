#pragma once
// A distribution of durations in seconds: users' patience (patience.h), think
// times between a session's turns and tool-call durations (session_source.h).
//
//   {dist: fixed, value: "4 s"}
//   {dist: uniform, min: "3 s", max: "5 s"}
//   {dist: exponential, mean: "4 s"}
//   {dist: lognormal, mean: "4 s", stddev: "2 s"}   (mean and stddev of the duration itself)
//
// Sampling takes its uniforms from the caller, so each user of a distribution
// keeps its own random stream (patience: counter-based per request; sessions:
// per session and turn).
#include <cstdint>

namespace servesim {

enum class DurationKind { fixed, uniform, exponential, lognormal };

struct DurationSpec {
  DurationKind kind = DurationKind::fixed;
  double value_s = 0;           // fixed
  double min_s = 0, max_s = 0;  // uniform, inclusive
  double mean_s = 0;            // exponential, lognormal (of the duration itself)
  double stddev_s = 0;          // lognormal
  // Whether sample_duration reads its second uniform (a lognormal with a spread).
  bool uses_second_uniform() const { return kind == DurationKind::lognormal && stddev_s > 0; }
  // The distribution's mean, seconds.
  double mean() const;
};

// One draw from two uniforms on (0, 1): u0 for every kind, u1 for a lognormal's
// Box-Muller pair. Seconds, >= 0.
double sample_duration(const DurationSpec& spec, double u0, double u1);

}  // namespace servesim
