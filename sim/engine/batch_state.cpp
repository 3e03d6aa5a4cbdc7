#include "engine/batch_state.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.h"
#include "workload/prompt_ids.h"

namespace servesim {

BatchState::BatchState(const EngineContext& ctx, const StepPricer& pricer)
    : frontend_ns_(to_nanos(ctx.config.frontend_latency)),
      prefix_caching_(ctx.config.prefix_caching),
      local_on_(ctx.cost && ctx.cost->model().local.enabled()),
      replica_(ctx.replica),
      observer_(ctx.observer),
      max_model_len_(ctx.config.max_model_len),
      max_request_blocks_(ctx.max_request_blocks),
      kv_(ctx),
      dec_(kv_.block()),
      group_(kv_.block(), ctx.sampling),
      pricer_(pricer),
      local_(ctx.cost ? ctx.cost->model().local : LocalAttention{}, kv_.block()),
      own_chains_(ctx.hash_chains ? nullptr : std::make_unique<BlockHashChains>()),
      chains_(ctx.hash_chains ? ctx.hash_chains : own_chains_.get()),
      patience_(ctx.patience) {
  ranks_ = ctx.classes;
  priority_queue_ = ctx.config.priority_queue && ranks_;
  if (local_on_ != local_.enabled()) throw std::logic_error("BatchState: local_on_ disagrees with local_");
  if (ctx.config.lora.enabled) {
    // One adapter's load (lora_slots.h): its shard of the rank-r matrices over this GPU's
    // host link (each GPU copies its own, in parallel), after the whole adapter is read
    // from disk when the host cache does not hold it.
    const LoraEngineSpec& spec = ctx.config.lora;
    const double rank = ctx.lora ? static_cast<double>(ctx.lora->spec().rank) : 0.0;
    const LoraLoadTimes load = lora_load_times(spec, *ctx.cost, rank);
    lora_ = std::make_unique<LoraSlots>(spec, ctx.lora, load.gpu_s, load.disk_s);
    lora_on_ = true;
  }
  if (local_.enabled()) check_local_supported(ctx);
  // A group larger than max_num_seqs could never start (the config layer refuses it first).
  if (group_.sequences() > ctx.config.max_num_seqs)
    throw Error(fmt::format("workload.sampling: {} sequences per request exceed engine.max_num_seqs = {}",
                            group_.sequences(), ctx.config.max_num_seqs));
}

void BatchState::check_local_supported(const EngineContext& ctx) {
  const ModelSpec& m = ctx.cost->model();
  auto refuse = [&](const std::string& what, const std::string& instead) {
    throw Error(fmt::format("model '{}' has local attention ({}): {} is not modelled with it yet; {}", m.name,
                            m.local.describe(), what, instead));
  };
  const bool hybrid = ctx.config.free_window_kv && m.local.frees_keys();  // top-k (DSA) frees none
  const std::string no_hybrid = "set engine.free_window_kv: false (every layer keeps the whole context's KV)";
  if (ctx.config.speculative.enabled())
    refuse("speculative decoding (verification over local spans)", "run without engine.speculative");
  if (ctx.sampling.sequences() > 1) refuse("parallel sampling or beam search (workload.sampling)", "use n: 1");
  if (hybrid && ctx.config.prefix_caching) refuse("prefix caching with freed window blocks", no_hybrid);
  if (hybrid && ctx.config.cpu_offload_bytes > 0) refuse("CPU offload with freed window blocks", no_hybrid);
  if (hybrid && ctx.cost->parallelism().pp > 1) refuse("pipeline parallelism with freed window blocks", no_hybrid);
}

int BatchState::lowest_priority_running() const {
  int best = -1, best_priority = 0;
  for (int slot = run_tail_; slot >= 0; slot = seq(slot).prev) {
    const Request& r = seq(slot).req;
    const int p = ranks_->priority(ranks_->of(r.id, r.session));
    if (best < 0 || p < best_priority) {
      best = slot;
      best_priority = p;
    }
  }
  return best;
}

void BatchState::running_erase(int slot) {
  Seq& s = seq(slot);
  if (lora_on_) [[unlikely]] lora_left(s);
  if (s.prev >= 0) seq(s.prev).next = s.next;
  else run_head_ = s.next;
  if (s.next >= 0) seq(s.next).prev = s.prev;
  else run_tail_ = s.prev;
  s.prev = s.next = -1;
  --running_count_;
}

int BatchState::new_slot() {
  if (!free_slots_.empty()) {
    const int s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  slots_.emplace_back();
  return static_cast<int>(slots_.size()) - 1;
}

FailureReason BatchState::admissible(const Request& r) const {
  const std::int64_t total = r.input_tokens + r.output_tokens;
  if (total > max_model_len_) return FailureReason::too_long_for_max_model_len;
  // The last sampled token is never written back, so the KV peaks at total - 1 tokens
  // (a sequence group's: every sequence's, sequence_group.h).
  const std::int64_t cap = max_request_blocks_ > 0 ? max_request_blocks_ : kv_.total();
  if (group_.peak(r.input_tokens, r.output_tokens) > cap) return FailureReason::exceeds_kv_capacity;
  return FailureReason::none;
}

bool BatchState::enqueue(Request&& r, Nanos now) {
  if (const FailureReason why = admissible(r); why != FailureReason::none) {
    if (observer_) observer_->on_request_done(failed_record(r, replica_, why, now));
    return false;
  }
  if (patience_) [[unlikely]] note_deadline(r);
  if (priority_queue_) [[unlikely]] {
    enqueue_by_priority(std::move(r));
    return true;
  }
  fresh_.emplace_back(std::move(r));
  fresh_bytes_ += fresh_.back().bytes();
  ++fresh_count_;
  return true;
}

void BatchState::note_deadline(const Request& r) {
  deadlines_.push(Deadline{patience_->deadline(r), r.id});
  // In priority order fresh_ is not in id order: a user who gives up is found by a scan.
  if (priority_queue_ || (!fresh_.empty() && r.id <= fresh_.back().id())) fresh_by_id_ = false;
}

void BatchState::enqueue_by_priority(Request&& r) {
  // fresh_ is in priority order, higher first, each priority in arrival order: the new
  // request goes after the last one of its priority or higher (a binary search).
  const int p = priority_of(r.id, r.session);
  const auto at = std::partition_point(fresh_.begin(), fresh_.end(), [&](const QueuedRequest& q) {
    return priority_of(q.id(), q.session()) >= p;
  });
  // Ahead of requests a LoRA scan passed over: the scan must look again (LoraScan).
  if (at != fresh_.end()) ++fresh_epoch_;
  const auto it = fresh_.emplace(at, std::move(r));
  fresh_bytes_ += it->bytes();
  ++fresh_count_;
}

void BatchState::promote_fresh_by_priority(Nanos cutoff) {
  // The waiting slots (preempted requests, the one being admitted) keep their order; a
  // fresh request of a higher priority than their front goes ahead of it (vLLM's
  // priority policy keeps one heap of both).
  if (!fresh_.empty() && fresh_.front().arrival() + frontend_ns_ <= cutoff &&
      (waiting_.empty() || priority_of(fresh_.front().id(), fresh_.front().session()) >
                               priority_of(seq(waiting_.front()).req.id, seq(waiting_.front()).req.session))) {
    materialize_front();
    waiting_.push_front(waiting_.back());
    waiting_.pop_back();
    // Passed over for want of an adapter slot while fresh: counted then, and its slot's
    // flag now says so (lora_eligible counts a slot's first skip).
    if (lora_on_) {
      Seq& s = seq(waiting_.front());
      s.rec.lora_delayed = lora_delayed_ids_.erase(s.req.id) > 0;
    }
  }
}

int BatchState::eligible_head_by_priority(Nanos cutoff) {
  promote_fresh_by_priority(cutoff);
  if (waiting_.empty()) return -1;  // the front's request has not arrived by the cutoff
  const int slot = waiting_.front();
  const Seq& s = seq(slot);
  if (s.rec.first_scheduled < 0 && s.req.arrival + frontend_ns_ > cutoff) return -1;
  return slot;
}

void BatchState::drop_gone_front() {
  while (!gone_.empty() && !fresh_.empty() && fresh_.front().id() == gone_.top()) {
    fresh_bytes_ -= fresh_.front().bytes();
    --fresh_count_;
    fresh_.pop_front();
    gone_.pop();
  }
}

void BatchState::abandon_completed_prompt(int slot) {
  prefilling_.push_back(slot);  // abandon_slot takes it out of the list again
  abandon_slot(slot, patience_->deadline(seq(slot).req), late_);
}

void BatchState::abandon_due(Nanos now, bool running_too, std::vector<Request>& gone) {
  for (Request& r : late_) gone.push_back(std::move(r));
  late_.clear();
  if (running_too && !overdue_.empty()) {
    std::vector<Deadline> due;
    due.swap(overdue_);
    for (const Deadline& d : due) abandon(d, true, gone);
  }
  while (!deadlines_.empty() && deadlines_.top().at <= now) {
    const Deadline d = deadlines_.top();
    deadlines_.pop();
    if (answered_.erase(d.id) == 0) abandon(d, running_too, gone);
  }
}

void BatchState::abandon(const Deadline& d, bool running_too, std::vector<Request>& gone) {
  // Never scheduled: still in fresh_. Ids increase along it, so those below the
  // front's have left it (admitted, or gone already).
  if (!fresh_.empty() && (!fresh_by_id_ || d.id >= fresh_.front().id())) {
    auto it = fresh_by_id_ ? std::lower_bound(fresh_.begin(), fresh_.end(), d.id,
                                              [](const QueuedRequest& r, std::int64_t id) { return r.id() < id; })
                           : std::find_if(fresh_.begin(), fresh_.end(), [&](const QueuedRequest& r) { return r.id() == d.id; });
    if (it != fresh_.end() && it->id() == d.id) {
      Request r = it->copy();
      RequestRecord rec = failed_record(r, replica_, FailureReason::abandoned, d.at);
      if (observer_) observer_->on_request_done(rec);
      gone.push_back(std::move(r));
      if (priority_queue_) lora_delayed_ids_.erase(d.id);
      if (fresh_by_id_) {
        gone_.push(d.id);  // skipped when it reaches the front: nothing in the queue moves
        drop_gone_front();
      } else {
        fresh_bytes_ -= it->bytes();
        --fresh_count_;
        fresh_.erase(it);
        ++fresh_epoch_;
      }
      return;
    }
  }
  // In a slot: waiting (the head admission is trying, or preempted) or prefilling.
  // Both lists are short next to the queue; a request that has had its first
  // token (decoding, finished, or preempted after it) stays.
  for (int slot : waiting_) {
    if (seq(slot).req.id != d.id) continue;
    if (seq(slot).rec.first_token < 0) abandon_slot(slot, d.at, gone);
    return;
  }
  for (int slot : prefilling_) {
    if (seq(slot).req.id != d.id) continue;
    if (seq(slot).rec.first_token >= 0) return;
    if (running_too) abandon_slot(slot, d.at, gone);
    else overdue_.push_back(d);  // its chunk may be in the step in flight
    return;
  }
}

void BatchState::abandon_slot(int slot, Nanos at, std::vector<Request>& gone) {
  Seq& s = seq(slot);
  if (s.phase == Phase::prefill) {
    // vLLM aborts a request whose client disconnected: the API server's abort
    // reaches the v1 scheduler between steps (Scheduler.finish_requests with
    // RequestStatus.FINISHED_ABORTED, vllm/v1/core/sched/scheduler.py: "the API
    // server can abort a request when the client disconnects"), which frees its blocks.
    kv_.release(s.blocks);
    prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), slot));
    running_erase(slot);
  } else {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), slot));
    if (s.swapped_blocks > 0) kv_.swap_in(s.swapped_blocks);  // frees its swap space in the CPU tier
  }
  release_cached(s);
  reserved_blocks_ -= s.reserved;
  s.reserved = s.blocks = s.chunk = s.swapped_blocks = 0;
  s.rec.failed = true;
  s.rec.failure = FailureReason::abandoned;
  s.rec.finish = at;
  if (observer_) observer_->on_request_done(s.rec);
  gone.push_back(std::move(s.req));
  s.phase = Phase::free;
  free_slots_.push_back(slot);
}

void BatchState::materialize_front() {
  const int slot = new_slot();
  Seq& s = seq(slot);
  QueuedRequest& q = fresh_.front();
  fresh_bytes_ -= q.bytes();
  --fresh_count_;
  s.req = q.take();
  fresh_.pop_front();
  drop_gone_front();
  s.rec = arrival_record(s.req, replica_);
  s.rec.sequences = group_.sequences();
  reset_fields(s);
  s.target = s.req.input_tokens;
  if (prefix_caching_ && !s.req.block_hashes.empty()) prompt_hashes(s);
  s.phase = Phase::waiting;
  waiting_.push_back(slot);
}

void BatchState::materialize_at(std::size_t i) {
  // To the front, then as the front (one path into a slot: the plain one stays as it was).
  QueuedRequest q = std::move(fresh_[i]);
  fresh_.erase(fresh_.begin() + static_cast<std::ptrdiff_t>(i));
  fresh_.push_front(std::move(q));
  materialize_front();
}


void BatchState::reset_fields(Seq& s) {
  // Every field but req and rec (set by the caller) back to Seq's defaults, in
  // place: a slot is reused once per request, and writing a whole default Seq over
  // it (its request, record and vectors moved in and out) cost more than these
  // stores. The size check below fails when a field is added: reset it here too.
  // (Checked where the size is known: libstdc++ on a 64-bit target.)
#if defined(__GLIBCXX__) && __SIZEOF_POINTER__ == 8
  static_assert(sizeof(Seq) == 376, "BatchState::Seq changed: reset the new field in reset_fields()");
#endif
  s.phase = Phase::free;
  s.target = s.computed = s.generated = s.chunk = s.blocks = s.cached_blocks = 0;
  // The hash and handle vectors keep their capacity across reuse (no allocation per request).
  s.hashes.clear();
  s.hash_blocks = 0;
  s.registered = false;
  s.cached_nodes.clear();
  s.join_step = s.len_join = s.gen_join = 0;
  s.key = 0;
  s.swapped_blocks = s.reserved = s.extra = s.owed = 0;
  s.last_token = 0;
  s.prev = s.next = -1;
}

void BatchState::prompt_hashes(Seq& s) {
  const Request& r = s.req;
  if (!spare_hashes_.empty()) {  // a buffer another request just used (see spare_hashes_)
    s.hashes = std::move(spare_hashes_.back());
    spare_hashes_.pop_back();
  }
  const PromptIds ids(r);  // its own ids may be implied (Request::own_ids_implied)
  s.hash_blocks = engine_block_count(ids, r.hash_block_tokens, r.input_tokens, kv_.block_size());
  if (extended_hashes(s)) return;
  const std::int64_t unique = unique_blocks_from(r);
  const std::int64_t upto = kv_.offload() || unique >= s.hash_blocks ? s.hash_blocks : unique + 1;
  chains_->hashes(ids, r.hash_block_tokens, r.input_tokens, kv_.block_size(), s.hashes, upto, named_ids(r));
}

Engine::PrefixMatch BatchState::prefix_match(const Request& r) const {
  if (!prefix_caching_ || r.block_hashes.empty()) return {};
  const PromptIds ids(r);
  const std::int64_t blocks = engine_block_count(ids, r.hash_block_tokens, r.input_tokens, kv_.block_size());
  if (blocks <= 0) return {};
  chains_->hashes(ids, r.hash_block_tokens, r.input_tokens, kv_.block_size(), match_hashes_, blocks, named_ids(r));
  return {kv_.cached_prefix(match_hashes_, blocks), blocks};
}

void BatchState::complete_hashes(Seq& s) {
  if (extended_hashes(s)) return;
  const Request& r = s.req;
  chains_->hashes(PromptIds(r), r.hash_block_tokens, r.input_tokens, kv_.block_size(), s.hashes,
                 std::numeric_limits<std::int64_t>::max(), named_ids(r));
}

bool BatchState::extended_hashes(Seq& s) {
  const Request& r = s.req;
  if (!r.extended_later || kv_.offload()) return false;  // a CPU tier keeps every block its own node
  const std::int64_t bs = kv_.block_size(), idb = r.hash_block_tokens;
  PromptIds ids(r);
  // The block after the last full one, as the conversation's later turns have it:
  // its tokens fall in ids up to ceil((hash_blocks + 1) bs / idb).
  const std::int64_t next_end = (s.hash_blocks + 1) * bs;
  if (idb > 0 && ids.extend_by_owner(static_cast<std::size_t>((next_end + idb - 1) / idb),
                                     static_cast<std::size_t>(r.unique_hashes_from))) {
    chains_->hashes(ids, idb, next_end, bs, s.hashes, s.hash_blocks + 1, named_ids(r));
  } else {
    // No id of the conversation's own to go on from: then no block of this prompt
    // is past the system prompt's, and no run (all of them are past it) can reach
    // past its end.
    chains_->hashes(ids, idb, r.input_tokens, bs, s.hashes, s.hash_blocks, named_ids(r));
  }
  return true;
}

void BatchState::abort_queued(Nanos now, FailureReason why, const std::function<void(const Request&)>& aborted) {
  while (!fresh_.empty()) {  // popping as it goes frees the queue's memory as it goes
    const Request r = fresh_.front().take();
    if (!gone_.empty() && gone_.top() == r.id) {
      gone_.pop();  // gave up before: reported then
    } else {
      if (observer_) observer_->on_request_done(failed_record(r, replica_, why, now));
      aborted(r);
    }
    fresh_.pop_front();
  }
  std::deque<QueuedRequest>().swap(fresh_);
  fresh_bytes_ = 0;
  fresh_count_ = 0;
}

void BatchState::join_decode(int slot, Nanos now) {
  Seq& s = seq(slot);
  s.phase = Phase::decode;
  s.join_step = dec_.step();
  // A group forks here: it holds one copy of its distinct tokens' blocks and owes
  // the rest of its sequences' blocks (the copies on write) at its first decode step.
  const std::int64_t physical = kv_.blocks_for(s.computed);
  s.computed -= s.extra;  // each sequence's length (a recompute prefilled every suffix)
  s.extra = 0;
  s.len_join = s.computed;
  s.gen_join = s.generated;
  s.owed = group_.held(s.req.input_tokens, s.len_join) - physical;
  const std::int64_t offset = s.len_join - s.join_step;
  const std::int64_t weight = local_on_ ? local_.weight(offset, s.join_step + 1) : group_.weight();
  s.key = dec_.join(s.len_join, group_.sequences(), weight, s.owed).key;
  if (local_on_) local_.join(offset, s.join_step);
  if (lora_on_) [[unlikely]] lora_decoders(s, +1);
  s.last_token = now;
  finishes_.push(slot, dec_.step() + (s.req.output_tokens - s.generated), s.req.id);
}

void BatchState::leave_decode(int slot) {
  Seq& s = seq(slot);
  const std::int64_t g = dec_.step();
  const std::int64_t len = s.len_join + (g - s.join_step);
  s.generated = s.gen_join + (g - s.join_step);
  s.computed = len;
  // A group that has not decoded since it joined has not taken its owed blocks yet.
  const std::int64_t owed = g == s.join_step ? s.owed : 0;
  kv_.release(group_.held(s.req.input_tokens, len) - owed - s.cached_blocks);
  const std::int64_t offset = s.len_join - s.join_step;
  const std::int64_t weight = local_on_ ? local_.weight(offset, g + 1) : group_.weight();
  dec_.leave(DecodeAggregate::Member{offset, s.key}, group_.sequences(), weight, owed);
  if (local_on_) local_.leave(offset, g);
  if (lora_on_) [[unlikely]] lora_decoders(s, -1);
  finishes_.remove(slot);  // it finishes no more at its filed step (or drain took it out)
}

void BatchState::preempt(int slot, Nanos now) {
  Seq& s = seq(slot);
  if (s.phase == Phase::decode) {
    leave_decode(slot);
    s.last_token = now;
  } else {
    kv_.release(s.blocks);
    prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), slot));
  }
  release_cached(s);
  reserved_blocks_ -= s.reserved;
  s.reserved = 0;
  s.blocks = 0;
  s.chunk = 0;
  running_erase(slot);
  s.target = s.req.input_tokens + s.generated;
  // A sequence group recomputes its distinct tokens (sequence_group.h), never
  // swaps: the swap-in path restores one sequence.
  if (s.generated > 0) {
    s.extra = group_.distinct_tokens(s.req.input_tokens, s.target) - s.target;
    s.target += s.extra;
  }
  const std::int64_t kv_blocks = kv_.blocks_for(s.computed);
  if (s.computed > 0 && group_.single() && kv_.swap_out(kv_blocks)) {
    // Swap: the KV (s.computed tokens) moves to host memory during this step.
    s.swapped_blocks = kv_blocks;
    const double tier_s = kv_.tier_swap_seconds(s.computed);
    transfer_s_ += tier_s >= 0 ? tier_s : pricer_.host_seconds(s.computed);
    ++s.rec.swaps;
  } else {
    // Recompute: everything known so far (prompt and sampled tokens) is prefilled again.
    s.computed = 0;
  }
  s.phase = Phase::waiting;
  ++s.rec.preemptions;
  waiting_.push_front(slot);
}

void BatchState::finish_request(int slot, Nanos now, std::vector<Request>& done, bool failed) {
  Seq& s = seq(slot);
  if (s.phase == Phase::decode) leave_decode(slot);
  else if (s.phase == Phase::prefill) kv_.release(s.blocks);
  release_cached(s);
  reserved_blocks_ -= s.reserved;
  s.reserved = 0;
  running_erase(slot);
  s.rec.finish = now;
  s.rec.failed = failed;
  if (observer_) observer_->on_request_done(s.rec);
  done.push_back(std::move(s.req));
  s.phase = Phase::free;
  free_slots_.push_back(slot);
}

void BatchState::lora_admitted(int slot) {
  const Seq& s = seq(slot);
  transfer_s_ += lora_->acquire(lora_->adapter(s.req.id, s.req.session));
  if (slot == lora_taken_) lora_taken_ = -1;  // admitted: stays out of fresh_
  if (priority_queue_) lora_delayed_ids_.erase(s.req.id);
}

void BatchState::lora_left(const Seq& s) { lora_->release(lora_->adapter(s.req.id, s.req.session)); }

void BatchState::lora_decoders(const Seq& s, std::int64_t sign) {
  if (lora_->adapter(s.req.id, s.req.session) >= 0) lora_decode_seqs_ += sign * group_.sequences();
}

int BatchState::lora_eligible(Nanos cutoff, Nanos now) {
  // vLLM v1 (vllm/v1/core/sched/scheduler.py, schedule(), the waiting loop): "Check that
  // adding the request still respects the max_loras constraint ... Scheduling would
  // exceed max_loras, skip": the request goes to skipped_waiting_requests, which are put
  // back at the head of the waiting queue after the loop, and the loop goes on.
  // Slots first: preempted requests, and a never-scheduled one an earlier step tried
  // (in priority order, behind a fresh request of a higher priority than theirs).
  if (priority_queue_) promote_fresh_by_priority(cutoff);
  while (!waiting_.empty()) {
    const int slot = waiting_.front();
    Seq& s = seq(slot);
    if (s.rec.first_scheduled < 0 && s.req.arrival + frontend_ns_ > cutoff) return -1;
    if (lora_->fits(lora_->adapter(s.req.id, s.req.session))) return slot;
    ++lora_->counts.skips;
    if (!s.rec.lora_delayed) {
      s.rec.lora_delayed = true;
      ++lora_->counts.delayed_requests;
    }
    lora_skipped_.push_back(slot);
    waiting_.pop_front();
  }
  // Then the never-scheduled ones, in queue order (arrival; with scheduling_policy
  // priority, priority then arrival), by id alone (their adapter is a
  // function of it): only the one taken becomes a slot. Those the last scan passed over
  // are passed over again without a look when nothing they depend on changed (LoraScan).
  std::size_t i = 0;
  if (!fresh_.empty() && lora_scan_.version == lora_->version() && lora_scan_.front == fresh_.front().id() &&
      lora_scan_.epoch == fresh_epoch_) {
    i = std::min(lora_scan_.upto, fresh_.size());
    lora_->counts.skips += lora_scan_.skips;
  } else {
    lora_scan_ = LoraScan{lora_->version(), fresh_.empty() ? -1 : fresh_.front().id(), fresh_epoch_, 0, 0};
  }
  for (; i < fresh_.size(); ++i) {
    lora_scan_.upto = i;  // the ones before i were passed over
    const QueuedRequest& q = fresh_[i];
    if (q.arrival() + frontend_ns_ > cutoff) return -1;  // later ones arrived later still
    // One whose user gave up by now is gone (abandon_due ran before this step: it waits in
    // fresh_ only until it reaches the front).
    if (patience_ && q.arrival() + to_nanos(patience_->seconds(q.id())) <= now) continue;
    if (lora_->fits(lora_->adapter(q.id(), q.session()))) {
      if (i == 0) {
        materialize_front();
      } else {
        materialize_at(i);
        lora_taken_ = waiting_.back();
        lora_taken_at_ = i;
      }
      // Passed over before for want of a slot (below, at an earlier step): counted then.
      Seq& s = seq(waiting_.back());
      s.rec.lora_delayed = priority_queue_ ? lora_delayed_ids_.count(s.req.id) > 0 : s.req.id <= lora_frontier_;
      return waiting_.front();
    }
    ++lora_->counts.skips;
    ++lora_scan_.skips;
    // Each request passed over is counted once: the first time (in arrival order the
    // highest id passed over so far says which were; in priority order ids are not in
    // order along the queue, so the ids are kept until admitted or gone).
    if (priority_queue_ ? lora_delayed_ids_.insert(q.id()).second : q.id() > lora_frontier_) {
      lora_frontier_ = std::max(lora_frontier_, q.id());
      ++lora_->counts.delayed_requests;
    }
  }
  lora_scan_.upto = fresh_.size();
  return kLoraNoneFits;
}

void BatchState::lora_restore() {
  if (lora_taken_ >= 0) {
    // Taken from behind passed-over requests but not admitted: back to its place among
    // the never-scheduled ones (nothing entered fresh_ while the step was planned).
    const int slot = lora_taken_;
    lora_taken_ = -1;
    if (waiting_.empty() || waiting_.front() != slot)
      throw std::logic_error("BatchState::lora_restore: the request taken is not at the head");
    waiting_.pop_front();
    Seq& s = seq(slot);
    QueuedRequest q(std::move(s.req));
    fresh_bytes_ += q.bytes();
    ++fresh_count_;
    fresh_.insert(fresh_.begin() + static_cast<std::ptrdiff_t>(lora_taken_at_), std::move(q));
    s.hashes.clear();
    s.hash_blocks = 0;
    s.phase = Phase::free;
    free_slots_.push_back(slot);
  }
  waiting_.insert(waiting_.begin(), lora_skipped_.begin(), lora_skipped_.end());
  lora_skipped_.clear();
}

}  // namespace servesim
