#include "uncertainty/source_spread.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "util/normal_quantile.h"

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

}  // namespace servesim::bands
