#pragma once
// The standard normal quantile function (the inverse of its CDF), for interval widths
// (uncertainty/source_spread.h) and order statistics of expert loads (cost/expert_load.h).

namespace servesim {

// Acklam's rational approximation, relative error below 1.2e-9; -inf at p <= 0, +inf at p >= 1.
double normal_quantile(double p);

}  // namespace servesim
