#pragma once
// A forward step's batch: each sequence contributes `new_tokens` computed this step on
// top of `context_tokens` already in the KV cache. Prefill (context 0), chunked
// prefill (context > 0, many new tokens), decode (1 new token) and mixed batches are
// all the same description.
//
// The cost model only needs linear sums over sequences, so the engine keeps a
// BatchSummary up to date in O(1) per change (add/remove), never re-walking the batch.
#include <cstdint>
#include <span>

#include "model/model_spec.h"

namespace servesim {

// Multi-LoRA (workload.lora; cost/lora_shape.h): a step's tokens that carry an
// adapter, the distinct adapters among them, and the rank the kernels run at
// (engine.lora.max_lora_rank: vLLM pads every adapter's slot to it). adapters == 0
// (every batch without LoRA) adds nothing to the step.
struct LoraLoad {
  std::int64_t tokens = 0;
  std::int32_t adapters = 0;
  std::int32_t rank = 0;
};

struct SeqWork {
  std::int64_t new_tokens = 0;
  std::int64_t context_tokens = 0;
  bool samples = true;  // emits a token this step (false for a non-final prefill chunk)
};

struct BatchSummary {
  std::int64_t seqs = 0;
  std::int64_t new_tokens = 0;
  std::int64_t sampled = 0;           // sequences that run the LM head and sampler
  // Prefill part (new_tokens > 1): causal query-key pairs and KV tokens read.
  std::int64_t prefill_seqs = 0;
  std::int64_t prefill_tokens = 0;
  // Of prefill_seqs, speculative verifications (decoders feeding k+1 tokens): decode-phase
  // work, which the wide-EP step prices with the low-latency all-to-all.
  std::int64_t verify_seqs = 0;
  double prefill_pairs = 0.0;         // sum new*ctx + new*(new+1)/2
  double prefill_full_pairs = 0.0;    // sum new*(ctx+new): score entries a naive kernel materialises
  double prefill_kv_tokens = 0.0;     // sum ctx+new
  // Decode part (new_tokens == 1): each reads its whole context once.
  std::int64_t decode_seqs = 0;
  double decode_kv_tokens = 0.0;      // sum ctx+1
  // Local attention layers (model.local; CostModel::batch() sets it, none: these stay
  // 0): the same sums over the keys a local layer's queries see.
  LocalAttention local;
  double prefill_local_pairs = 0.0;      // sum of keys(p) over the chunk's positions p
  double prefill_local_kv_tokens = 0.0;  // sum of keys read from the first query's span start
  double decode_local_kv_tokens = 0.0;   // sum keys(ctx+1)
  LoraLoad lora;  // set by the engine (LoraLoad above); none by default

  void add(const SeqWork& s, int sign = +1);
  void remove(const SeqWork& s) { add(s, -1); }
  bool empty() const { return seqs == 0; }
};

// `local`: the model's local attention (CostModel::model().local), none by default.
BatchSummary summarize(std::span<const SeqWork> seqs, const LocalAttention& local = {});

}  // namespace servesim
