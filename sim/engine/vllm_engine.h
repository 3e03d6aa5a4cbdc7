#pragma once
// Continuous batching as vLLM v1 schedules it: every step, running requests first
// (one token per decoding sequence, then chunks of partially prefilled prompts),
// then waiting requests in FCFS order while the token budget, max_num_seqs and free
// KV blocks allow. When a running request needs a block and none is free, the most
// recently admitted running request is preempted: recompute (its KV is dropped and
// it re-enters the queue at the front), or, with a CPU offload tier that has room,
// swap (its KV moves to host memory and comes back when it is readmitted).
//
// Speed: decoding sequences are kept as an aggregate. Each one's KV length grows by
// one per decode step, so with a global decode-step counter G its length is
// len_join + (G - join_step): the step's total KV tokens is a running sum, the
// number needing a fresh block is a bucket count by (length - G) mod block_size,
// and completions come from a heap keyed by the step they finish on. A step costs
// O(1) plus O(events); runs of pure-decode steps between events are fast-forwarded
// (also while requests wait that cannot be admitted before the next event), and
// steps are priced from a memoised cost cache (step_cost_cache.h).
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
#include <deque>
#include <queue>
#include <vector>

#include "engine/cpu_tier.h"
#include "engine/step_cost_cache.h"
#include "engine/engine.h"
#include "engine/prefix_cache.h"

namespace servesim {

class VllmEngine : public Engine {
 public:
  explicit VllmEngine(const EngineContext& ctx);
  bool enqueue(Request r, Nanos now) override;
  bool has_work() const override { return !waiting_.empty() || !fresh_.empty() || running_count_ > 0; }
  bool can_start(Nanos /*now*/) const override { return !in_step_ && has_work(); }
  Nanos start_step(Nanos now, Nanos horizon) override;
  void finish_step(Nanos now, std::vector<Request>& done) override;
  std::int64_t outstanding() const override {
    return static_cast<std::int64_t>(waiting_.size() + fresh_.size()) + running_count_;
  }
  std::int64_t queued() const override { return static_cast<std::int64_t>(fresh_.size()); }
  std::int64_t queued_bytes() const override { return fresh_bytes_; }
  void abort_queued(Nanos now, FailureReason why, const std::function<void(const Request&)>& aborted) override;
  double kv_load() const override {
    return total_blocks_ > 0 ? static_cast<double>(used_blocks_) / total_blocks_ : 0.0;
  }
  std::int64_t kv_blocks_total() const override { return total_blocks_; }

  // For the pipeline (pipeline_engine.cpp).
  bool in_step() const { return in_step_; }
  std::int64_t used_blocks() const { return used_blocks_; }
  // First-stage occupancy of the step in flight: its wall time with the busiest
  // stage's time in place of the full pipeline latency.
  Nanos step_stage_nanos() const { return step_stage_nanos_; }
  // The pipeline holds the step's end back (it cannot overtake the one ahead).
  void set_step_end(Nanos end) { step_end_ = end; }
  const CpuKvTier& cpu_tier() const { return cpu_; }

 private:
  enum class Phase { free, waiting, prefill, decode };
  struct Seq {
    Request req;
    RequestRecord rec;
    Phase phase = Phase::free;
    std::int64_t target = 0;     // tokens in KV before the next sample (prompt + generated)
    std::int64_t computed = 0;   // tokens in KV (prefill phase)
    std::int64_t generated = 0;  // output tokens sampled so far
    std::int64_t chunk = 0;      // prefill tokens scheduled in the current step
    std::int64_t blocks = 0;     // private KV blocks held in prefill phase
    std::int64_t cached_blocks = 0;  // leading blocks held through the prefix cache (shared)
    std::vector<std::uint64_t> hashes;  // full prompt blocks' hashes (prefix caching)
    std::int64_t join_step = 0;  // decode phase: G when it joined
    std::int64_t len_join = 0;   // decode phase: KV tokens when it joined
    std::int64_t gen_join = 0;
    int key = 0;                 // (len_join - join_step) mod block_size
    std::uint32_t version = 0;   // invalidates stale completion-heap entries
    std::int64_t swapped_blocks = 0;  // KV held in the CPU tier's swap space (preempted by swap)
    Nanos last_token = 0;
    int prev = -1, next = -1;    // neighbours in the running list (admission order)
  };
  struct Finish {
    std::int64_t step;
    std::int64_t id;
    int slot;
    std::uint32_t version;
    bool operator>(const Finish& o) const { return step != o.step ? step > o.step : id > o.id; }
  };

  int new_slot();
  std::int64_t blocks_for(std::int64_t tokens) const {  // tokens >= 0
    return block_mask_ >= 0 ? (tokens + block_mask_) >> block_shift_ : (tokens + block_size_ - 1) / block_size_;
  }
  std::int64_t decode_len(const Seq& s, std::int64_t g) const { return s.len_join + (g - s.join_step); }
  int key_for_step(std::int64_t g) const;  // bucket whose sequences need a block at decode step g
  int mod_block(std::int64_t x) const;     // x mod block_size, in [0, block_size)
  std::int64_t decode_blocks_needed(std::int64_t from_step, std::int64_t steps) const;
  // The most decode steps from from_step (at least 1, at most limit) whose new blocks fit in free_blocks.
  std::int64_t max_decode_steps(std::int64_t from_step, std::int64_t limit, std::int64_t free_blocks) const;
  static constexpr std::int64_t kMaxTabulatedBlockSize = 256;
  void join_decode(int slot, Nanos now);
  void leave_decode(int slot);
  void preempt(int slot, Nanos now);
  bool preempt_tail(Nanos now, int protect_slot);
  void finish_request(int slot, Nanos now, std::vector<Request>& done, bool failed);
  FailureReason admissible(const Request& r) const;  // none when it can ever be served
  // Moves the oldest never-scheduled request (fresh_.front()) into a slot at the back of waiting_.
  void materialize_front();
  std::int64_t fast_forward_steps(Nanos now, Nanos horizon, double first_step_time, double* total_time,
                                  double* last_start);
  double decode_only_step_time(std::int64_t g);
  double step_seconds(const BatchSummary& b, StepTotals* totals);
  void release_cached(Seq& s);
  void evict_to_fit() { cache_.shrink_to(total_blocks_ - used_blocks_); }
  double host_seconds(std::int64_t tokens) const;  // KV transfer over the host link
  StepTotals decode_totals(std::int64_t n, std::int64_t kv);
  void running_push_back(int slot);
  void running_erase(int slot);

  EngineContext ctx_;
  CpuOverheads cpu_overheads_;  // charged on every step with the cost model's GPU time (cost/step_wall_time.h)
  const CostModel& cost_;
  int block_size_;
  std::int64_t block_mask_ = -1;  // block_size - 1 when it is a power of two
  int block_shift_ = 0;           // log2(block_size) then
  std::int64_t total_blocks_;
  std::int64_t used_blocks_ = 0;  // private blocks of running requests + pinned cached blocks
  PrefixCache cache_;
  CpuKvTier cpu_;
  double kv_bytes_per_token_ = 0;  // per GPU
  StepCostCache cost_cache_;
  Nanos frontend_ns_;              // config.frontend_latency
  bool fuse_ = true;               // fast-forward runs of decode steps
  bool memo_ = true;               // price steps from cost_cache_ (step_cost_cache.h)

  std::vector<Seq> slots_;
  std::vector<int> free_slots_;
  // The waiting queue in two parts, in FCFS order: waiting_ (slots: preempted
  // requests, pushed to its front, and at most the one fresh request admission is
  // trying) ahead of fresh_ (never-scheduled requests as they arrived). A fresh
  // request takes a Seq slot (~300 bytes) only when admission reaches it, so an
  // overloaded queue costs queued_request_bytes (64 bytes without prefix hashes)
  // per waiting request.
  std::deque<int> waiting_;
  std::deque<Request> fresh_;
  std::int64_t fresh_bytes_ = 0;  // queued_request_bytes over fresh_
  // Running requests in admission order (an intrusive list through Seq::prev/next);
  // preemption takes the back.
  int run_head_ = -1, run_tail_ = -1;
  std::int64_t running_count_ = 0;
  std::vector<int> prefilling_;   // running requests still in prefill, admission order
  std::vector<int> scratch_;      // finish_step's copy of prefilling_

  // Decode aggregate.
  std::int64_t G_ = 0;
  std::int64_t n_decode_ = 0;
  std::int64_t sum_len_minus_join_ = 0;  // sum over decoders of len_join - join_step
  std::vector<std::int64_t> bucket_;
  std::priority_queue<Finish, std::vector<Finish>, std::greater<Finish>> finishes_;

  // The step in flight.
  std::int64_t step_decode_steps_ = 0;   // decode steps it covers (k when fast-forwarded)
  std::int64_t step_decode_blocks_ = 0;  // blocks the decoders allocate over those steps
  std::int64_t step_decoders_ = 0;
  double step_transfer_s_ = 0;  // host-link transfers (reload, swap) charged to the step being planned
  Nanos step_start_ = 0;      // start of the last step (of a fused run: its last step's)
  Nanos step_end_ = -1;      // end of the last step (async scheduling)
  Nanos step_stage_nanos_ = 0;
  Nanos last_finish_ = -1;   // virtual engines: end of the previous step (inter-token gaps)
  bool in_step_ = false;
  StepRecord step_record_;   // start_step's report to the observer
};

}  // namespace servesim
