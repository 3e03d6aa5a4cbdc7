#include "hardware/power_model.h"

#include <algorithm>

namespace servesim {

double PowerModel::activity(double compute_util, double memory_util) const {
  const double a = compute_weight * std::max(compute_util, 0.0) + memory_weight * std::max(memory_util, 0.0);
  return std::min(a, 1.0);  // the board's power limit
}

}  // namespace servesim
