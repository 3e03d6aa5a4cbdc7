#include "workload/request_classes.h"

#include <algorithm>

#include "core/rng.h"

namespace servesim {

ClassAssignment::ClassAssignment(std::vector<RequestClassSpec> classes, std::uint64_t seed)
    : classes_(std::move(classes)) {
  std::uint64_t s = seed;
  key_ = splitmix64(s) ^ fnv1a64("classes");
  double sum = 0;
  for (const RequestClassSpec& c : classes_) {
    sum += c.share;
    cdf_.push_back(sum);
    ranked_ = ranked_ || c.priority != classes_.front().priority;
  }
  for (double& c : cdf_) c /= sum > 0 ? sum : 1.0;
  if (!cdf_.empty()) cdf_.back() = 1.0;  // exact, so a uniform draw below 1 always finds a class
}

int ClassAssignment::draw(std::int64_t key) const {
  const double u = keyed_uniform01(key_, key, 0);
  const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
  return static_cast<int>(std::min<std::ptrdiff_t>(it - cdf_.begin(), size() - 1));
}

}  // namespace servesim
