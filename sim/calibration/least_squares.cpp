#include "calibration/least_squares.h"

#include <algorithm>
#include <cmath>

namespace servesim {

LmResult levenberg_marquardt(const Residuals& f_in, Eigen::VectorXd x, int max_iterations, double relative_tolerance) {
  LmResult out;
  const Residuals f = [&](const Eigen::VectorXd& v) {
    ++out.evaluations;
    return f_in(v);
  };
  Eigen::VectorXd r = f(x);
  double cost = r.squaredNorm();
  double lambda = 1e-3;
  const Eigen::Index n = x.size();
  int it = 0;
  for (; it < max_iterations; ++it) {
    Eigen::MatrixXd J(r.size(), n);
    for (Eigen::Index j = 0; j < n; ++j) {
      const double h = 1e-6 * std::max(1.0, std::abs(x[j]));
      Eigen::VectorXd xp = x, xm = x;
      xp[j] += h;
      xm[j] -= h;
      J.col(j) = (f(xp) - f(xm)) / (2.0 * h);
    }
    const Eigen::MatrixXd A = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false;
    const double old_cost = cost;
    Eigen::VectorXd delta;
    for (int tries = 0; tries < 30 && !improved; ++tries) {
      Eigen::MatrixXd M = A;
      for (Eigen::Index j = 0; j < n; ++j) M(j, j) += lambda * (A(j, j) + 1e-12);
      delta = M.ldlt().solve(-g);
      const Eigen::VectorXd xn = x + delta;
      const Eigen::VectorXd rn = f(xn);
      const double cn = rn.squaredNorm();
      if (std::isfinite(cn) && cn < cost) {
        x = xn;
        r = rn;
        cost = cn;
        lambda = std::max(lambda * 0.3, 1e-12);
        improved = true;
      } else {
        lambda *= 10.0;
      }
    }
    if (!improved || old_cost - cost <= relative_tolerance * old_cost || delta.norm() < 1e-10) {
      ++it;
      break;
    }
  }
  out.x = x;
  out.cost = cost;
  out.iterations = it;
  return out;
}

}  // namespace servesim
