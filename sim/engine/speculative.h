#pragma once
// Speculative decoding (engine.speculative): a drafter proposes k tokens per
// decoding sequence, the target verifies the k+1 positions in one forward pass,
// and each sequence emits the accepted prefix plus one token from the target.
//
// The model, per decode step of a speculating batch (vllm_engine.cpp prices it
// through step_pricing.h):
//  - draft: k decode steps of the drafter's CostModel over the same batch and the
//    same GPUs / TP as the target. For method draft_model the drafter is the
//    named model (its weights and its KV, growing with the target's, take memory
//    in the planner). For eagle and mtp the drafter is a head of one transformer
//    layer of the target's width plus the (shared) LM head, run once per
//    proposed token: EAGLE (Li et al. 2024, "EAGLE: Speculative Sampling Requires
//    Rethinking Feature Uncertainty", arXiv:2401.15077, sec. 3: a single
//    auto-regression head, one decoder layer, over the target's features, with
//    the target's embedding and LM head frozen and shared) and DeepSeek-V3's MTP
//    module (DeepSeek-AI 2024, arXiv:2412.19437, sec. 2.2: one transformer block
//    per prediction depth sharing the embedding and output head). The 2h -> h
//    input projection both have is left out (< 1/6 of a layer's weights in a
//    Llama-8B-shaped layer); the head's layer keeps the target's KV layout, so
//    it caches one layer's KV per token.
//  - verify: every decoder feeds k+1 tokens (its last sampled token and the k
//    drafts) over its context in the target's one pass: BatchSummary work
//    SeqWork{k+1, ctx} per decoder, all k+1 positions run the LM head. Compute
//    grows with k while the weights are read once per step, so the gain shrinks
//    as the batch grows and turns into a loss once the step is compute-bound.
//  - accepted: position i of the draft is accepted with probability a_i given
//    that positions 1..i-1 were (acceptance_rate alpha: a_i = alpha for every i),
//    so a sequence emits E = 1 + a1 + a1 a2 + ... + a1...ak tokens per step in
//    expectation, (1 - alpha^(k+1)) / (1 - alpha) for i.i.d. acceptance.
//    Deterministic: step s (counted from 1) emits floor(s E) - floor((s-1) E)
//    tokens for every decoder, so emitted tokens track s E to within one token
//    and runs are reproducible with no random draws. The decoders' KV grows by
//    the emitted tokens (the rejected drafts' slots are reused next step).
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace servesim {

struct SpeculativeConfig {
  std::string method = "none";  // none, draft_model, eagle, mtp
  std::string draft_model;      // draft_model: catalog name or config.json path
  std::int64_t num_speculative_tokens = 0;  // k
  // Per-position conditional acceptance a_1 .. a_k (from acceptance_rate or acceptance).
  std::vector<double> acceptance;
  // The drafter's shape: the draft model, or the one-layer head (eagle, mtp).
  std::shared_ptr<const ModelSpec> drafter;

  bool enabled() const { return method != "none" && num_speculative_tokens > 0; }
  bool head() const { return method == "eagle" || method == "mtp"; }
  // Expected tokens a sequence emits per step: 1 + sum_i prod_{j<=i} a_j.
  double expected_tokens() const {
    double e = 1.0, p = 1.0;
    for (double a : acceptance) {
      p *= a;
      e += p;
    }
    return e;
  }
};

// The drafting head of eagle / mtp: one layer of the target (its width, heads,
// MLP or MoE shape) with the target's vocabulary for the LM head.
inline ModelSpec speculative_head(const ModelSpec& target, const std::string& method) {
  ModelSpec h = target;
  h.name = target.name + " (" + method + " head)";
  h.layers = 1;
  h.moe.dense_layers = 0;  // MTP's block in DeepSeek-V3 is an MoE layer like the ones it follows
  return h;
}

}  // namespace servesim
