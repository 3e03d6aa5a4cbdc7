#include "workload/lora_adapters.h"

#include <algorithm>
#include <cmath>

#include "core/rng.h"

namespace servesim {

std::string_view lora_popularity_name(LoraPopularity p) { return p == LoraPopularity::zipf ? "zipf" : "uniform"; }

LoraAssignment::LoraAssignment(const LoraWorkloadSpec& spec, std::uint64_t seed) : spec_(spec) {
  std::uint64_t s = seed;
  key_ = splitmix64(s) ^ fnv1a64("lora");
  if (spec_.popularity == LoraPopularity::zipf && spec_.adapters > 0) {
    cdf_.resize(static_cast<std::size_t>(spec_.adapters));
    double sum = 0;
    for (std::int64_t i = 0; i < spec_.adapters; ++i) {
      sum += std::pow(static_cast<double>(i + 1), -spec_.zipf_s);
      cdf_[static_cast<std::size_t>(i)] = sum;
    }
    for (double& c : cdf_) c /= sum;
    cdf_.back() = 1.0;  // exact, so a uniform draw below 1 always finds an adapter
  }
}

double LoraAssignment::uniform01(std::int64_t key, std::uint64_t k) const { return keyed_uniform01(key_, key, k); }

std::int32_t LoraAssignment::draw(std::int64_t key) const {
  if (spec_.share < 1.0 && !(uniform01(key, 0) < spec_.share)) return kBase;
  const double u = uniform01(key, 1);
  if (spec_.popularity == LoraPopularity::uniform) {
    const auto i = static_cast<std::int64_t>(u * static_cast<double>(spec_.adapters));
    return static_cast<std::int32_t>(std::min(i, spec_.adapters - 1));
  }
  // The first adapter whose cumulative weight exceeds u.
  const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
  return static_cast<std::int32_t>(std::min<std::ptrdiff_t>(it - cdf_.begin(), spec_.adapters - 1));
}

double LoraAssignment::probability(std::int64_t i) const {
  if (i < 0 || i >= spec_.adapters) return 0.0;
  if (spec_.popularity == LoraPopularity::uniform) return spec_.share / static_cast<double>(spec_.adapters);
  const auto at = static_cast<std::size_t>(i);
  return spec_.share * (cdf_[at] - (at > 0 ? cdf_[at - 1] : 0.0));
}

}  // namespace servesim
