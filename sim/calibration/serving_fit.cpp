#include "calibration/serving_fit.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <iostream>

#include "util/error.h"

namespace servesim {
namespace {

double pct(double predicted, double measured) { return measured > 0 ? 100.0 * (predicted - measured) / measured : 0.0; }

double median_abs(std::vector<double> v) {
  if (v.empty()) return 0;
  for (double& x : v) x = std::fabs(x);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::vector<ExperimentErrors> experiment_errors(const std::vector<Experiment>& experiments,
                                                const std::vector<ConfigEdit>& edits, PromptSharing sharing,
                                                double time_scale,
                                                const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<ExperimentErrors> out;
  for (const auto& e : experiments) {
    const Scenario sc = experiment_scenario(e, edits);
    const ExperimentOutcome o = replay_experiment(e, sc, sharing, time_scale);
    ExperimentErrors r;
    r.key = e.key;
    r.gpu = e.gpu;
    r.ttft_mean = pct(o.predicted.ttft_mean, e.measured.ttft_mean);
    r.ttft_p99 = pct(o.predicted.ttft_p99, e.measured.ttft_p99);
    r.tpot_mean = pct(o.predicted.tpot_mean, e.measured.tpot_mean);
    r.e2e_mean = pct(o.predicted.e2e_mean, e.measured.e2e_mean);
    r.e2e_p99 = pct(o.predicted.e2e_p99, e.measured.e2e_p99);
    out.push_back(r);
    if (progress) progress(out.size(), experiments.size());
  }
  return out;
}

ErrorSummary summarize_errors(const std::vector<ExperimentErrors>& errors) {
  ErrorSummary s;
  s.experiments = errors.size();
  std::vector<double> a, b, c, d, f;
  for (const auto& e : errors) {
    a.push_back(e.ttft_mean);
    b.push_back(e.ttft_p99);
    c.push_back(e.tpot_mean);
    d.push_back(e.e2e_mean);
    f.push_back(e.e2e_p99);
  }
  s.ttft_mean = median_abs(a);
  s.ttft_p99 = median_abs(b);
  s.tpot_mean = median_abs(c);
  s.e2e_mean = median_abs(d);
  s.e2e_p99 = median_abs(f);
  return s;
}

ServingFit fit_serving(const std::vector<Experiment>& train, const std::vector<FitParameter>& params,
                       const ServingFitOptions& options) {
  if (train.empty()) throw Error("calibrate: no measured serving runs to fit on");
  if (params.empty()) throw Error("calibrate: no parameters to fit");
  if (train.size() < params.size())
    throw Error(fmt::format("calibrate: {} runs cannot determine {} parameters; give at least as many runs as "
                            "parameters (each run gives 4 error terms, but runs of one GPU and model are highly "
                            "correlated)",
                            train.size(), params.size()));
  const int n = static_cast<int>(params.size());
  int evaluations = 0;
  auto objective = [&](const Eigen::VectorXd& x) {
    std::vector<double> values(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = parameter_value(params[static_cast<std::size_t>(i)], x[i]);
    // Evaluated on the 6-significant-digit grid of the printed values (as this fit
    // always has been; Nelder-Mead's path, and so its result, depends on it), each
    // value set exactly as a number edit, with no text round trip.
    std::vector<double> grid(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) grid[i] = round_significant(values[i], 6);
    std::vector<ConfigEdit> edits = options.fixed_edits;
    for (auto& ed : parameter_edits(params, grid)) edits.push_back(std::move(ed));
    double sum = 0;
    for (const auto& e : train) {
      const Scenario sc = experiment_scenario(e, edits);
      const ExperimentOutcome o = replay_experiment(e, sc, options.sharing, options.time_scale);
      auto term = [](double p, double m) {
        if (m <= 0 || p <= 0) return 0.0;
        const double r = std::log(p / m);
        return r * r;
      };
      sum += term(o.predicted.ttft_mean, e.measured.ttft_mean) + term(o.predicted.tpot_mean, e.measured.tpot_mean) +
             term(o.predicted.e2e_mean, e.measured.e2e_mean) + 0.5 * term(o.predicted.ttft_p99, e.measured.ttft_p99);
    }
    ++evaluations;
    if (options.progress) options.progress(evaluations, options.max_evaluations);
    const double f = sum / static_cast<double>(train.size());
    if (options.verbose) {
      std::cerr << fmt::format("  eval {:>3}: objective {:.5f} ", evaluations, f);
      for (int i = 0; i < n; ++i) std::cerr << fmt::format(" {:.4g}", values[static_cast<std::size_t>(i)]);
      std::cerr << "\n";
    }
    return f;
  };

  // Nelder-Mead on the unbounded coordinates.
  std::vector<Eigen::VectorXd> simplex;
  Eigen::VectorXd x0(n);
  for (int i = 0; i < n; ++i) x0[i] = parameter_coordinate(params[static_cast<std::size_t>(i)], params[static_cast<std::size_t>(i)].init);
  simplex.push_back(x0);
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd x = x0;
    x[i] += 0.8;
    simplex.push_back(x);
  }
  std::vector<double> f;
  for (const auto& x : simplex) f.push_back(objective(x));
  while (evaluations < options.max_evaluations) {
    std::vector<int> order(simplex.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return f[static_cast<std::size_t>(a)] < f[static_cast<std::size_t>(b)]; });
    std::vector<Eigen::VectorXd> s2;
    std::vector<double> f2;
    for (int i : order) {
      s2.push_back(simplex[static_cast<std::size_t>(i)]);
      f2.push_back(f[static_cast<std::size_t>(i)]);
    }
    simplex = s2;
    f = f2;
    if (f.back() - f.front() < 1e-5) break;
    Eigen::VectorXd centroid = Eigen::VectorXd::Zero(n);
    for (int i = 0; i < n; ++i) centroid += simplex[static_cast<std::size_t>(i)];
    centroid /= n;
    const Eigen::VectorXd worst = simplex.back();
    const Eigen::VectorXd xr = centroid + (centroid - worst);
    const double fr = objective(xr);
    if (fr < f.front()) {
      const Eigen::VectorXd xe = centroid + 2.0 * (centroid - worst);
      const double fe = objective(xe);
      if (fe < fr) {
        simplex.back() = xe;
        f.back() = fe;
      } else {
        simplex.back() = xr;
        f.back() = fr;
      }
    } else if (fr < f[f.size() - 2]) {
      simplex.back() = xr;
      f.back() = fr;
    } else {
      const Eigen::VectorXd xc = centroid + 0.5 * (worst - centroid);
      const double fc = objective(xc);
      if (fc < f.back()) {
        simplex.back() = xc;
        f.back() = fc;
      } else {
        for (std::size_t i = 1; i < simplex.size(); ++i) {
          simplex[i] = simplex[0] + 0.5 * (simplex[i] - simplex[0]);
          f[i] = objective(simplex[i]);
        }
      }
    }
  }
  const auto best = static_cast<std::size_t>(std::min_element(f.begin(), f.end()) - f.begin());
  ServingFit fit;
  fit.objective = f[best];
  fit.evaluations = evaluations;
  for (int i = 0; i < n; ++i) fit.values.push_back(parameter_value(params[static_cast<std::size_t>(i)], simplex[best][i]));
  return fit;
}

}  // namespace servesim
