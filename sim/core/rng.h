#pragma once
// Reproducible randomness. The standard library's distributions are
// implementation-defined (libstdc++ and libc++ give different normals from the
// same engine), so every sampler here is written out: the same (seed, stream
// name) yields the same draws on every platform, up to the last-bit accuracy of
// std::log / std::exp / std::sqrt / std::pow in the C library.
//
// Each consumer draws from its own named stream ("arrivals", "input_tokens",
// "output_tokens", "routing", ...), so adding draws to one consumer never shifts
// another's sequence (changing the arrival process keeps the token lengths).
#include <array>
#include <cstdint>
#include <string_view>

namespace servesim {

// SplitMix64 (Steele, Lea, Flood 2014): advances `state` and returns the next
// output. Used only to expand a 64-bit seed into xoshiro's 256-bit state.
std::uint64_t splitmix64(std::uint64_t& state);

// 64-bit FNV-1a hash of a stream name.
std::uint64_t fnv1a64(std::string_view text);

// xoshiro256** 1.0 (Blackman & Vigna 2018): fast, 2^256-1 period, passes BigCrush.
class Xoshiro256ss {
 public:
  // Precondition: state is not all zero.
  explicit Xoshiro256ss(const std::array<std::uint64_t, 4>& state) : s_(state) {}
  std::uint64_t next();

 private:
  std::array<std::uint64_t, 4> s_;
};

class RandomStream {
 public:
  // Seeds xoshiro256** with four SplitMix64 outputs started from the scenario
  // seed mixed with the FNV-1a hash of `name`.
  RandomStream(std::uint64_t seed, std::string_view name);

  std::uint64_t next_u64();
  // Uniform on the open interval (0, 1): (k + 0.5) / 2^53 for a 53-bit k, so it
  // never returns 0 or 1 and log(u) is always finite.
  double uniform01();
  // Exponential with the given rate (> 0): mean 1/rate.
  double exponential(double rate);
  // Normal via the Marsaglia polar method; the second value of each pair is kept
  // for the next call, so this stream's state includes that spare.
  double normal(double mean, double stddev);
  // Lognormal parameterised by the mean m (> 0) and stddev s (>= 0) of the
  // variable itself: sigma^2 = ln(1 + s^2/m^2), mu = ln m - sigma^2/2.
  double lognormal_from_mean_std(double mean, double stddev);
  // Gamma(shape k > 0, scale theta > 0): mean k*theta, variance k*theta^2.
  // Marsaglia-Tsang (2000); for k < 1 samples Gamma(k+1) * U^(1/k).
  double gamma(double shape, double scale);
  // Uniform integer in [lo, hi] inclusive, without modulo bias (rejection).
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);

 private:
  double standard_normal();
  Xoshiro256ss engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace servesim
