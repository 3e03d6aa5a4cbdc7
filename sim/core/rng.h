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
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

namespace servesim {

// SplitMix64 (Steele, Lea, Flood 2014): advances `state` and returns the next
// output. Used only to expand a 64-bit seed into xoshiro's 256-bit state.
std::uint64_t splitmix64(std::uint64_t& state);

// 64-bit FNV-1a hash of a stream name.
std::uint64_t fnv1a64(std::string_view text);

// A uniform draw in (0, 1) that is a pure function of (stream_key, key, k): the draws
// keyed by a request's id (patience, LoRA adapter, request class), so that a request
// draws the same whatever ran before it. SplitMix64 is a bijection of its state, so
// distinct (key, k) give distinct, well-mixed outputs; (bits + 0.5) / 2^53, as
// RandomStream::uniform01, is never 0 or 1.
inline double keyed_uniform01(std::uint64_t stream_key, std::int64_t key, std::uint64_t k) {
  std::uint64_t state = stream_key ^ (static_cast<std::uint64_t>(key) * 0xD1B54A32D192ED03ULL + k);
  return (static_cast<double>(splitmix64(state) >> 11) + 0.5) * 0x1.0p-53;
}

// xoshiro256** 1.0 (Blackman & Vigna 2018): fast, 2^256-1 period, passes BigCrush.
class Xoshiro256ss {
 public:
  // Precondition: state is not all zero.
  explicit Xoshiro256ss(const std::array<std::uint64_t, 4>& state) : s_(state) {}
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_;
};

// A sampler reached with parameters a loader should have refused: a programming
// error, reported as servesim::Error (out of line: the samplers below are inline).
[[noreturn]] void rng_bad_parameters(const char* what);

class RandomStream {
 public:
  // Seeds xoshiro256** with four SplitMix64 outputs started from the scenario
  // seed mixed with the FNV-1a hash of `name`.
  RandomStream(std::uint64_t seed, std::string_view name);

  // The samplers a synthetic workload calls per request are inline (the request
  // path draws an arrival gap and two lengths per request, millions per run).
  std::uint64_t next_u64() { return engine_.next(); }
  // Uniform on the open interval (0, 1): (k + 0.5) / 2^53 for a 53-bit k, so it
  // never returns 0 or 1 and log(u) is always finite.
  double uniform01() {
    // Top 53 bits, centred in their 2^-53 cell: exact in a double, strictly inside (0, 1).
    const std::uint64_t k = next_u64() >> 11;
    return (static_cast<double>(k) + 0.5) * 0x1.0p-53;
  }
  // Exponential with the given rate (> 0): mean 1/rate.
  double exponential(double rate) {
    if (!(rate > 0.0)) rng_bad_parameters("RandomStream::exponential: rate must be > 0");
    return -std::log(uniform01()) / rate;
  }
  // Normal via the Marsaglia polar method; the second value of each pair is kept
  // for the next call, so this stream's state includes that spare.
  double normal(double mean, double stddev) {
    if (!(stddev >= 0.0)) rng_bad_parameters("RandomStream::normal: stddev must be >= 0");
    return mean + stddev * standard_normal();
  }
  // Lognormal parameterised by the mean m (> 0) and stddev s (>= 0) of the
  // variable itself: sigma^2 = ln(1 + s^2/m^2), mu = ln m - sigma^2/2.
  double lognormal_from_mean_std(double mean, double stddev);
  // Gamma(shape k > 0, scale theta > 0): mean k*theta, variance k*theta^2.
  // Marsaglia-Tsang (2000); for k < 1 samples Gamma(k+1) * U^(1/k).
  double gamma(double shape, double scale);
  // Uniform integer in [lo, hi] inclusive, without modulo bias (rejection).
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
    if (lo > hi) rng_bad_parameters("RandomStream::uniform_int: need lo <= hi");
    // Width minus one in unsigned arithmetic (well defined even for the full int64 range).
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (span == std::numeric_limits<std::uint64_t>::max()) return static_cast<std::int64_t>(next_u64());
    const std::uint64_t n = span + 1;
    // 2^64 mod n values at the bottom would make x % n favour small residues:
    // rejecting them leaves 2^64 - (2^64 mod n) values, an exact multiple of n.
    // The threshold is kept for the last n (a length distribution asks for the
    // same range every time): one division per draw instead of two.
    if (n != threshold_n_) {
      threshold_n_ = n;
      threshold_ = (0 - n) % n;
    }
    std::uint64_t x = 0;
    do {
      x = next_u64();
    } while (x < threshold_);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + x % n);
  }

 private:
  double standard_normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    return polar_pair();
  }
  // Draws a new pair (Marsaglia polar), keeps the second as the spare and returns the first.
  double polar_pair();
  Xoshiro256ss engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
  std::uint64_t threshold_n_ = 0, threshold_ = 0;  // uniform_int's last n and (2^64 mod n)
};

}  // namespace servesim
