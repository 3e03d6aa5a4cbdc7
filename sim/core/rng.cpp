#include "core/rng.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "util/error.h"

namespace servesim {

namespace {
// Parameters are validated by the loaders (servesim::Error with a location);
// reaching here with bad ones is a programming error, still reported as an Error
// (never std::invalid_argument, which main() could only call an internal error).
void require(bool ok, const char* what) {
  if (!ok) rng_bad_parameters(what);
}
}  // namespace

void rng_bad_parameters(const char* what) {
  throw Error(fmt::format("internal error: {} (a loader let a bad value through; please report)", what));
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xCBF29CE484222325ULL;  // FNV offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001B3ULL;  // FNV prime
  }
  return h;
}

namespace {
std::array<std::uint64_t, 4> seed_state(std::uint64_t seed, std::string_view name) {
  // Scramble the seed before mixing in the name so that nearby seeds with
  // related names do not start SplitMix64 from the same point.
  std::uint64_t pre = seed;
  std::uint64_t sm = splitmix64(pre) ^ fnv1a64(name);
  std::array<std::uint64_t, 4> s{};
  for (auto& word : s) word = splitmix64(sm);
  // Four consecutive SplitMix64 outputs are never all zero (it is a bijection of
  // distinct counter values), so xoshiro's one forbidden state cannot occur.
  return s;
}
}  // namespace

RandomStream::RandomStream(std::uint64_t seed, std::string_view name)
    : engine_(seed_state(seed, name)) {}

double RandomStream::polar_pair() {
  double u = 0.0, v = 0.0, s = 0.0;
  do {
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double f = std::sqrt(-2.0 * std::log(s) / s);
  spare_ = v * f;
  has_spare_ = true;
  return u * f;
}

double RandomStream::lognormal_from_mean_std(double mean, double stddev) {
  require(mean > 0.0 && stddev >= 0.0, "RandomStream::lognormal_from_mean_std: need mean > 0, stddev >= 0");
  const double ratio = stddev / mean;
  const double sigma2 = std::log1p(ratio * ratio);
  const double mu = std::log(mean) - 0.5 * sigma2;
  return std::exp(mu + std::sqrt(sigma2) * standard_normal());
}

double RandomStream::gamma(double shape, double scale) {
  require(std::isfinite(shape) && std::isfinite(scale) && shape > 0.0 && scale > 0.0,
          "RandomStream::gamma: shape and scale must be finite and > 0");
  if (shape < 1.0) {
    // If X ~ Gamma(k+1) and U ~ U(0,1) then X * U^(1/k) ~ Gamma(k) (Marsaglia-Tsang §6).
    const double x = gamma(shape + 1.0, 1.0);
    return x * std::pow(uniform01(), 1.0 / shape) * scale;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0.0, v = 0.0;
    do {
      x = standard_normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform01();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v * scale;  // cheap squeeze, ~98% of draws
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v * scale;
  }
}

}  // namespace servesim
