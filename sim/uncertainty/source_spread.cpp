#include "uncertainty/source_spread.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace servesim::bands {

bool queue_free(const std::string& metric, const std::string& load) {
  return metric.rfind("tpot", 0) == 0 || load == "low";
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

SourceSpread source_spread(const std::vector<Residual>& residuals) {
  // cell (calibrated, metric, load) -> source -> residuals
  std::map<std::tuple<bool, std::string, std::string>, std::map<std::string, std::vector<double>>> cells;
  for (const auto& r : residuals)
    if (std::isfinite(r.value) && queue_free(r.metric, r.key.load))
      cells[{r.key.calibrated, r.metric, r.key.load}][r.source].push_back(r.value);
  SourceSpread s;
  double ss = 0;
  for (const auto& [cell, sources] : cells) {
    if (sources.size() < 2) continue;
    std::vector<double> medians;
    for (const auto& [src, v] : sources) medians.push_back(median(v));
    double mean = 0;
    for (double m : medians) mean += m;
    mean /= static_cast<double>(medians.size());
    for (double m : medians) ss += (m - mean) * (m - mean);
    s.df += static_cast<int>(medians.size()) - 1;
    ++s.cells;
  }
  if (s.df > 0) s.tau = std::sqrt(ss / s.df);
  return s;
}

std::pair<double, double> widen_by_source(double q_lo, double q_hi, double tau, double coverage) {
  if (!(tau > 0)) return {q_lo, q_hi};
  const double centre = (q_lo + q_hi) / 2, h = (q_hi - q_lo) / 2;
  const double z = normal_quantile((1 + coverage) / 2);
  const double w = std::sqrt(h * h + z * tau * z * tau);
  return {centre - w, centre + w};
}

double normal_quantile(double p) {
  // Peter Acklam's algorithm (2003), the coefficients as he published them.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425, hi = 1 - lo;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > hi) {
    const double q = std::sqrt(-2 * std::log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace servesim::bands
