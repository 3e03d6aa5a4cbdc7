#pragma once
// The vLLM-style engine: continuous batching with chunked prefill and a paged KV
// cache (vLLM v1). This class runs the step lifecycle and nothing else; the parts
// with one job each are
//  - the scheduling policy (scheduling_policy.h; vLLM v1's in policy_vllm.cpp):
//    who runs in the step: admission, the token budget, preemption;
//  - the batch state (batch_state.h): the requests, waiting, prefilling or
//    decoding, and the moves between those states;
//  - the KV block manager (kv_blocks.h, with prefix_cache.h and cpu_tier.h):
//    blocks in use, prefix sharing, eviction, the CPU offload tier;
//  - the decode aggregate (decode_aggregate.h): decoders' lengths and block needs
//    as sums and bucket counts, so a decode step is O(1);
//  - step pricing (step_pricing.h, with step_cost_cache.h): batch -> seconds.
//
// A step: the policy plans it (one virtual call), the engine prices the batch and,
// when the plan is a decode-only step that would repeat until the next event,
// fast-forwards a run of identical decode steps (the decoders' KV grows by one
// token a step; the run ends before the first completion, before the KV blocks run
// out and before the next arrival is seen). At the step's end the batch state
// completes decoders and prefill chunks. A step whose prompts all complete there and
// decode on, with nothing else changing (a chained head: start_step), is finished in
// the same event and the step or run after it started, so the event loop sees one
// event where the schedule has two.
//
// Speculative decoding (engine.speculative, speculative.h): every decoder feeds
// k+1 tokens to the step, which the drafter's k decode steps precede, and emits
// the expected accepted tokens (deterministic fractional accounting); such steps
// are not fast-forwarded.
//
// Parallel sampling and beam search (workload.sampling, sequence_group.h): a
// request of m sequences prefills once and then decodes as m members of the
// decode aggregate, so decode steps (fused ones included) price and count m
// sequences; its copy-on-write blocks are the aggregate's owed blocks at its
// first decode step.
//
// CPU offload (engine.cpu_offload, cpu_tier.h): prefix blocks evicted from the GPU
// cache move to a CPU LRU tier. At admission, after the GPU prefix hit, the
// following blocks found in the CPU tier are reloaded instead of recomputed: they
// take GPU blocks like computed ones, and their transfer (bytes / host bandwidth
// + host latency, per request) is added to the time of the step that admits the
// request (the simple choice: the reload is not overlapped with that step's
// compute). Preempted requests' KV is swapped out when the tier has room (the
// swap-out is charged to the preempting step, the swap-in to the readmitting one);
// a swapped decode resumes with one token to process instead of recomputing.
//
// Multi-LoRA (workload.lora with engine.lora; lora_slots.h): a step's batch carries
// its tokens with an adapter and the distinct adapters running (BatchSummary::lora),
// which the cost model prices (cost/lora_cost.cpp); loading an adapter into a GPU
// slot holds up the step that admits its request, as a KV reload does.
#include <memory>
#include <vector>

#include "engine/batch_state.h"
#include "engine/engine.h"
#include "engine/scheduling_policy.h"
#include "engine/step_pricing.h"

namespace servesim {

class VllmEngine final : public Engine {
 public:
  explicit VllmEngine(const EngineContext& ctx);
  bool enqueue(Request r, Nanos now) override { return state_.enqueue(std::move(r), now); }
  bool has_work() const override { return state_.has_work(); }
  bool can_start(Nanos /*now*/) const override { return !in_step_ && has_work(); }
  Nanos start_step(Nanos now, Nanos horizon) override;
  void finish_step(Nanos now, std::vector<Request>& done) override;
  std::int64_t outstanding() const override { return state_.outstanding(); }
  std::int64_t queued() const override { return state_.queued(); }
  std::int64_t queued_bytes() const override { return state_.queued_bytes(); }
  void abort_queued(Nanos now, FailureReason why, const std::function<void(const Request&)>& aborted) override {
    state_.abort_queued(now, why, aborted);
  }
  // A running prefill is aborted only between steps (its chunk may be in the one in flight).
  void abandon_due(Nanos now, std::vector<Request>& gone) override { state_.abandon_due(now, !in_step_, gone); }
  Nanos next_deadline() override { return state_.next_deadline(); }
  double kv_load() const override {
    const KvBlocks& kv = state_.kv();
    return kv.total() > 0 ? static_cast<double>(kv.used()) / kv.total() : 0.0;
  }
  std::int64_t kv_blocks_total() const override { return state_.kv().total(); }
  ReplicaLoad load() const override {
    return ReplicaLoad{state_.outstanding(), state_.queued(), state_.queued_bytes(), kv_load()};
  }

  // For the pipeline (pipeline_engine.cpp).
  bool in_step() const { return in_step_; }
  std::int64_t used_blocks() const { return state_.kv().used(); }
  // First-stage occupancy of the step in flight: its wall time with the busiest
  // stage's time in place of the full pipeline latency.
  Nanos step_stage_nanos() const { return step_stage_nanos_; }
  // The pipeline holds the step's end back (it cannot overtake the one ahead).
  void set_step_end(Nanos end) { step_end_ = end; }
  const CpuKvTier& cpu_tier() const { return state_.kv().cpu_tier(); }
  void kv_tier_chains(std::vector<const KvTierChain*>& out) const override {
    if (const KvTierChain* c = state_.kv().tiers()) out.push_back(c);
  }
  const LoraCounts* lora_counts() const override { return state_.lora() ? &state_.lora()->counts : nullptr; }
  PrefixMatch prefix_match(const Request& r) const override { return state_.prefix_match(r); }
  bool interruptible() const override { return fuse_; }
  bool interrupt(Nanos t) override;
  Nanos step_end() const override { return step_end_; }
  std::int64_t lora_last_use(std::int32_t a) const override {
    return state_.lora() ? state_.lora()->last_use(a) : -1;
  }

 private:
  // The number of identical decode steps to fuse from `now` (at least 1), their
  // total wall time and the start of the last one (seconds from now).
  // lora: the run's LoRA adapters (constant through it: nobody joins or leaves).
  std::int64_t fast_forward_steps(Nanos now, Nanos horizon, double first_step_time, const LoraLoad& lora,
                                  double* total_time, double* last_start);
  // The search of fast_forward_steps: how many of at most k_max steps, the first
  // taking first_step_time and each next one `slope` more, run from `now` with the
  // last one starting before `horizon` (with async scheduling, one more).
  std::int64_t fused_steps(Nanos now, Nanos horizon, double first_step_time, double slope, std::int64_t k_max,
                           double* total_time, double* last_start) const;
  // Reports the step's record and inter-token gaps (record_) to the observer.
  void emit_record();
  // Whether the planned step, with prefill chunks, ends with nothing the event loop
  // would see: every scheduled prompt completes and decodes on (none finishes at its
  // first token, none registers prefix blocks), no decoder finishes, nothing waits.
  bool head_chainable(bool paused, double transfer_s);
  // Finishes the head step ending at `head_end` now and starts what follows it there.
  Nanos chain_after_head(Nanos head_end, Nanos horizon);

  // Tokens each decoder emits at speculating step s (from 1).
  std::int64_t spec_emitted(std::int64_t s) const;
  // The planned step's LoRA adapters (workload.lora; BatchSummary::lora), with n_decode decoders in it.
  [[gnu::noinline, gnu::cold]] LoraLoad lora_load(std::int64_t n_decode) const;

  // Member order is for the CPU caches (with many replicas each one's state is cold
  // when its next event comes): what every step reads first, copied out of ctx_
  // where ctx_ has it, then the batch state, then the rest.
  bool in_step_ = false;
  bool fuse_ = true;   // fast-forward runs of decode steps
  bool local_ = false;  // the model has local attention (LocalDecoders in use)
  bool spec_ = false;  // speculative decoding (below)
  bool lora_;          // ctx_.config.lora.enabled: LoRA slots in the batch state (lora_slots.h)
  bool async_;         // ctx_.config.async_scheduling
  bool virtual_;       // ctx_.virtual_engine
  bool chain_ = false;  // ctx_.chain_prefill (and nothing that rules it out: see head_chainable)
  int replica_;        // ctx_.replica
  RunObserver* observer_;  // ctx_.observer
  // The step in flight.
  std::int64_t step_decode_steps_ = 0;  // decode steps it covers (k when fast-forwarded)
  std::int64_t step_decoders_ = 0;
  std::int64_t step_paused_ = 0;        // decoders left out of it (a prefill-only step)
  Nanos step_start_ = 0;      // start of the last step (of a fused run: its last step's)
  Nanos step_end_ = -1;       // end of the last step (async scheduling)
  Nanos step_stage_nanos_ = 0;
  Nanos last_finish_ = -1;    // virtual engines: end of the previous step (inter-token gaps)
  // The fused run in flight (steps > 1), which an arrival may cut short (interrupt):
  // its start, first step's seconds, slope and steps.
  struct FusedRun {
    Nanos start = 0;
    double first_step_s = 0, slope = 0;
    std::int64_t steps = 0;
  };
  FusedRun run_;
  // A chained head step in flight (chain_after_head): its start and end; the step in
  // flight is then what follows it, from head_end_. -1: none.
  Nanos head_start_ = -1, head_end_ = -1;
  std::vector<Request> chain_done_;  // finish_step's list for the head (stays empty)
  // The step in flight's record, reported when it ends (virtual engines: at once).
  struct PendingRecord {
    StepRecord r;
    StepTotals totals;
    double seconds = 0, transfer_s = 0;
    std::int64_t emitted = 1, n_decode = 0;
    bool pending = false;
  };
  PendingRecord record_;
  std::unique_ptr<SchedulingPolicy> policy_;
  StepPricer pricer_;
  BatchState state_;
  EngineContext ctx_;
  // Speculative decoding (speculative.h): k, the tokens a sequence emits per step
  // in expectation, and the speculating steps run so far (step s emits
  // floor(s E) - floor((s-1) E) tokens per decoder).
  std::int64_t spec_k_ = 0;
  double spec_expected_ = 1.0;
  std::int64_t spec_steps_ = 0;

  // Decoders that sat out prefill-only steps (vllm_v0_prefill_first) since the
  // last decode step, in groups by the steps they sat out, oldest first: the next
  // token's inter-token gap of each adds the time it waited. Between decode steps
  // decoders only join (completed prompts, the youngest), and a decode step's
  // preemptions take the youngest first, so a few counts suffice.
  class PausedDecoders {
   public:
    bool empty() const { return groups_.empty(); }
    // A prefill-only step of `seconds` with `decoders` decoders waiting.
    void pause(std::int64_t decoders, double seconds);
    // A decode step's gaps: `samples` of `gap` (decoders x fused steps), of which
    // each waiting decoder still running (the oldest `decoders` of them) has
    // its first one longer by its wait; then forgets the waits.
    void emit(RunObserver& obs, double gap, std::int64_t samples, std::int64_t decoders);

   private:
    struct Group {
      std::int64_t count;
      double seconds;
    };
    std::vector<Group> groups_;
    std::int64_t total_ = 0;
  };
  PausedDecoders pauses_;
};

}  // namespace servesim
