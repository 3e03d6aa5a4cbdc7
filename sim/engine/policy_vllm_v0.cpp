// vLLM V0's default scheduler without chunked prefill as a policy
// (scheduling_policy.h), engine.scheduler: vllm_v0_prefill_first.
//
// vLLM V0 (v0.3-v0.7, vllm/core/scheduler.py, Scheduler._schedule_default) never
// mixes prompts and decodes in one step: it first tries to schedule waiting
// prompts (_schedule_prefills: FCFS, whole prompts, while the token budget,
// max_num_seqs, counting the running sequences, and the free KV blocks allow;
// the first that does not fit stops it), and only when none was scheduled runs
// the running requests (_schedule_running: one decode token each, preempting the
// most recently admitted request by recompute when their new blocks do not fit).
// So every step is either
//  - a prefill step: whole prompts of waiting requests (preempted ones first, then
//    fresh ones in arrival order); the decoders sample nothing that step
//    (BatchState::pause_decoders: the engine leaves them out of the batch, does not
//    advance the decode step counter, and adds the step's time to their next
//    inter-token gap); or
//  - a decode step of every running request, when no waiting prompt can start.
// The first prompt of a step may be longer than max_num_batched_tokens: without
// chunked prefill V0's default budget is max(max_model_len, 2048) tokens, so any
// admissible prompt fits a step of its own.
//
// Not modelled: V0's 1% free-block watermark at admission, swap-out preemption
// (recompute is V0's default for single-sequence requests), and V0's chunked
// prefill mode (the default only for contexts over 32k tokens).
#include <algorithm>

#include "engine/batch_state.h"
#include "engine/scheduling_policy.h"

namespace servesim {
namespace {

class VllmV0Policy final : public SchedulingPolicy {
 public:
  explicit VllmV0Policy(const EngineConfig& cfg)
      : max_num_seqs_(cfg.max_num_seqs), max_num_batched_tokens_(cfg.max_num_batched_tokens) {}

  bool plan(BatchState& st, Nanos now, Nanos cutoff) override {
    KvBlocks& kv = st.kv();
    const DecodeAggregate& dec = st.decoders();

    // 1. Prefills: whole prompts while the budget, max_num_seqs and free blocks allow.
    std::int64_t budget = max_num_batched_tokens_;
    std::int64_t admitted = 0;
    bool settled = true;  // admission stopped for a reason that lasts through a decode run
    while (!st.queue_empty() && st.seqs_fit(max_num_seqs_)) {
      const int slot = st.eligible_head(cutoff);
      if (slot < 0) {
        settled = false;
        break;
      }
      const KvBlocks::PrefixHit hit = st.reuse_prefix(slot);
      const BatchState::Seq& s = st.seq(slot);
      const std::int64_t remaining = s.target - s.computed;
      const std::int64_t blocks = kv.chunk_blocks(s.computed, s.target - s.computed) - s.cached_blocks;
      if ((admitted > 0 && remaining > budget) || blocks > kv.free()) {
        st.undo_prefix(slot);
        break;
      }
      st.admit_head(slot, hit, remaining, blocks, now);
      budget -= remaining;
      ++admitted;
    }
    if (admitted > 0) {
      if (dec.count() > 0) st.pause_decoders();
      return false;  // a prefill step is never fused
    }

    // 2. No prompt starts: a decode step of every running request, making room
    // for their new blocks by preempting the newest.
    if (preempt_until_decoders_fit(st, now)) settled = false;
    // What stopped admission (an empty queue, max_num_seqs, too few free blocks:
    // they only shrink while decoders grow) lasts until the next completion or arrival.
    return st.queue_empty() || !st.seqs_fit(max_num_seqs_) || settled;
  }

 private:
  std::int64_t max_num_seqs_;
  std::int64_t max_num_batched_tokens_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_vllm_v0_policy(const EngineConfig& cfg) {
  return std::make_unique<VllmV0Policy>(cfg);
}

}  // namespace servesim
