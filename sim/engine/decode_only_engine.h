#pragma once
// A decode instance of prefill/decode disaggregation (run/disaggregated_simulation.h).
// Requests arrive with their prompt computed elsewhere and their first token
// sampled; this engine holds them through three stages:
//  1. waiting for KV blocks (FCFS): a request is granted its blocks when its peak
//     (prompt + output - 1 tokens, the last sampled token never written back)
//     fits beside the peaks of the requests already granted, and max_num_seqs
//     allows one more. Reserving the peak up front is what a decode instance
//     must do to never preempt: a preempted request would have to be prefilled
//     again, which this pool cannot do (TensorRT-LLM's GUARANTEED_NO_EVICT rule;
//     SGLang's decode server also allocates the prompt's KV before the transfer);
//  2. receiving its KV (the simulation times the transfer and calls kv_arrived);
//  3. decoding: it joins the batch at the next step that starts after its KV
//     arrived; each step feeds every running sequence its last token (one
//     decode-only step, priced as the vLLM engine prices one, step_pricing.h).
//     With speculative decoding (engine.speculative, e.g. DeepSeek's MTP) a step is
//     the drafter's k steps and one verification of k+1 tokens per sequence, and
//     step s emits floor(s E) - floor((s-1) E) tokens per sequence (speculative.h),
//     as the vLLM engine's decoders do.
// A request the P/D decider keeps off the prefill pool (disaggregation.decider_threshold)
// is accepted with `local_prefill`: granted like the others, it skips stage 2 and is
// prefilled here, its whole prompt (less the blocks it found cached, read as context)
// in the next step beside the decoders (priced as the vLLM engine prices a mixed
// step; not chunked), whose end is its first token.
// With engine.prefix_caching on, the instance keeps a prefix cache
// (engine/decode_prefix_cache.h): a request's blocks stay cached after it finishes
// (LRU, evicted when a grant needs their room). A request granted blocks finds the
// leading blocks of its prompt cached there pinned, not reserved: it reserves its
// peak less those, and only the rest of its prompt's KV is sent (cached_tokens()),
// or, kept here by the P/D decider, prefilled (its step computes the uncached
// tokens and reads the cached ones as context). Off, nothing of this runs.
// Request classes (ctx.classes, workload.classes) with engine.scheduling_policy:
// priority: stage 1's queue is in priority order, then arrival (a request joins it
// after the last one of its priority or higher), as vLLM's priority policy orders the
// waiting queue of its decode instance, where requests wait for their remote KV
// (vllm/v1/core/sched/request_queue.py: PriorityRequestQueue). The head that does not
// fit is not passed over, in either order. Without the policy: FCFS.
// Users who give up (ctx.patience, workload.patience) before their first token (the
// KV's arrival, or the end of the step that prefilled them here): one waiting for
// blocks leaves the queue; one granted but not prefilled yet returns its
// reservation; one whose KV is on the wire (or waits for the link) is reported
// abandoned at its deadline, and its blocks are freed when the transfer lands (the
// read into them is not cancelled) or is withdrawn from the link's queue; one whose
// prompt is in the step running here, at the step's end (as the vLLM engine treats
// a prompt computed after its user's deadline). Abandoned requests are reported
// failed (reason abandoned, finish = their deadline).
// Every step is simulated (no fast-forwarding): O(running) work per step.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/decode_prefix_cache.h"
#include "engine/engine.h"
#include "engine/kv_blocks.h"
#include "engine/step_pricing.h"

namespace servesim {

class DecodeOnlyEngine final : public Engine {
 public:
  explicit DecodeOnlyEngine(const EngineContext& ctx);

  // A request whose prompt was prefilled elsewhere; `rec` is its record so far
  // (arrival, prefill scheduling, prefix-cache hits). False (and the failure
  // reported) when its peak KV exceeds this instance's whole cache.
  // `local_prefill`: the P/D decider kept it off the prefill pool; it is prefilled here.
  bool accept(const Request& r, const RequestRecord& rec, Nanos now, bool local_prefill = false);
  // Grants KV blocks to waiting requests in queue order (FCFS, or by priority) while they fit; appends each
  // granted request to `granted` (its transfer may start now); one to prefill here
  // waits for the next step instead.
  void grant(std::vector<Request>& granted);
  // The KV of granted request `id` has arrived at `now`: its first token reaches
  // the user now, and it decodes from the next step on (a request whose user gave up
  // while it was on the wire, or whose transfer was withdrawn before it left: its
  // blocks are freed now).
  void kv_arrived(std::int64_t id, Nanos now);

  // Users who give up (workload.patience; the simulation calls abandon_due at
  // next_deadline() and before granting or starting a step).
  void abandon_due(Nanos now, std::vector<Request>& gone) override;
  Nanos next_deadline() override;

  // Prefix caching (null: off). Prompt tokens of r cached here now, of those a
  // grant could pin (DecodePrefixCache::hit_limit): what the P/D decider reads.
  const DecodePrefixCache* prefix_cache() const { return prefix_.get(); }
  std::int64_t cached_prompt_tokens(const Request& r) const;
  // Prompt tokens granted request `id` found cached here when it was granted (its
  // transfer sends the rest); 0 without prefix caching.
  std::int64_t cached_tokens(std::int64_t id) const;
  // Prompt tokens of the requests granted so far, and of those found cached.
  std::int64_t granted_prompt_tokens() const { return granted_prompt_tokens_; }
  std::int64_t hit_tokens() const { return hit_tokens_; }
  PrefixMatch prefix_match(const Request& r) const override;

  // Engine: requests come in through accept(), never enqueue().
  bool enqueue(Request r, Nanos now) override;
  bool has_work() const override { return !running_.empty() || !ready_.empty() || !to_prefill_.empty(); }
  bool can_start(Nanos /*now*/) const override { return !in_step_ && has_work(); }
  Nanos start_step(Nanos now, Nanos horizon) override;
  void finish_step(Nanos now, std::vector<Request>& done) override;
  std::int64_t outstanding() const override {
    return static_cast<std::int64_t>(waiting_.size() + granted_.size() + ready_.size() + running_.size() +
                                     to_prefill_.size() + prefilling_.size());
  }
  std::int64_t queued() const override { return static_cast<std::int64_t>(waiting_.size()); }
  std::int64_t queued_bytes() const override { return waiting_bytes_; }
  void abort_queued(Nanos now, FailureReason why, const std::function<void(const Request&)>& aborted) override;
  // Blocks granted (peak reservations, and cached blocks they share) over the cache.
  double kv_load() const override { return total_ > 0 ? static_cast<double>(reserved_ + pinned()) / total_ : 0.0; }
  std::int64_t kv_blocks_total() const override { return total_; }

  std::int64_t reserved_blocks() const { return reserved_; }
  std::int64_t used_blocks() const { return used_; }
  // Prefix caching: cached blocks requests hold now, cached blocks none holds.
  std::int64_t pinned() const { return prefix_ ? prefix_->cache().pinned() : 0; }
  std::int64_t evictable() const { return prefix_ ? prefix_->cache().evictable() : 0; }
  // The peak KV blocks of a request (prompt + output - 1 tokens).
  std::int64_t peak_blocks(const Request& r) const { return block_.blocks_for(r.input_tokens + r.output_tokens - 1); }

 private:
  struct Seq {
    Request req;
    RequestRecord rec;
    std::int64_t generated = 1;  // the first token came from the prefill instance
    std::int64_t peak = 0;       // blocks reserved
    bool joined_this_step = false;
    bool local = false;          // prefilled here (the P/D decider), not by the prefill pool
    // Prefix caching: its blocks' hashes, the cached blocks it holds (found at its
    // grant, then its own once registered), and how many of them it found cached.
    std::vector<std::uint64_t> hashes;
    std::vector<PrefixCache::Handle> nodes;
    std::int64_t shared = 0;   // blocks of its KV held through the cache (not in its reservation)
    std::int64_t hit = 0;      // of those, found cached at its grant
    bool gone = false;         // its user gave up while its KV was on the wire
  };
  struct Deadline {
    Nanos at;
    std::int64_t id;
    bool operator>(const Deadline& o) const { return at != o.at ? at > o.at : id > o.id; }
  };
  // Registers s's full blocks [s.shared, n) in the cache: they stop being its
  // private blocks (reserved_, used_ and s.peak shrink by as many).
  void register_blocks(Seq& s, std::int64_t n);
  // s is done: its blocks registered, its hold on cached ones dropped, its reservation returned.
  void release_seq(Seq& s, std::int64_t kv_tokens);
  // s is dropped before its first token (its user gave up): the cached blocks it held
  // released, its prompt's blocks and its reservation returned, nothing cached.
  void drop_seq(Seq& s);
  // Reports s abandoned at `at` (its deadline).
  void report_abandoned(const Seq& s, Nanos at);
  // Whether r's user's deadline has passed by `now` (false without patience).
  bool overdue(const Request& r, Nanos now) const { return patience_ && patience_->deadline(r) < now; }
  int priority_of(const Request& r) const { return classes_->priority(classes_->of(r.id, r.session)); }

  EngineContext ctx_;
  StepPricer pricer_;
  BlockSize block_;
  std::int64_t total_;
  std::int64_t reserved_ = 0;  // peak blocks of every granted request
  std::int64_t used_ = 0;      // blocks their KV fills now
  std::deque<Seq> waiting_;
  std::int64_t waiting_bytes_ = 0;
  std::unordered_map<std::int64_t, Seq> granted_;  // KV in flight
  std::vector<Seq> ready_;                         // KV arrived, joins at the next step
  std::vector<Seq> running_;
  std::vector<Seq> to_prefill_;   // granted, prefilled here at the next step
  std::vector<Seq> prefilling_;   // ... in the step running now
  bool in_step_ = false;
  StepRecord record_;
  std::unique_ptr<DecodePrefixCache> prefix_;  // engine.prefix_caching; null when off
  mutable std::vector<std::uint64_t> probe_hashes_;  // cached_prompt_tokens' scratch
  std::int64_t granted_prompt_tokens_ = 0, hit_tokens_ = 0;
  // Speculative decoding (engine.speculative): k draft tokens, E expected tokens a step.
  bool spec_ = false;
  std::int64_t spec_k_ = 0;
  double spec_expected_ = 1.0;
  std::int64_t spec_steps_ = 0;  // speculative steps run
  std::int64_t step_emitted_ = 1;  // tokens each sequence emits in the step in flight
  // engine.scheduling_policy: priority with ranked classes: waiting_ in priority order.
  const ClassAssignment* classes_ = nullptr;
  bool priority_queue_ = false;
  // workload.patience: each accepted request's deadline; the ids without a first token
  // yet; requests abandoned at a step's end, handed out by the next abandon_due.
  const Patience* patience_ = nullptr;
  std::priority_queue<Deadline, std::vector<Deadline>, std::greater<Deadline>> deadlines_;
  std::unordered_set<std::int64_t> unanswered_;
  std::vector<Request> late_;
};

}  // namespace servesim
