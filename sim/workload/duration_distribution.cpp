#include "workload/duration_distribution.h"

#include <cmath>
#include <numbers>

namespace servesim {

double DurationSpec::mean() const {
  switch (kind) {
    case DurationKind::fixed: return value_s;
    case DurationKind::uniform: return (min_s + max_s) / 2;
    case DurationKind::exponential:
    case DurationKind::lognormal: return mean_s;
  }
  return value_s;
}

double sample_duration(const DurationSpec& spec, double u0, double u1) {
  switch (spec.kind) {
    case DurationKind::fixed: return spec.value_s;
    case DurationKind::uniform: return spec.min_s + (spec.max_s - spec.min_s) * u0;
    case DurationKind::exponential: return -spec.mean_s * std::log(u0);
    case DurationKind::lognormal: {
      if (spec.stddev_s <= 0) return spec.mean_s;
      // sigma^2 = ln(1 + s^2/m^2), mu = ln m - sigma^2/2 (the mean and stddev of the duration itself);
      // one standard normal by Box-Muller from the two uniforms.
      const double ratio = spec.stddev_s / spec.mean_s;
      const double sigma2 = std::log1p(ratio * ratio);
      const double mu = std::log(spec.mean_s) - sigma2 / 2;
      const double z = std::sqrt(-2 * std::log(u0)) * std::cos(2 * std::numbers::pi * u1);
      return std::exp(mu + std::sqrt(sigma2) * z);
    }
  }
  return spec.value_s;
}

}  // namespace servesim
