// vLLM v1's scheduler as a policy (scheduling_policy.h). Every step:
//  1. decoding sequences first, one token each (k+1 with speculative decoding,
//     emitting the accepted ones; speculative.h): when their new blocks do not fit,
//     the most recently admitted running request is preempted (recompute, or swap
//     to the CPU tier when it has room; batch_state.h), until they fit;
//  2. then running prefills continue in admission order, each taking as many
//     prompt tokens as the step's token budget (max_num_batched_tokens less the
//     decoders' tokens) leaves, preempting the newest running request when their
//     blocks do not fit;
//  3. then waiting requests in FCFS order (preempted ones first) while the token
//     budget, max_num_seqs and free KV blocks allow, after sharing what the prefix
//     cache holds of their prompts; none after a preemption this step, as vLLM
//     does. Without chunked prefill a prompt must fit the budget whole. With LoRA
//     adapters (workload.lora) a waiting request whose adapter cannot get a slot
//     (max_loras adapters already run and its own is not among them) is skipped and
//     the requests behind it are tried (vllm/v1/core/sched/scheduler.py; the skipped
//     ones keep their place at the head of the queue: batch_state.h lora_eligible).
#include <algorithm>

#include "engine/batch_state.h"
#include "engine/scheduling_policy.h"

namespace servesim {
namespace {

class VllmPolicy final : public SchedulingPolicy {
 public:
  explicit VllmPolicy(const EngineConfig& cfg)
      : max_num_seqs_(cfg.max_num_seqs),
        max_num_batched_tokens_(cfg.max_num_batched_tokens),
        chunked_prefill_(cfg.chunked_prefill),
        lora_(cfg.lora.enabled) {}

  bool plan(BatchState& st, Nanos now, Nanos cutoff) override {
    // One copy of the step's logic with LoRA admission, one without: the plain path is
    // compiled as it was before LoRA existed.
    return lora_ ? plan_step<true>(st, now, cutoff) : plan_step<false>(st, now, cutoff);
  }

 private:
  template <bool Lora>
  bool plan_step(BatchState& st, Nanos now, Nanos cutoff) {
    KvBlocks& kv = st.kv();
    const DecodeAggregate& dec = st.decoders();
    // 1. Decoders each take one token; make room for their new blocks.
    // (The call only when they do not fit as they are: the common step skips it.)
    bool preempted = dec.count() > 0 && dec.next_step_blocks() > kv.free() && preempt_until_decoders_fit(st, now);
    std::int64_t need = dec.next_step_blocks();
    std::int64_t budget = max_num_batched_tokens_ - dec.batch_tokens();

    // 2. Running prefills continue in admission order.
    const std::vector<int>& prefilling = st.prefilling();
    for (std::size_t i = 0; i < prefilling.size() && budget > 0;) {
      const int slot = prefilling[i];
      const BatchState::Seq& s = st.seq(slot);
      const std::int64_t chunk = std::min(s.target - s.computed, budget);
      const std::int64_t extra = kv.chunk_blocks(s.computed, chunk) - s.cached_blocks - s.blocks;
      if (extra > kv.free() - need) {
        if (st.running() > 0) {
          st.preempt(st.newest_running(), now);
          preempted = true;
          need = dec.next_step_blocks();
          continue;  // prefilling may have changed; retry this index
        }
        break;
      }
      st.schedule_chunk(slot, chunk, extra);
      budget -= chunk;
      ++i;
    }

    // 3. Admit waiting requests. Whether admission stopped for a reason that lasts
    // through a run of pure decode steps (no free slot, no token budget, not
    // enough free KV blocks: free blocks only shrink while decoders grow), so such
    // a run may be fused.
    bool settled = !preempted;
    while (!preempted && budget > 0 && !st.queue_empty() && st.seqs_fit(max_num_seqs_)) {
      int slot;
      if constexpr (Lora) {
        slot = st.lora_eligible(cutoff, now);
        // No waiting request's adapter fits: a reason that lasts until a running request
        // finishes, which ends any run of fused decode steps.
        if (slot == BatchState::kLoraNoneFits) break;
      } else {
        slot = st.eligible_head(cutoff);
      }
      if (slot < 0) {
        settled = false;
        break;
      }
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
      budget -= chunk;
    }
    if constexpr (Lora) {
      const bool steady = st.queue_empty() || !st.seqs_fit(max_num_seqs_) || settled;
      st.lora_restore();
      return steady;
    }
    return st.queue_empty() || !st.seqs_fit(max_num_seqs_) || settled;
  }

  std::int64_t max_num_seqs_;
  std::int64_t max_num_batched_tokens_;
  bool chunked_prefill_;
  bool lora_;  // engine.lora: admission by lora_eligible
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_vllm_policy(const EngineConfig& cfg) { return std::make_unique<VllmPolicy>(cfg); }

}  // namespace servesim
