#pragma once
// The vLLM-style engine's requests and where each one is: waiting (never
// scheduled, or preempted), prefilling (running, prompt not yet computed) or
// decoding (running, one token per step), and the moves between those states
// with what each does to the KV blocks (kv_blocks.h) and to the decode aggregate
// (decode_aggregate.h).
//
// This is mechanism, not policy: which requests run in a step, in what order, how
// many tokens each, and whom to preempt, the scheduling policy decides
// (scheduling_policy.h) by calling these moves; what the step costs, the pricer
// says (step_pricing.h). A policy reads a Seq's fields and changes them only
// through the moves here, so the block accounting stays in one place.
//
// Memory: an overloaded queue may hold millions of requests, so the waiting queue
// is in two parts, in FCFS order: waiting_ (slots: preempted requests, pushed to
// its front, and at most the one fresh request admission is trying) ahead of
// fresh_ (never-scheduled requests as they arrived). A fresh request takes a Seq
// slot (~300 bytes) only when admission reaches it, and waits in fresh_ in its
// compact form (queued_request.h: 48 bytes without prefix hashes).
//
// Users who give up (workload.patience, ctx.patience): each enqueued request's
// deadline (arrival + patience) goes into a min-heap (16 bytes while it is
// pending); abandon_due() pops the due ones. One still never scheduled is marked
// gone (its id in gone_, 8 bytes) and skipped when it reaches the front of
// fresh_, so nothing in the queue is scanned or moved; one in a slot (waiting
// after a preemption, or prefilling) is found in those short lists and its KV and
// swap space freed. A request counts as having given up only while it has had no
// first token. With patience unset none of this runs.
//
// Speed: every move is O(1) (or O(prefilling) for a preempted prefill) and none
// allocates once the slot table and queues have grown to the run's peak.
//
// Multi-LoRA (workload.lora with engine.lora; lora_slots.h): a request joining the
// running set takes its adapter (loading it into a GPU slot charges the step the
// load, as a KV reload is charged), one leaving gives it back; the decoders that
// carry an adapter are counted (lora_decode_seqs). A policy asks lora_eligible()
// instead of eligible_head(): the waiting requests whose adapter cannot get a slot
// are passed over (vLLM v1 skips them and goes on), the never-scheduled ones by
// their id alone (the adapter is a function of it), so none is materialized only
// to be passed over; lora_restore() puts the passed-over ones back in order.
//
// Parallel sampling and beam search (workload.sampling, sequence_group.h): a
// request is then a group of m sequences. It prefills once as one sequence and
// decodes as m in the decode aggregate; its blocks are the group's
// (SequenceGroupBlocks), and it is admitted, counted against max_num_seqs (m
// each), preempted and finished as a unit.
#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <unordered_set>
#include <vector>

#include "engine/decode_aggregate.h"
#include "engine/engine.h"
#include "engine/finish_calendar.h"
#include "engine/kv_blocks.h"
#include "engine/local_decoders.h"
#include "engine/lora_slots.h"
#include "engine/queued_request.h"
#include "engine/sequence_group.h"
#include "engine/step_pricing.h"

namespace servesim {

class BatchState {
 public:
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
    // Full prompt blocks' hashes (prefix caching): hash_blocks of them, of which
    // only the first ones up to the first unique block (unique_blocks_from) are
    // computed until the request has registered its blocks (see complete_hashes).
    // Once registered it hands them on (spare_hashes_) and computes them again if
    // it needs them (after a preemption).
    std::vector<std::uint64_t> hashes;
    std::int64_t hash_blocks = 0;
    bool registered = false;  // its prompt's blocks went into the prefix cache
    std::vector<PrefixCache::Handle> cached_nodes;  // the prefix cache's handles of the cached_blocks
    std::int64_t join_step = 0;  // decode phase: G when it joined
    std::int64_t len_join = 0;   // decode phase: KV tokens when it joined
    std::int64_t gen_join = 0;
    int key = 0;                 // (len_join - join_step) mod block_size
    std::int64_t swapped_blocks = 0;  // KV held in the CPU tier's swap space (preempted by swap)
    std::int64_t reserved = 0;   // peak KV blocks reserved at admission (no-evict policy; else 0)
    // Sequence groups (sequence_group.h): a recompute prefills the group's distinct
    // tokens, `extra` more than one sequence's; the blocks the group still owed at
    // its last join (taken by its first decode step after it).
    std::int64_t extra = 0;
    std::int64_t owed = 0;
    Nanos last_token = 0;
    int prev = -1, next = -1;    // neighbours in the running list (admission order)
  };

  // `pricer` prices the host-link transfers that preemption and admission cause.
  BatchState(const EngineContext& ctx, const StepPricer& pricer);

  KvBlocks& kv() { return kv_; }
  const KvBlocks& kv() const { return kv_; }
  DecodeAggregate& decoders() { return dec_; }
  const DecodeAggregate& decoders() const { return dec_; }
  // Local attention's decoder sums (enabled() only for a local-attention model).
  const LocalDecoders& local_decoders() const { return local_; }
  // Runs `steps` decode steps (the aggregate, and the local sums with it).
  void advance_decoders(std::int64_t steps) {
    dec_.advance(steps);
    if (local_on_) local_.advance(dec_);
  }
  Seq& seq(int slot) { return slots_[static_cast<std::size_t>(slot)]; }
  const Seq& seq(int slot) const { return slots_[static_cast<std::size_t>(slot)]; }

  // fresh_ never starts with a request that gave up (drop_gone_front), so it is
  // empty exactly when no never-scheduled request waits.
  bool has_work() const { return !waiting_.empty() || !fresh_.empty() || running_count_ > 0; }
  std::int64_t running() const { return running_count_; }
  // Sequences per request (workload.sampling: n or beam_width; 1 without), and the
  // sequences of the running requests: what max_num_seqs counts (vLLM V0 counts a
  // group's sequences against it).
  std::int64_t request_seqs() const { return group_.sequences(); }
  std::int64_t running_seqs() const { return running_count_ * group_.sequences(); }
  // Whether one more request's sequences fit beside the running ones in max_num_seqs.
  bool seqs_fit(std::int64_t max_num_seqs) const { return running_seqs() + request_seqs() <= max_num_seqs; }
  std::int64_t queue_length() const { return static_cast<std::int64_t>(waiting_.size()) + queued(); }
  bool queue_empty() const { return waiting_.empty() && fresh_.empty(); }
  // Engine::prefix_match: r's full prompt blocks and how many of the first ones the GPU
  // prefix cache holds now (read only: no pin, no LRU touch). Cold: the router asks.
  Engine::PrefixMatch prefix_match(const Request& r) const;
  std::int64_t outstanding() const { return queue_length() + running_count_; }
  std::int64_t queued() const { return fresh_count_ - static_cast<std::int64_t>(gone_.size()); }
  // The requests' bytes, and with patience their deadline entries and gone marks.
  std::int64_t queued_bytes() const {
    return fresh_bytes_ + static_cast<std::int64_t>(deadlines_.size() * sizeof(Deadline) +
                                                    gone_.size() * sizeof(std::int64_t));
  }
  // Running requests still in prefill, in admission order.
  const std::vector<int>& prefilling() const { return prefilling_; }
  // The running request to preempt: the most recently admitted, or with ranked request
  // classes (EngineContext::classes) the most recently admitted of the lowest priority
  // (vLLM's priority policy preempts the least important, latest first); -1 when none runs.
  int newest_running() const { return ranks_ ? lowest_priority_running() : run_tail_; }

  // Arrivals. False (and the failure reported) when the request can never be served.
  bool enqueue(Request&& r, Nanos now);
  void abort_queued(Nanos now, FailureReason why, const std::function<void(const Request&)>& aborted);

  // Users who give up (workload.patience). Every request whose deadline is at or
  // before `now` and that has had no first token is abandoned: reported failed
  // (reason abandoned, finish = its deadline: the user waited its patience) and
  // appended to `gone`. A waiting one leaves the queue; a running prefill is
  // aborted and its KV blocks freed, but only when `running_too` (no step in
  // flight: its chunk may be in that step); otherwise it is kept for the next
  // call with running_too, which the engine makes before planning a step.
  void abandon_due(Nanos now, bool running_too, std::vector<Request>& gone);
  // The earliest deadline of a request that has had no first token; kNever when
  // none (or without patience). Drops the deadlines of requests answered in time
  // on the way, so a served request never wakes the engine.
  Nanos next_deadline() {
    while (!deadlines_.empty() && answered_.erase(deadlines_.top().id) > 0) deadlines_.pop();
    return deadlines_.empty() ? kNever : deadlines_.top().at;
  }

  // Host-link seconds the moves since begin_step() charged to the step being planned.
  void begin_step() {
    transfer_s_ = 0;
    decoders_paused_ = false;
  }
  double transfer_seconds() const { return transfer_s_; }

  // Peak reservations (TensorRT-LLM's guaranteed-no-evict admission): the KV blocks
  // a request holds at its longest, prompt + output - 1 tokens (the last sampled
  // token is never written back), and their running total over the running
  // requests that reserved them (O(1): added by reserve, removed when the request
  // finishes or is preempted).
  std::int64_t peak_blocks(int slot) const {
    const Seq& s = seq(slot);
    return group_.peak(s.req.input_tokens, s.req.output_tokens);
  }
  std::int64_t reserved_blocks() const { return reserved_blocks_; }
  void reserve(int slot, std::int64_t blocks) {
    seq(slot).reserved += blocks;
    reserved_blocks_ += blocks;
  }
  // A prefill-only step (vLLM V0's prefill-first order): the running decoders
  // sample no token this step (the engine runs and prices it without them, and
  // the decode step counter does not move). Reset by begin_step().
  void pause_decoders() { decoders_paused_ = true; }
  bool decoders_paused() const { return decoders_paused_; }

  // Moves a policy makes while planning a step.
  // The head of the waiting queue (which must not be empty) if it may be scheduled
  // at a step planned at `cutoff` (a request is seen frontend_latency after it
  // arrives), else -1.
  int eligible_head(Nanos cutoff);

  // Multi-LoRA (null without it).
  LoraSlots* lora() { return lora_.get(); }
  const LoraSlots* lora() const { return lora_.get(); }
  // Decoding sequences whose request carries an adapter (the step's decode tokens with LoRA).
  std::int64_t lora_decode_seqs() const { return lora_decode_seqs_; }
  // eligible_head with LoRA (lora() set; the queue must not be empty): the first
  // waiting request, in FCFS order, whose adapter fits (LoraSlots::fits), made the head
  // of the waiting queue; those before it are passed over until lora_restore(). -1:
  // the next one to look at has not been seen yet at `cutoff` (as eligible_head);
  // kLoraNoneFits: no waiting request's adapter fits. `now`: the step's time (a
  // never-scheduled request whose user gave up by then is not taken).
  static constexpr int kLoraNoneFits = -2;
  int lora_eligible(Nanos cutoff, Nanos now);
  // After planning: the passed-over requests go back to the front of the waiting
  // queue in their order, and a never-scheduled one taken from behind them but not
  // admitted goes back to its place.
  void lora_restore();
  // A running prefill takes `chunk` more tokens this step and `extra` more blocks.
  void schedule_chunk(int slot, std::int64_t chunk, std::int64_t extra) {
    Seq& s = seq(slot);
    s.chunk = chunk;
    s.blocks += extra;
    kv_.allocate(extra);
  }
  // The head of the waiting queue shares its prompt's cached leading blocks (and
  // counts the CPU tier's run after them as computed); none for a request whose
  // KV is swapped out, which resumes from that instead. At least one prompt token
  // is always left to compute (it produces the first output's logits).
  KvBlocks::PrefixHit reuse_prefix(int slot);
  // Undoes reuse_prefix when the request is not admitted after all (it is looked up again next time).
  void undo_prefix(int slot);
  // Admits the head of the waiting queue as a running prefill of `chunk` tokens
  // holding `blocks` private blocks; `hit` is what reuse_prefix returned.
  void admit_head(int slot, const KvBlocks::PrefixHit& hit, std::int64_t chunk, std::int64_t blocks, Nanos now);
  // Stops a running request and puts it at the front of the waiting queue: its KV
  // is swapped to the CPU tier when that has room, else dropped (recomputed later).
  void preempt(int slot, Nanos now);

  // Moves at the end of a step (after the decode aggregate advanced past it).
  // Decoders whose last token came at this step finish.
  void finish_decoders(Nanos now, std::vector<Request>& done);
  // Prefill chunks are computed: a completed prompt samples a token, shares its
  // full blocks through the prefix cache and joins the decoders (or finishes).
  void complete_chunks(Nanos now, std::vector<Request>& done);
  // The decode step at which the next decoder finishes; -1 when none decodes.
  std::int64_t next_finish_step();

 private:
  struct Deadline {
    Nanos at;
    std::int64_t id;
    bool operator>(const Deadline& o) const { return at != o.at ? at > o.at : id > o.id; }
  };

  // newest_running with ranked classes: a walk from the newest (cold: only then).
  [[gnu::noinline, gnu::cold]] int lowest_priority_running() const;
  // Local attention with what servesim does not model beside it yet: refused.
  static void check_local_supported(const EngineContext& ctx);
  int new_slot();
  // Abandons request d.id if it is still waiting or prefilling without a first
  // token (see abandon_due); a prefill is kept in overdue_ unless running_too.
  void abandon(const Deadline& d, bool running_too, std::vector<Request>& gone);
  void abandon_slot(int slot, Nanos at, std::vector<Request>& gone);
  // complete_chunks: a prompt computed after its user's deadline (no longer in
  // prefilling_); reported by the next abandon_due.
  void abandon_completed_prompt(int slot);
  // Pops the requests at the front of fresh_ that gave up.
  void drop_gone_front();
  // Moves the oldest never-scheduled request (fresh_.front()) into a slot at the back of waiting_.
  void materialize_front();
  // The same for fresh_[i], i > 0 (LoRA: a request taken from behind passed-over ones).
  void materialize_at(std::size_t i);
  // Multi-LoRA's hooks (lora_ set), out of line and cold: the plain path pays one test.
  // A request joined the running set (its adapter into a GPU slot; the step waits for
  // the load), left it, or joined (sign +1) or left (-1) the decoders.
  [[gnu::noinline, gnu::cold]] void lora_admitted(int slot);
  [[gnu::noinline, gnu::cold]] void lora_left(const Seq& s);
  [[gnu::noinline, gnu::cold]] void lora_decoders(const Seq& s, std::int64_t sign);
  // A reused slot's fields (all but req and rec) as a new Seq has them.
  static void reset_fields(Seq& s);
  void join_decode(int slot, Nanos now);
  void leave_decode(int slot);
  void release_cached(Seq& s);
  // A request's engine block hashes (Seq::hashes). Until it registers its blocks,
  // none past its first unique one can be cached (no other request has them), so
  // matching never reaches them and registering makes them one run keyed by the
  // first one's hash: only hashes [0, first unique] are computed. With a CPU tier
  // (which takes evicted blocks by hash) all are.
  void prompt_hashes(Seq& s);
  // All of them, before a request that registered its blocks matches them again
  // (after a preemption: its own run may be cached, and cut anywhere).
  void complete_hashes(Seq& s);
  // Request::extended_later (without a CPU tier; false, nothing done, otherwise):
  // every block's hash and, when its conversation's ids go on past this prompt
  // (they do from its first own block), the next block's: s.hashes holds
  // hash_blocks + 1 then (see Request::extended_later).
  bool extended_hashes(Seq& s);
  // The first of a request's engine blocks that no other request can hit: block b's
  // hash chains the ids its tokens and those before them fall in, ids [0, ceil((b+1)
  // bs / idb)), so it contains the first unique id u exactly when (b+1) bs > u idb.
  std::int64_t unique_blocks_from(const Request& r) const {
    if (r.unique_hashes_from == Request::kNotUnique) return PrefixCache::kNoUnique;
    return static_cast<std::int64_t>(r.unique_hashes_from) * r.hash_block_tokens / kv_.block_size();
  }
  // The ids a prompt's first id names (BlockHashChains::hashes): those before its
  // unique ones, when it has any (Request::unique_hashes_from).
  static std::int64_t named_ids(const Request& r) {
    return r.unique_hashes_from == Request::kNotUnique ? 0 : r.unique_hashes_from;
  }
  void finish_request(int slot, Nanos now, std::vector<Request>& done, bool failed);
  FailureReason admissible(const Request& r) const;  // none when it can ever be served
  void running_push_back(int slot);
  void running_erase(int slot);

  // Member order is for the CPU caches: with many replicas each one's state is
  // cold when its next event comes (the other replicas' events came between), so
  // what every step and arrival reads is kept in the first lines, and what only
  // admission, patience or a trace reads after it.

  // Read at every step or arrival.
  std::int64_t running_count_ = 0;
  // fresh_.size(), kept beside fresh_bytes_ (a deque's size is recomputed from its
  // iterators; the guard reads it per arrival and the step record per step).
  std::int64_t fresh_count_ = 0;
  std::int64_t fresh_bytes_ = 0;  // QueuedRequest::bytes over fresh_
  // Running requests in admission order (an intrusive list through Seq::prev/next).
  int run_head_ = -1, run_tail_ = -1;
  double transfer_s_ = 0;
  Nanos frontend_ns_;  // config.frontend_latency
  std::int64_t reserved_blocks_ = 0;  // sum of running requests' Seq::reserved
  bool decoders_paused_ = false;
  bool prefix_caching_;
  bool local_on_;  // local_.enabled(), read where the decoders move
  bool lora_on_ = false;  // lora_ is set (read where requests join and leave: lora_ itself is cold)
  const ClassAssignment* ranks_ = nullptr;  // EngineContext::classes: preempt by priority
  // engine.scheduling_policy: priority (with ranks_): fresh_ is kept in priority order
  // (higher first, then arrival), and a fresh request of a higher priority than the
  // waiting slots' front goes ahead of them.
  bool priority_queue_ = false;
  int priority_of(std::int64_t id, std::int32_t session) const { return ranks_->priority(ranks_->of(id, session)); }
  [[gnu::noinline, gnu::cold]] int eligible_head_by_priority(Nanos cutoff);
  [[gnu::noinline, gnu::cold]] void enqueue_by_priority(Request&& r);
  [[gnu::noinline, gnu::cold]] void promote_fresh_by_priority(Nanos cutoff);
  [[gnu::noinline]] void note_deadline(const Request& r);  // workload.patience: the user's deadline
  int replica_;
  RunObserver* observer_;
  std::int64_t max_model_len_;
  std::int64_t max_request_blocks_;  // EngineContext::max_request_blocks (0: the KV cache's total)
  std::deque<int> waiting_;
  std::deque<QueuedRequest> fresh_;  // the compact form (queued_request.h)
  std::vector<int> prefilling_;  // running requests still in prefill, admission order
  std::vector<int> scratch_;     // complete_chunks' copy of prefilling_
  std::vector<Seq> slots_;
  std::vector<int> free_slots_;
  KvBlocks kv_;
  DecodeAggregate dec_;
  SequenceGroupBlocks group_;  // the blocks of a request's sequences (workload.sampling)
  // Decoders by the decode step they finish on (its bucket heads, 4 KB, last).
  FinishCalendar finishes_;

  // Read at admission and less often.
  const StepPricer& pricer_;
  LocalDecoders local_;
  // Prompt block hashes, shared prefixes hashed once: the run's memo
  // (EngineContext::hash_chains), else own_chains_.
  std::unique_ptr<BlockHashChains> own_chains_;
  BlockHashChains* chains_;
  // Hash buffers of requests that registered their blocks, the latest last: the
  // next request writes its hashes into one of them. A request's hashes are read
  // only until it registers (and again after a preemption, recomputed), so this
  // way the few buffers in use stay in the CPU caches; a buffer per slot, with
  // thousands of requests decoding over many replicas, was written cold each time.
  std::vector<std::vector<std::uint64_t>> spare_hashes_;
  mutable std::vector<std::uint64_t> match_hashes_;  // prefix_match's scratch
  // After registering: s.hashes go to spare_hashes_.
  void hand_on_hashes(Seq& s) {
    spare_hashes_.push_back(std::move(s.hashes));
    s.hashes = std::vector<std::uint64_t>();
  }
  // Patience (null: nobody gives up). Deadlines of requests not yet past them;
  // ids of never-scheduled requests that gave up but are still in fresh_ (ids
  // increase along fresh_, so the smallest is the first to reach its front);
  // prefills that were due while their step was in flight.
  const Patience* patience_ = nullptr;
  std::priority_queue<Deadline, std::vector<Deadline>, std::greater<Deadline>> deadlines_;
  std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<std::int64_t>> gone_;
  std::vector<Deadline> overdue_;
  std::vector<Request> late_;  // abandoned by complete_chunks, handed out by the next abandon_due
  std::unordered_set<std::int64_t> answered_;  // first token in time, deadline still in deadlines_
  bool fresh_by_id_ = true;  // ids increase along fresh_ (arrival order); else gone ones are erased at once

  // Multi-LoRA (lora_eligible): the adapters' slots (null: no LoRA), the decoders with
  // an adapter, the slots passed over while planning, a never-scheduled request taken
  // from fresh_[lora_taken_at_] (-1: none), and the largest id of a never-scheduled
  // request passed over so far (fresh_ is in id order: every one still waiting at or
  // below it was passed over, so each is counted as delayed once).
  std::unique_ptr<LoraSlots> lora_;
  std::int64_t lora_decode_seqs_ = 0;
  std::vector<int> lora_skipped_;
  // What the last lora_eligible learnt of fresh_: its first `upto` requests were passed
  // over, with the running adapters at `version` and `front` first. While neither
  // changes (nor `epoch`: a request erased from inside fresh_), the next step's scan
  // starts after them: the same requests would be passed over again (an overloaded
  // queue was rescanned from its head every step).
  struct LoraScan {
    std::uint64_t version = ~0ULL;
    std::int64_t front = -1;
    std::uint64_t epoch = 0;
    std::size_t upto = 0;
    std::int64_t skips = 0;  // of them, counted as skips (LoraCounts::skips; not those whose users had left)
  };
  LoraScan lora_scan_;
  std::uint64_t fresh_epoch_ = 0;  // erasures from inside fresh_ (abandon without fresh_by_id_)
  int lora_taken_ = -1;
  std::size_t lora_taken_at_ = 0;
  std::int64_t lora_frontier_ = -1;
  // With scheduling_policy priority: the never-scheduled requests passed over for want of
  // a slot, until admitted or gone (lora_frontier_ cannot say: ids are out of order).
  std::unordered_set<std::int64_t> lora_delayed_ids_;
};

// The moves a policy or the engine makes every step or every admission, inline:
// they were one translation unit with the engine before the split, and the event
// loop runs them millions of times (the rarer ones are in batch_state.cpp).

inline int BatchState::eligible_head(Nanos cutoff) {
  if (waiting_.empty()) {
    // The next fresh request takes a slot only once it is eligible (in priority order
    // too: fresh_'s front is its highest priority).
    if (fresh_.front().arrival() + frontend_ns_ > cutoff) return -1;
    materialize_front();
  } else if (priority_queue_) [[unlikely]] {
    return eligible_head_by_priority(cutoff);  // a fresh request may go ahead of the slots
  }
  const int slot = waiting_.front();
  const Seq& s = seq(slot);
  if (s.rec.first_scheduled < 0 && s.req.arrival + frontend_ns_ > cutoff) return -1;
  return slot;
}

inline KvBlocks::PrefixHit BatchState::reuse_prefix(int slot) {
  Seq& s = seq(slot);
  KvBlocks::PrefixHit hit;
  if (s.swapped_blocks == 0 && s.hash_blocks > 0) {
    if (s.registered && static_cast<std::int64_t>(s.hashes.size()) < s.hash_blocks) complete_hashes(s);
    // (At most its prompt's blocks: s.hashes may hold one past them, extended_hashes.)
    const std::int64_t limit = std::min((s.target - 1) / kv_.block_size(), s.hash_blocks);
    hit = kv_.acquire_prefix(s.hashes, limit, s.cached_nodes);
    s.cached_blocks = hit.gpu;
    s.computed = (hit.gpu + hit.cpu) * kv_.block_size();
  }
  return hit;
}

inline void BatchState::release_cached(Seq& s) {
  kv_.release_prefix(s.cached_nodes);
  s.cached_nodes.clear();
  s.cached_blocks = 0;
}

inline void BatchState::undo_prefix(int slot) {
  Seq& s = seq(slot);
  if (s.swapped_blocks == 0) {
    release_cached(s);
    s.computed = 0;
  }
}

inline void BatchState::finish_decoders(Nanos now, std::vector<Request>& done) {
  // (finish_request leaves decode, which takes the slot out of the calendar: drain did already.)
  finishes_.drain(dec_.step(), [&](int slot) { finish_request(slot, now, done, false); });
}

inline std::int64_t BatchState::next_finish_step() {
  return finishes_.earliest();
}

inline void BatchState::running_push_back(int slot) {
  Seq& s = seq(slot);
  s.prev = run_tail_;
  s.next = -1;
  if (run_tail_ >= 0) seq(run_tail_).next = slot;
  else run_head_ = slot;
  run_tail_ = slot;
  ++running_count_;
}

inline void BatchState::admit_head(int slot, const KvBlocks::PrefixHit& hit, std::int64_t chunk, std::int64_t blocks,
                            Nanos now) {
  Seq& s = seq(slot);
  const std::int64_t bs = kv_.block_size();
  if (s.swapped_blocks > 0) {
    const double tier_s = kv_.tier_swap_seconds(s.computed);
    transfer_s_ += tier_s >= 0 ? tier_s : pricer_.host_seconds(s.computed);  // swap-in
    kv_.swap_in(s.swapped_blocks);
    s.swapped_blocks = 0;
  } else if (hit.cpu > 0) {
    transfer_s_ += hit.reload_s >= 0 ? hit.reload_s : pricer_.host_seconds(hit.cpu * bs);
    kv_.touch_offloaded(s.hashes, hit.gpu, hit.cpu);
  }
  if (s.rec.first_scheduled < 0) {
    s.rec.cached_tokens = hit.gpu * bs;
    s.rec.offload_tokens = hit.cpu * bs;
  }
  waiting_.pop_front();
  s.phase = Phase::prefill;
  s.chunk = chunk;
  s.blocks = blocks;
  kv_.allocate(blocks);
  if (s.rec.first_scheduled < 0) s.rec.first_scheduled = now;
  running_push_back(slot);
  prefilling_.push_back(slot);
  if (lora_on_) [[unlikely]] lora_admitted(slot);
}

inline void BatchState::complete_chunks(Nanos now, std::vector<Request>& done) {
  scratch_.swap(prefilling_);
  prefilling_.clear();
  for (int slot : scratch_) {
    Seq& s = seq(slot);
    s.computed += s.chunk;
    s.chunk = 0;
    if (s.computed < s.target) {
      // Hybrid KV: the chunk's blocks past the local layers' cap are freed after it.
      if (kv_.block().hybrid()) {
        const std::int64_t excess = s.blocks - (kv_.blocks_for(s.computed) - s.cached_blocks);
        if (excess > 0) {
          kv_.release(excess);
          s.blocks -= excess;
        }
      }
      prefilling_.push_back(slot);
      continue;
    }
    if (patience_ && s.rec.first_token < 0 && patience_->deadline(s.req) < now) {
      // Its user left while this step ran: the first token comes too late.
      abandon_completed_prompt(slot);
      continue;
    }
    if (s.hash_blocks > 0) {
      // The prompt's full blocks become cached for later requests.
      const std::int64_t full = std::min<std::int64_t>(s.hash_blocks, s.computed / kv_.block_size());
      if (full > s.cached_blocks) {
        // Registered before and back from a swap-out (reuse_prefix, which
        // recomputes them, did not run): its hashes were handed on.
        if (s.registered && s.hashes.empty()) complete_hashes(s);
        s.registered = true;
        s.blocks -= kv_.share_prefix(s.hashes, s.cached_blocks, full, s.cached_nodes, unique_blocks_from(s.req));
        s.cached_blocks = full;
        hand_on_hashes(s);
      }
    }
    ++s.generated;
    if (s.rec.first_token < 0) {
      s.rec.first_token = now;
      if (patience_) answered_.insert(s.req.id);  // its deadline no longer matters
    } else if (observer_) {
      // First token after a recompute or swap-in (of each of a group's sequences).
      observer_->on_itl(to_seconds(now - s.last_token), group_.sequences());
    }
    if (s.generated >= s.req.output_tokens) {
      finish_request(slot, now, done, false);
      continue;
    }
    // The decode aggregate accounts for its blocks from now on (the same number;
    // a group's blocks are counted in join_decode).
    kv_.release(s.blocks - (kv_.blocks_for(s.computed) - s.cached_blocks));
    s.blocks = 0;
    join_decode(slot, now);
  }
  scratch_.clear();
}

}  // namespace servesim
