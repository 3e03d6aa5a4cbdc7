#pragma once
// A replica with attention data parallelism (parallelism.attention_dp = D ranks) is
// simulated as one engine that holds every rank's sequences. Each rank of SGLang /
// vLLM / TensorRT-LLM schedules its own batch (engine.max_num_seqs sequences and
// engine.max_num_batched_tokens tokens a step, its own KV blocks) and the ranks step
// together, joined by the MoE layers; with balanced ranks the replica's engine is one
// scheduler with D times each budget. The per-sequence CPU time is spent by each rank's
// scheduler in parallel, 1/D of it per sequence of the replica. How a step's work
// splits over the ranks (the busiest rank sets the step time) is the cost model's
// (cost/wide_ep_step.cpp); a request's KV must fit one rank (EngineContext::max_request_blocks).
#include "engine/engine_config.h"

namespace servesim {

inline EngineConfig replica_engine_config(const EngineConfig& rank, int attention_dp) {
  if (attention_dp <= 1) return rank;
  EngineConfig e = rank;
  e.max_num_seqs *= attention_dp;
  e.max_num_batched_tokens *= attention_dp;
  e.per_seq_cpu_overhead /= attention_dp;
  return e;
}

// The blocks one rank of a replica holding `replica_blocks` has (a request's KV must fit
// it); 0 without DP attention (the replica's blocks bound a request).
inline std::int64_t rank_kv_blocks(std::int64_t replica_blocks, int attention_dp) {
  return attention_dp > 1 ? replica_blocks / attention_dp : 0;
}

}  // namespace servesim
