#include "cost/expert_load.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/error.h"

namespace servesim {

double hottest_gpu_ratio(const std::vector<double>& popularity, int ep, int slots_per_gpu, ExpertBalancer balancer) {
  const int experts = static_cast<int>(popularity.size());
  if (balancer == ExpertBalancer::perfect || ep <= 1) return 1.0;
  std::vector<double> load(static_cast<std::size_t>(ep), 0.0);
  if (balancer == ExpertBalancer::none) {
    // In order: expert e on GPU e ep / E (E / ep experts each when ep divides E).
    for (int e = 0; e < experts; ++e)
      load[static_cast<std::size_t>(static_cast<long long>(e) * ep / experts)] += popularity[static_cast<std::size_t>(e)];
  } else {
    // EPLB: replicate, then pack.
    const int slots = ep * slots_per_gpu;
    std::vector<int> copies(static_cast<std::size_t>(experts), 1);
    for (int extra = experts; extra < slots; ++extra) {
      int best = 0;
      for (int e = 1; e < experts; ++e)
        if (popularity[e] / copies[e] > popularity[best] / copies[best]) best = e;
      ++copies[static_cast<std::size_t>(best)];
    }
    std::vector<double> slot_load;
    slot_load.reserve(static_cast<std::size_t>(slots));
    for (int e = 0; e < experts; ++e)
      for (int c = 0; c < copies[e]; ++c) slot_load.push_back(popularity[e] / copies[e]);
    std::sort(slot_load.begin(), slot_load.end(), std::greater<>());
    std::vector<int> used(static_cast<std::size_t>(ep), 0);
    for (double w : slot_load) {
      int best = -1;
      for (int g = 0; g < ep; ++g)
        if (used[g] < slots_per_gpu && (best < 0 || load[g] < load[best])) best = g;
      load[static_cast<std::size_t>(best)] += w;
      ++used[static_cast<std::size_t>(best)];
    }
  }
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  return *std::max_element(load.begin(), load.end()) / total * ep;
}

ExpertLoad::ExpertLoad(const ModelSpec& m, const Parallelism& p, ExpertBalancer balancer, double skew) {
  if (!m.moe.enabled() || p.ep <= 1 || balancer == ExpertBalancer::perfect) return;
  perfect_ = false;
  const int experts = m.moe.num_experts;
  k_ = m.moe.experts_per_token;
  ep_ = p.ep;
  // Blom: the expected largest of n standard normals is about the (n - 0.375)/(n + 0.25) quantile.
  z_ = normal_quantile((ep_ - 0.375) / (ep_ + 0.25));
  // The quantiles' shares, handed out per layer by e -> (a e + c) mod E with a coprime to E.
  std::vector<double> shares(static_cast<std::size_t>(experts));
  double sum = 0;
  for (int i = 0; i < experts; ++i) sum += shares[i] = std::exp(skew * normal_quantile((i + 0.5) / experts));
  for (double& s : shares) s /= sum;
  static const int kPrimes[] = {101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179};
  constexpr int kLayers = 64;
  std::vector<double> popularity(static_cast<std::size_t>(experts));
  double r_sum = 0, sqrt_sum = 0;
  int layers = 0;
  for (int l = 0; l < kLayers; ++l) {
    int a = kPrimes[l % 16];
    while (std::gcd(a, experts) != 1) a += 2;
    const long long c = 37LL * l + l / 16;
    for (int e = 0; e < experts; ++e)
      popularity[static_cast<std::size_t>(e)] = shares[static_cast<std::size_t>((a * static_cast<long long>(e) + c) % experts)];
    const double r = hottest_gpu_ratio(popularity, p.ep, p.expert_slots(m), balancer);
    r_sum += r;
    sqrt_sum += std::sqrt(r);
    ++layers;
  }
  mean_r_ = r_sum / layers;
  mean_sqrt_r_ = sqrt_sum / layers;
}

}  // namespace servesim
