#pragma once
// Levenberg-Marquardt for small nonlinear least-squares problems (a handful of
// parameters, residuals computed by the caller). Shared by the operator-timing and
// static-batch calibrations; bounds are the caller's business: they fit unconstrained
// coordinates (logit of a fraction, log of a time) and map them back.
#include <Eigen/Dense>
#include <functional>

namespace servesim {

using Residuals = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

struct LmResult {
  Eigen::VectorXd x;
  double cost = 0;  // sum of squared residuals at x
  int iterations = 0;
  int evaluations = 0;  // calls of the residual function
};

// Minimises |f(x)|^2 from x0. The Jacobian is by central differences (step 1e-6 of
// max(1, |x_j|)); the damping is scaled by the diagonal of J^T J (Marquardt's variant).
// Stops when an iteration lowers the cost by less than `relative_tolerance` of it, moves
// less than 1e-10, finds no lower cost after 30 damping increases, or after max_iterations.
LmResult levenberg_marquardt(const Residuals& f, Eigen::VectorXd x0, int max_iterations = 300,
                             double relative_tolerance = 1e-12);

}  // namespace servesim
