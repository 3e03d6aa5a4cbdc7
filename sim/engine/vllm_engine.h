#pragma once
// Continuous batching as vLLM v1 schedules it: every step, running requests first
// (one token per decoding sequence, then chunks of partially prefilled prompts),
// then waiting requests in FCFS order while the token budget, max_num_seqs and free
// KV blocks allow. When a running request needs a block and none is free, the most
// recently admitted running request is preempted (recompute: its KV is dropped and
// it re-enters the queue at the front).
//
// Speed: decoding sequences are kept as an aggregate. Each one's KV length grows by
// one per decode step, so with a global decode-step counter G its length is
// len_join + (G - join_step): the step's total KV tokens is a running sum, the
// number needing a fresh block is a bucket count by (length - G) mod block_size,
// and completions come from a heap keyed by the step they finish on. A step costs
// O(1) plus O(events); runs of pure-decode steps between events are fast-forwarded.
#include <deque>
#include <list>
#include <queue>
#include <vector>

#include "engine/engine.h"
#include "engine/prefix_cache.h"

namespace servesim {

class VllmEngine : public Engine {
 public:
  explicit VllmEngine(const EngineContext& ctx);
  bool enqueue(Request r, Nanos now) override;
  bool has_work() const override { return !waiting_.empty() || !running_.empty(); }
  Nanos start_step(Nanos now, Nanos horizon) override;
  void finish_step(Nanos now, std::vector<Request>& done) override;
  std::int64_t outstanding() const override {
    return static_cast<std::int64_t>(waiting_.size() + running_.size());
  }
  double kv_load() const override {
    return total_blocks_ > 0 ? static_cast<double>(used_blocks_) / total_blocks_ : 0.0;
  }
  std::int64_t kv_blocks_total() const override { return total_blocks_; }

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
    Nanos last_token = 0;
    std::list<int>::iterator pos;  // place in running_ (admission order)
  };
  struct Finish {
    std::int64_t step;
    std::int64_t id;
    int slot;
    std::uint32_t version;
    bool operator>(const Finish& o) const { return step != o.step ? step > o.step : id > o.id; }
  };

  int new_slot();
  std::int64_t blocks_for(std::int64_t tokens) const { return (tokens + block_size_ - 1) / block_size_; }
  std::int64_t decode_len(const Seq& s, std::int64_t g) const { return s.len_join + (g - s.join_step); }
  int key_for_step(std::int64_t g) const;  // bucket whose sequences need a block at decode step g
  std::int64_t decode_blocks_needed(std::int64_t from_step, std::int64_t steps) const;
  void join_decode(int slot, Nanos now);
  void leave_decode(int slot);
  void preempt(int slot, Nanos now);
  bool preempt_tail(Nanos now, int protect_slot);
  void finish_request(int slot, Nanos now, std::vector<Request>& done, bool failed);
  bool admissible(const Seq& s) const;
  std::int64_t fast_forward_steps(Nanos now, Nanos horizon, double first_step_time, double* total_time);
  double decode_only_step_time(std::int64_t g) const;
  double step_seconds(const BatchSummary& b, StepCost* totals) const;
  void release_cached(Seq& s);
  void evict_to_fit() { cache_.shrink_to(total_blocks_ - used_blocks_); }

  EngineContext ctx_;
  const CostModel& cost_;
  int block_size_;
  std::int64_t total_blocks_;
  std::int64_t used_blocks_ = 0;  // private blocks of running requests + pinned cached blocks
  PrefixCache cache_;

  std::vector<Seq> slots_;
  std::vector<int> free_slots_;
  std::deque<int> waiting_;
  std::list<int> running_;        // admission order; preemption takes the back
  std::vector<int> prefilling_;   // running requests still in prefill, admission order

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
  Nanos step_start_ = 0;
  Nanos step_end_ = -1;      // end of the last step (async scheduling)
  bool in_step_ = false;
};

}  // namespace servesim
