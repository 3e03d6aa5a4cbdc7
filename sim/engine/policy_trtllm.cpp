// TensorRT-LLM's GUARANTEED_NO_EVICT capacity scheduler as a policy
// (scheduling_policy.h), engine.scheduler: trtllm_no_evict.
//
// TensorRT-LLM's batch manager schedules in two stages each iteration: a capacity
// scheduler picks which requests may hold KV (CapacitySchedulerPolicy, default
// GUARANTEED_NO_EVICT; the other is MAX_UTILIZATION), then a micro-batch scheduler
// fits them into max_num_tokens / max_batch_size, context and generation requests
// in the same step (in-flight batching). With GUARANTEED_NO_EVICT a request starts
// only when the KV blocks for its whole sequence (prompt + its maximum new tokens)
// fit beside what every running request may still need to its end, so a started
// request always runs to completion and nothing is ever paused (sources:
// TensorRT-LLM docs, "Useful runtime options" / KV cache management,
// CapacitySchedulerPolicy; cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp,
// GuaranteedNoEvictScheduler: requests in progress reserve
// getRemainingBlocksToCompletion, pending ones are started in order while their
// blocks to completion fit, and scheduling stops at the first that does not).
//
// Here, every step:
//  1. decoders take one token each (their blocks were reserved at admission, so
//     they always fit);
//  2. running prefills continue in admission order within the token budget
//     (max_num_batched_tokens less the decoders' tokens; chunked when
//     engine.chunked_prefill, TensorRT-LLM's enable_chunked_context);
//  3. waiting requests start in FCFS order while the token budget and
//     max_num_seqs allow and reserved_blocks + peak_blocks(request) <= total KV
//     blocks, peak_blocks being the request's prompt + output length less one
//     token (batch_state.h): the simulator knows each request's output length,
//     which stands in for its max_new_tokens. The first that does not fit stops
//     admission (FCFS, no skipping).
// Reserving each running request's peak is the same test as TensorRT-LLM's
// "remaining blocks to completion plus blocks held" for the running requests: what
// a request holds plus what it may still need is its peak. Reservations count a
// prompt's shared prefix-cache blocks once per request, which is conservative.
//
// engine.scheduler: trtllm_max_utilization (TensorRT-LLM's MAX_UTILIZATION: start
// requests while their next blocks fit and pause the most recently started ones
// when memory runs out) is vLLM's policy (policy_vllm.cpp), whose preemption is
// the same last-in-first-paused order.
#include <algorithm>

#include "engine/batch_state.h"
#include "engine/scheduling_policy.h"

namespace servesim {
namespace {

class NoEvictPolicy final : public SchedulingPolicy {
 public:
  explicit NoEvictPolicy(const EngineConfig& cfg)
      : max_num_seqs_(cfg.max_num_seqs),
        max_num_batched_tokens_(cfg.max_num_batched_tokens),
        chunked_prefill_(cfg.chunked_prefill) {}

  bool plan(BatchState& st, Nanos now, Nanos cutoff) override {
    KvBlocks& kv = st.kv();
    const DecodeAggregate& dec = st.decoders();
    // 1. Decoders: their blocks are within their reservations, so they fit.
    // (A guard, never taken: preempting would break the policy's promise, and
    // test_policies.cpp checks that no run preempts.)
    bool preempted = preempt_until_decoders_fit(st, now);
    std::int64_t need = dec.next_step_blocks();
    // The decoders' tokens: one each, k+1 each when speculating (as policy_vllm.cpp).
    std::int64_t budget = max_num_batched_tokens_ - dec.batch_tokens();

    // 2. Running prefills continue in admission order (their blocks are reserved too).
    for (int slot : st.prefilling()) {
      if (budget <= 0) break;
      const BatchState::Seq& s = st.seq(slot);
      const std::int64_t chunk = std::min(s.target - s.computed, budget);
      const std::int64_t extra = kv.chunk_blocks(s.computed, chunk) - s.cached_blocks - s.blocks;
      if (extra > kv.free() - need) break;  // guard, as above
      st.schedule_chunk(slot, chunk, extra);
      budget -= chunk;
    }

    // 3. Admission: a request starts only when its peak fits beside the running
    // requests' peaks. Whatever stops it lasts through a run of decode steps (the
    // reservations change only when a request finishes, which ends the run).
    bool settled = !preempted;
    while (!preempted && budget > 0 && !st.queue_empty() && st.seqs_fit(max_num_seqs_)) {
      const int slot = st.eligible_head(cutoff);
      if (slot < 0) {
        settled = false;
        break;
      }
      const std::int64_t peak = st.peak_blocks(slot);
      if (st.reserved_blocks() + peak > kv.total()) break;
      const KvBlocks::PrefixHit hit = st.reuse_prefix(slot);
      const BatchState::Seq& s = st.seq(slot);
      const std::int64_t remaining = s.target - s.computed;
      const std::int64_t chunk = std::min(remaining, budget);
      const std::int64_t blocks = kv.chunk_blocks(s.computed, chunk) - s.cached_blocks;
      if ((!chunked_prefill_ && remaining > budget) || blocks > kv.free() - need) {
        st.undo_prefix(slot);
        break;
      }
      st.admit_head(slot, hit, chunk, blocks, now);
      st.reserve(slot, peak);
      budget -= chunk;
    }
    return st.queue_empty() || !st.seqs_fit(max_num_seqs_) || settled;
  }

 private:
  std::int64_t max_num_seqs_;
  std::int64_t max_num_batched_tokens_;
  bool chunked_prefill_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_trtllm_no_evict_policy(const EngineConfig& cfg) {
  return std::make_unique<NoEvictPolicy>(cfg);
}

}  // namespace servesim
