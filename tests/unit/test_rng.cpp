#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

#include "core/rng.h"

using servesim::RandomStream;

namespace {

// Welford's running mean and (unbiased) variance.
struct Moments {
  double mean = 0.0;
  double m2 = 0.0;
  long n = 0;
  void add(double x) {
    ++n;
    const double d = x - mean;
    mean += d / static_cast<double>(n);
    m2 += d * (x - mean);
  }
  double var() const { return m2 / static_cast<double>(n - 1); }
};

constexpr long kDraws = 200000;

Moments sample(const std::function<double()>& draw) {
  Moments m;
  for (long i = 0; i < kDraws; ++i) m.add(draw());
  return m;
}

// Tolerances are 5 standard errors of the estimator, from closed forms:
//   SE(sample mean)     = sigma / sqrt(n)
//   SE(sample variance) ~ sqrt((mu4 - sigma^4) / n), mu4 the 4th central moment.
// The streams are seeded, so each check is deterministic; 5 SE makes a correct
// sampler fail with probability ~6e-7 for an arbitrary seed.
void check_moments(const Moments& m, double mean, double var, double mu4) {
  const double n = static_cast<double>(m.n);
  const double mean_tol = 5.0 * std::sqrt(var / n);
  const double var_tol = 5.0 * std::sqrt((mu4 - var * var) / n);
  CHECK(m.mean == Approx(mean).margin(mean_tol));
  CHECK(m.var() == Approx(var).margin(var_tol));
}

}  // namespace

TEST_CASE("engine and hashing match their published reference outputs", "[rng]") {
  // SplitMix64 from state 0 (reference implementation by Vigna).
  std::uint64_t s = 0;
  REQUIRE(servesim::splitmix64(s) == 0xE220A8397B1DCDAFULL);
  // FNV-1a 64: the empty string is the offset basis; "a" from the FNV test vectors.
  REQUIRE(servesim::fnv1a64("") == 0xCBF29CE484222325ULL);
  REQUIRE(servesim::fnv1a64("a") == 0xAF63DC4C8601EC8CULL);
  // xoshiro256** from state {1,2,3,4}: first output rotl(2*5, 7)*9 = 11520.
  servesim::Xoshiro256ss x({1, 2, 3, 4});
  REQUIRE(x.next() == 11520ULL);
  REQUIRE(x.next() == 0ULL);
  REQUIRE(x.next() == 1509978240ULL);
  REQUIRE(x.next() == 1215971899390074240ULL);
}

TEST_CASE("a named stream's first draws are pinned", "[rng]") {
  // Integer-only and exactly-rounded double arithmetic: identical everywhere.
  RandomStream r(42, "arrivals");
  REQUIRE(r.next_u64() == 0xA00EE8818062BD90ULL);
  REQUIRE(r.next_u64() == 0xD7C5A57A54B7C7F2ULL);
  REQUIRE(r.next_u64() == 0xAD2F4FB3FE786DF7ULL);
  REQUIRE(r.uniform01() == 0x1.c76211df81df4p-4);
  REQUIRE(r.uniform01() == 0x1.ae075b53ef0d8p-5);
  REQUIRE(r.uniform01() == 0x1.a05b4b5317e44p-1);

  // These go through std::log / std::sqrt / std::pow, which C libraries need not
  // round identically in the last bit; a 1e-12 relative margin still catches any
  // change to the algorithms or the order of draws.
  RandomStream n(7, "input_tokens");
  CHECK(n.normal(0, 1) == Approx(-1.0615147793068314).epsilon(1e-12));
  CHECK(n.normal(0, 1) == Approx(0.45697104329956117).epsilon(1e-12));
  CHECK(n.normal(0, 1) == Approx(-0.46824114914466564).epsilon(1e-12));
  CHECK(n.exponential(2) == Approx(0.33259447946115167).epsilon(1e-12));
  CHECK(n.exponential(2) == Approx(0.55364112588303838).epsilon(1e-12));
  CHECK(n.gamma(0.5, 2) == Approx(2.5985044191465896).epsilon(1e-12));
  CHECK(n.gamma(0.5, 2) == Approx(3.0671341816269893).epsilon(1e-12));
  CHECK(n.uniform_int(1, 6) == 5);
  CHECK(n.uniform_int(1, 6) == 3);
  CHECK(n.uniform_int(1, 6) == 3);
}

TEST_CASE("streams are reproducible and independent by name and seed", "[rng]") {
  RandomStream a(1, "arrivals"), b(1, "arrivals"), c(1, "input_tokens"), d(2, "arrivals");
  int same_ac = 0, same_ad = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto va = a.next_u64();
    REQUIRE(va == b.next_u64());
    same_ac += va == c.next_u64();
    same_ad += va == d.next_u64();
  }
  REQUIRE(same_ac == 0);
  REQUIRE(same_ad == 0);
}

TEST_CASE("uniform01 stays strictly inside (0, 1) with the right moments", "[rng]") {
  RandomStream r(3, "u");
  double lo = 1.0, hi = 0.0;
  const Moments m = sample([&] {
    const double u = r.uniform01();
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    return u;
  });
  REQUIRE(lo > 0.0);
  REQUIRE(hi < 1.0);
  // U(0,1): mean 1/2, variance 1/12, mu4 = 1/80.
  check_moments(m, 0.5, 1.0 / 12.0, 1.0 / 80.0);
}

TEST_CASE("exponential matches its closed-form moments", "[rng]") {
  RandomStream r(3, "exp");
  const double rate = 2.0;
  // Exp(rate): mean 1/rate, variance 1/rate^2, mu4 = 9/rate^4.
  check_moments(sample([&] { return r.exponential(rate); }), 1 / rate, 1 / (rate * rate),
                9 / std::pow(rate, 4));
}

TEST_CASE("normal matches its closed-form moments", "[rng]") {
  RandomStream r(3, "normal");
  // N(3, 2^2): mu4 = 3 sigma^4 = 48.
  check_moments(sample([&] { return r.normal(3.0, 2.0); }), 3.0, 4.0, 48.0);
}

TEST_CASE("lognormal is parameterised by its own mean and stddev", "[rng]") {
  const double m = 100.0, s = 50.0;
  RandomStream r(3, "lognormal");
  Moments x, logx;
  for (long i = 0; i < kDraws; ++i) {
    const double v = r.lognormal_from_mean_std(m, s);
    REQUIRE(v > 0.0);
    x.add(v);
    logx.add(std::log(v));
  }
  // With w = 1 + s^2/m^2: excess kurtosis = w^4 + 2w^3 + 3w^2 - 6, so
  // mu4 = (excess + 3) s^4.
  const double w = 1.0 + (s * s) / (m * m);
  const double excess = std::pow(w, 4) + 2 * std::pow(w, 3) + 3 * w * w - 6;
  check_moments(x, m, s * s, (excess + 3) * std::pow(s, 4));
  // ln X ~ N(mu, sigma^2), sigma^2 = ln w, mu = ln m - sigma^2/2.
  const double sigma2 = std::log(w);
  check_moments(logx, std::log(m) - sigma2 / 2, sigma2, 3 * sigma2 * sigma2);
  REQUIRE(RandomStream(1, "z").lognormal_from_mean_std(7.0, 0.0) == Approx(7.0).epsilon(1e-15));
}

TEST_CASE("gamma matches its closed-form moments for shape above and below 1", "[rng]") {
  // Gamma(k, theta): mean k theta, variance k theta^2, mu4 - sigma^4 = (2k^2 + 6k) theta^4,
  // i.e. mu4 = (3k^2 + 6k) theta^4 (excess kurtosis 6/k).
  const std::pair<double, double> cases[] = {{3.0, 0.5}, {0.5, 2.0}, {0.25, 0.8}};
  for (const auto& c : cases) {
    const double k = c.first, theta = c.second;
    INFO("shape " << k << " scale " << theta);
    RandomStream r(3, "gamma");
    const Moments m = sample([&] { return r.gamma(k, theta); });
    check_moments(m, k * theta, k * theta * theta, (3 * k * k + 6 * k) * std::pow(theta, 4));
  }
}

TEST_CASE("uniform_int is inclusive and unbiased", "[rng]") {
  RandomStream r(3, "int");
  long counts[7] = {};
  Moments m;
  for (long i = 0; i < kDraws; ++i) {
    const auto v = r.uniform_int(3, 9);
    REQUIRE(v >= 3);
    REQUIRE(v <= 9);
    ++counts[v - 3];
    m.add(static_cast<double>(v));
  }
  // 7 values: mean 6, variance (7^2 - 1)/12 = 4; mu4 = (n^2-1)(3n^2-7)/240 = 48*140/240 = 28.
  check_moments(m, 6.0, 4.0, 28.0);
  // Each bucket is Binomial(n, 1/7): sd = sqrt(n p (1-p)).
  const double p = 1.0 / 7.0, expect = kDraws * p, sd = std::sqrt(kDraws * p * (1 - p));
  for (long c : counts) CHECK(static_cast<double>(c) == Approx(expect).margin(5 * sd));

  REQUIRE(r.uniform_int(-5, -5) == -5);
  const auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  (void)r.uniform_int(lo, hi);  // full range: no overflow, no endless rejection
  const auto near_top = r.uniform_int(hi - 1, hi);
  REQUIRE(near_top >= hi - 1);
}

TEST_CASE("samplers reject out-of-contract parameters", "[rng]") {
  RandomStream r(1, "bad");
  REQUIRE_THROWS(r.exponential(0.0));
  REQUIRE_THROWS(r.gamma(0.0, 1.0));
  REQUIRE_THROWS(r.lognormal_from_mean_std(-1.0, 1.0));
  REQUIRE_THROWS(r.uniform_int(2, 1));
}
