#pragma once
// How unevenly the routed tokens of a step load the GPUs of an expert-parallel group:
// the MoE layer waits for its busiest GPU (its grouped GEMMs and what it receives).
//
// The model, per MoE layer:
//  - expert popularity is log-normal: expert e draws a share proportional to
//    exp(skew x z_e), the z_e the standard normal quantiles (i + 0.5)/E handed to the
//    experts in a fixed scattered order that differs per layer (64 layers' worth,
//    averaged: hot experts differ by layer, TensorRT-LLM tech blog 4, figures 1-11);
//  - placement: `none` puts experts in order, E/ep per GPU; `eplb` is DeepSeek's EPLB
//    (github.com/deepseek-ai/EPLB, eplb.py): the redundant slots go one by one to the
//    expert with the most load per copy, then the slots are packed heaviest first onto
//    the GPU with the least load that has room; `perfect` gives every GPU the mean;
//  - a step of T tokens routes T k token-expert pairs, mu = T k / ep per GPU on
//    average; the hottest GPU of a layer expects r mu (r = ep x its share) and its count
//    varies by about sqrt(r mu) (independent routing), so the busiest GPU carries
//        max/mean = mean over layers of [ r + z_ep sqrt(r / mu) ]
//    with z_ep the expected largest of ep standard normals (Blom's approximation); an
//    upper estimate where one GPU is far hotter than the rest.
// Deterministic: no random draws; the placement is computed once per cost model.
#include "util/normal_quantile.h"  // normal_quantile, used with the loads
#include <cmath>
#include <vector>

#include "cost/moe_deployment.h"
#include "cost/parallelism.h"
#include "model/model_spec.h"

namespace servesim {

// TensorRT-LLM tech blog 4 ("Scaling Expert Parallelism in TensorRT-LLM, part 1", table 1):
// DeepSeek-R1 on 32 GB200, 128 tokens per rank, imbalance (max - mean)/mean of the tokens a
// rank receives, averaged over layers and iterations: 1.564 without EPLB (EP32, 8 slots per
// rank). tools/fit/routing_skew.py fits the skew to it and predicts the two EPLB rows held out.
inline constexpr double kDefaultRoutingSkew = 1.11;

class ExpertLoad {
 public:
  ExpertLoad() = default;  // no experts: max_over_mean() is 1
  ExpertLoad(const ModelSpec& m, const Parallelism& p, ExpertBalancer balancer, double skew);
  // The busiest GPU's routed token-expert pairs over the mean, for a step of `tokens`
  // tokens over the whole EP group (>= 1).
  double max_over_mean(double tokens) const {
    if (perfect_ || tokens <= 0) return 1.0;
    return mean_r_ + z_ * mean_sqrt_r_ / std::sqrt(tokens * k_ / ep_);
  }
  // Without the noise of finite batches: the hottest GPU's expected share x ep.
  double static_ratio() const { return perfect_ ? 1.0 : mean_r_; }

 private:
  bool perfect_ = true;
  double mean_r_ = 1.0, mean_sqrt_r_ = 1.0, z_ = 0.0, k_ = 1.0, ep_ = 1.0;
};

// The hottest GPU's share of one layer's load x ep, for expert shares `popularity`
// (summing to 1) placed by `balancer` on `ep` GPUs of `slots_per_gpu` slots each
// (E + redundant = ep x slots_per_gpu). Exposed for the tests and tools.
double hottest_gpu_ratio(const std::vector<double>& popularity, int ep, int slots_per_gpu, ExpertBalancer balancer);


}  // namespace servesim
