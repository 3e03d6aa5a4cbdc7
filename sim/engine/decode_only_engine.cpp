#include "engine/decode_only_engine.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "util/error.h"
#include "workload/request_copy.h"

namespace servesim {

DecodeOnlyEngine::DecodeOnlyEngine(const EngineContext& ctx)
    : ctx_(ctx),
      pricer_(*ctx.cost, ctx.config.cpu_overheads(), ctx.memory.kv_bytes_per_token, ctx.fast_forward, ctx.step_costs),
      block_(ctx.config.block_size),
      total_(ctx.kv_blocks) {
  if (ctx.config.speculative.enabled() && ctx.draft_cost) {
    pricer_.set_drafter(ctx.draft_cost);
    spec_ = true;
    spec_k_ = ctx.config.speculative.num_speculative_tokens;
    spec_expected_ = ctx.config.speculative.expected_tokens();
  }
  if (ctx.config.prefix_caching) prefix_ = std::make_unique<DecodePrefixCache>(ctx.config.block_size);
  classes_ = ctx.classes;
  priority_queue_ = ctx.config.priority_queue && classes_;
  patience_ = ctx.patience;
}

std::int64_t DecodeOnlyEngine::cached_prompt_tokens(const Request& r) const {
  if (!prefix_) return 0;
  prefix_->prompt_hashes(r, probe_hashes_);
  return prefix_->cache().match(probe_hashes_, prefix_->hit_limit(r, probe_hashes_)) * block_.size;
}

Engine::PrefixMatch DecodeOnlyEngine::prefix_match(const Request& r) const {
  if (!prefix_) return {};
  prefix_->prompt_hashes(r, probe_hashes_);
  const auto blocks = static_cast<std::int64_t>(probe_hashes_.size());
  if (blocks <= 0) return {};
  return {prefix_->cache().match(probe_hashes_, blocks), blocks};
}

std::int64_t DecodeOnlyEngine::cached_tokens(std::int64_t id) const {
  const auto it = granted_.find(id);
  if (it == granted_.end()) throw Error("internal: cached_tokens of a request the decode instance has not granted");
  return it->second.hit * block_.size;
}

void DecodeOnlyEngine::register_blocks(Seq& s, std::int64_t n) {
  if (n <= s.shared) return;
  // fresh + duplicate + revived: every block from s.shared to n is now held through the cache.
  const PrefixCache::Registered r = prefix_->cache().add(s.hashes, s.shared, n, &s.nodes);
  const std::int64_t moved = r.fresh + r.duplicate + r.revived;
  reserved_ -= moved;
  used_ -= moved;
  s.peak -= moved;
  s.shared = n;
}

void DecodeOnlyEngine::release_seq(Seq& s, std::int64_t kv_tokens) {
  if (prefix_) {
    register_blocks(s, static_cast<std::int64_t>(s.hashes.size()));
    prefix_->cache().release_nodes(s.nodes);  // its blocks stay cached, evictable (LRU)
    s.nodes.clear();
  }
  used_ -= block_.blocks_for(kv_tokens) - s.shared;
  reserved_ -= s.peak;
}

bool DecodeOnlyEngine::enqueue(Request /*r*/, Nanos /*now*/) {
  throw Error("internal: a decode instance takes requests through accept() (their prompt KV comes from a prefill "
              "instance)");
}

bool DecodeOnlyEngine::accept(const Request& r, const RequestRecord& rec, Nanos now, bool local_prefill) {
  Seq s{copy_request(r), rec};  // its bytes are r's (queued_request_bytes when it leaves the queue)
  s.peak = peak_blocks(r);
  s.local = local_prefill;
  s.rec.replica = ctx_.replica;
  if (s.peak > total_ || (ctx_.max_request_blocks > 0 && s.peak > ctx_.max_request_blocks)) {
    s.rec.failed = true;
    s.rec.failure = FailureReason::exceeds_kv_capacity;
    s.rec.finish = now;
    if (ctx_.observer) ctx_.observer->on_request_done(s.rec);
    return false;
  }
  if (prefix_) prefix_->sequence_hashes(r, s.hashes);
  waiting_bytes_ += queued_request_bytes(r);
  if (patience_) {
    deadlines_.push(Deadline{patience_->deadline(r), r.id});
    unanswered_.insert(r.id);
  }
  if (priority_queue_) {
    // After the last request of its priority or higher (vLLM's priority queue: priority, then arrival).
    const int p = priority_of(r);
    auto it = waiting_.end();
    while (it != waiting_.begin() && priority_of(std::prev(it)->req) < p) --it;
    waiting_.insert(it, std::move(s));
    return true;
  }
  waiting_.push_back(std::move(s));
  return true;
}

void DecodeOnlyEngine::drop_seq(Seq& s) {
  if (prefix_) {
    prefix_->cache().release_nodes(s.nodes);  // the cached blocks it found stay cached
    s.nodes.clear();
  }
  used_ -= block_.blocks_for(s.req.input_tokens) - s.shared;
  reserved_ -= s.peak;
}

void DecodeOnlyEngine::report_abandoned(const Seq& s, Nanos at) {
  if (!ctx_.observer) return;
  RequestRecord rec = s.rec;
  rec.failed = true;
  rec.failure = FailureReason::abandoned;
  rec.finish = at;
  rec.first_token = -1;  // the user never saw it (the prefill instance's sample had not reached them)
  ctx_.observer->on_request_done(rec);
}

void DecodeOnlyEngine::abandon_due(Nanos now, std::vector<Request>& gone) {
  for (Request& r : late_) gone.push_back(std::move(r));
  late_.clear();
  while (!deadlines_.empty() && deadlines_.top().at <= now) {
    const Deadline d = deadlines_.top();
    deadlines_.pop();
    if (unanswered_.erase(d.id) == 0) continue;  // answered in time, or gone
    // Waiting for blocks: it leaves the queue, holding nothing.
    if (auto it = std::find_if(waiting_.begin(), waiting_.end(), [&](const Seq& s) { return s.req.id == d.id; });
        it != waiting_.end()) {
      report_abandoned(*it, d.at);
      waiting_bytes_ -= queued_request_bytes(it->req);
      gone.push_back(std::move(it->req));
      waiting_.erase(it);
      continue;
    }
    // Granted, to be prefilled here at the next step: its reservation is returned.
    if (auto it = std::find_if(to_prefill_.begin(), to_prefill_.end(), [&](const Seq& s) { return s.req.id == d.id; });
        it != to_prefill_.end()) {
      drop_seq(*it);
      report_abandoned(*it, d.at);
      gone.push_back(std::move(it->req));
      to_prefill_.erase(it);
      continue;
    }
    // Its KV on the wire: abandoned now, its blocks freed when the transfer lands.
    if (auto it = granted_.find(d.id); it != granted_.end()) {
      it->second.gone = true;
      report_abandoned(it->second, d.at);
      gone.push_back(copy_request(it->second.req));
      continue;
    }
    // Otherwise its prompt is in the step running here: judged at the step's end.
  }
}

Nanos DecodeOnlyEngine::next_deadline() {
  while (!deadlines_.empty() && !unanswered_.contains(deadlines_.top().id)) deadlines_.pop();
  return deadlines_.empty() ? kNever : deadlines_.top().at;
}

void DecodeOnlyEngine::grant(std::vector<Request>& granted) {
  const std::int64_t seqs_limit = ctx_.config.max_num_seqs;
  while (!waiting_.empty()) {
    Seq& s = waiting_.front();
    const auto holding = static_cast<std::int64_t>(granted_.size() + ready_.size() + running_.size() +
                                                   to_prefill_.size() + prefilling_.size());
    if (prefix_) {
      // The prompt's leading blocks cached here are pinned, not reserved: its peak
      // less those must fit beside the reservations and the pinned blocks (pinning
      // an evictable one takes its room too); evictable blocks give way.
      PrefixCache& cache = prefix_->cache();
      const std::int64_t limit = prefix_->hit_limit(s.req, s.hashes);
      const PrefixCache::Pinned p = cache.probe(s.hashes, limit);
      if (holding + 1 > seqs_limit || reserved_ + cache.pinned() + p.revived + (s.peak - p.matched) > total_) break;
      cache.match_acquire(s.hashes, p.matched, &s.nodes);
      s.hit = s.shared = p.matched;
      s.peak -= p.matched;
      reserved_ += s.peak;
      cache.shrink_to(total_ - reserved_ - cache.pinned());
      used_ += block_.blocks_for(s.req.input_tokens) - s.shared;  // the rest of the prompt's KV lands here
      granted_prompt_tokens_ += s.req.input_tokens;
      hit_tokens_ += s.hit * block_.size;
      // Prefilled here, its hit is the prompt tokens it does not compute (the run's prefix
      // cache hit rate); a transferred prompt's record keeps its prefill instance's hit.
      if (s.local) s.rec.cached_tokens = s.hit * block_.size;
    } else {
      if (holding + 1 > seqs_limit || reserved_ + s.peak > total_) break;
      reserved_ += s.peak;
      used_ += block_.blocks_for(s.req.input_tokens);  // the prompt's KV lands in them
    }
    waiting_bytes_ -= queued_request_bytes(s.req);
    if (s.local) {
      to_prefill_.push_back(std::move(s));
      waiting_.pop_front();
      continue;
    }
    granted.push_back(s.req);
    const std::int64_t id = s.req.id;
    granted_.emplace(id, std::move(s));
    waiting_.pop_front();
  }
}

void DecodeOnlyEngine::kv_arrived(std::int64_t id, Nanos now) {
  auto it = granted_.find(id);
  if (it == granted_.end()) throw Error("internal: KV arrived for a request the decode instance did not grant");
  Seq s = std::move(it->second);
  granted_.erase(it);
  if (s.gone) {
    drop_seq(s);  // the user gave up while the KV was on the wire (reported then)
    return;
  }
  if (patience_) {
    if (overdue(s.req, now)) {
      // Its deadline and the arrival at one instant after it (abandon_due had not run yet).
      drop_seq(s);
      report_abandoned(s, patience_->deadline(s.req));
      unanswered_.erase(s.req.id);
      late_.push_back(std::move(s.req));
      return;
    }
    unanswered_.erase(s.req.id);
  }
  s.rec.first_token = now;  // the first token travels with the KV and is streamed from here
  // vLLM caches the received blocks once the transfer is done (the scheduler's
  // _update_waiting_for_remote_kv): the prompt's full blocks.
  if (prefix_) register_blocks(s, prefix_->prompt_blocks(s.req, s.hashes));
  ready_.push_back(std::move(s));
}

Nanos DecodeOnlyEngine::start_step(Nanos now, Nanos /*horizon*/) {
  for (Seq& s : ready_) {
    s.joined_this_step = true;
    running_.push_back(std::move(s));
  }
  ready_.clear();
  // Each sequence feeds its last sampled token: it is written to the KV and attends
  // to prompt + generated tokens (the vLLM engine's decode_kv_tokens).
  std::int64_t kv = 0;
  for (const Seq& s : running_) kv += s.req.input_tokens + s.generated;
  const auto n = static_cast<std::int64_t>(running_.size());
  BatchSummary b = ctx_.cost->batch();
  StepTotals totals;
  double seconds = 0;
  step_emitted_ = 1;
  // Prompts the P/D decider left to this instance: each whole, beside the decoders.
  prefilling_ = std::move(to_prefill_);
  to_prefill_.clear();
  std::int64_t prefill_tokens = 0;
  const auto add_prefills = [&] {
    for (Seq& s : prefilling_) {
      // With prefix caching, the cached blocks are read as context, the rest computed.
      const std::int64_t cached = s.hit * block_.size;
      b.add(SeqWork{s.req.input_tokens - cached, cached, true});
      prefill_tokens += s.req.input_tokens - cached;
      s.rec.first_scheduled = now;
    }
  };
  if (spec_) {
    // Draft k tokens, then verify k+1 per sequence in one pass (speculative.h); step s
    // emits floor(s E) - floor((s-1) E) tokens per sequence.
    ++spec_steps_;
    const double e = spec_expected_, s = static_cast<double>(spec_steps_);
    step_emitted_ = static_cast<std::int64_t>(std::floor(s * e)) - static_cast<std::int64_t>(std::floor((s - 1.0) * e));
    StepPricer::add_verify(b, n, static_cast<double>(kv), spec_k_ + 1);
    add_prefills();
    seconds = pricer_.speculative_seconds(b, pricer_.draft_totals(n, kv, spec_k_), &totals);
  } else {
    b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
    b.decode_kv_tokens = static_cast<double>(kv);
    add_prefills();
    seconds = pricer_.seconds(b, &totals);
  }
  const Nanos end = now + std::max<Nanos>(1, to_nanos(seconds));
  in_step_ = true;
  if (ctx_.observer) {
    StepRecord& r = record_;
    r = StepRecord{};
    r.replica = ctx_.replica;
    r.start = now;
    r.end = end;
    r.steps = 1;
    r.batch_seqs = n + static_cast<std::int64_t>(prefilling_.size());
    r.prefill_tokens = prefill_tokens;
    r.decode_tokens = n * step_emitted_;
    // The blocks the step's KV fills once written (a block boundary takes a new one).
    std::int64_t filled = used_ + pinned();
    for (const Seq& s : running_)
      filled += block_.blocks_for(s.req.input_tokens + s.generated) -
                block_.blocks_for(s.req.input_tokens + s.generated - 1);
    r.kv_blocks_used = filled;
    r.kv_blocks_total = total_;
    r.queue_length = static_cast<std::int64_t>(waiting_.size());
    StepPricer::record_cost(r, totals, 1, seconds, 0.0);
    ctx_.observer->on_step(r);
    // Inter-token gaps: one step for those decoding already (split over the tokens it
    // emits); for those joining, from their first token (the KV's arrival) to this step's end.
    std::int64_t steady = 0;
    const auto emitted = static_cast<double>(step_emitted_);
    for (const Seq& s : running_) {
      if (s.joined_this_step) ctx_.observer->on_itl(to_seconds(end - s.rec.first_token) / emitted, step_emitted_);
      else ++steady;
    }
    if (steady > 0) ctx_.observer->on_itl(to_seconds(end - now) / emitted, steady * step_emitted_);
  }
  return end;
}

void DecodeOnlyEngine::finish_step(Nanos now, std::vector<Request>& done) {
  in_step_ = false;
  std::size_t keep = 0;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    Seq& s = running_[i];
    s.joined_this_step = false;
    // The fed tokens are in the KV now (a new block at each boundary), and as many more are
    // sampled (one, or the accepted drafts plus one; never past the request's output).
    const std::int64_t add = std::min(step_emitted_, s.req.output_tokens - s.generated);
    used_ += block_.blocks_for(s.req.input_tokens + s.generated + add - 1) -
             block_.blocks_for(s.req.input_tokens + s.generated - 1);
    s.generated += add;
    if (s.generated >= s.req.output_tokens) {
      release_seq(s, s.req.input_tokens + s.generated - 1);
      s.rec.finish = now;
      if (ctx_.observer) ctx_.observer->on_request_done(s.rec);
      done.push_back(std::move(s.req));
      continue;
    }
    if (keep != i) running_[keep] = std::move(s);
    ++keep;
  }
  running_.resize(keep);
  // The prompts prefilled in the step: their first token now; a one-token request is
  // done, the others decode from the next step on (their first gap measured from here).
  for (Seq& s : prefilling_) {
    if (overdue(s.req, now)) {
      // Its user gave up during the step that computed its prompt (the vLLM engine's rule).
      drop_seq(s);
      report_abandoned(s, patience_->deadline(s.req));
      unanswered_.erase(s.req.id);
      late_.push_back(std::move(s.req));
      continue;
    }
    if (patience_) unanswered_.erase(s.req.id);
    s.rec.first_token = now;
    if (prefix_) register_blocks(s, prefix_->prompt_blocks(s.req, s.hashes));  // computed: cached from now on
    if (s.req.output_tokens <= 1) {
      release_seq(s, s.req.input_tokens);
      s.rec.finish = now;
      if (ctx_.observer) ctx_.observer->on_request_done(s.rec);
      done.push_back(std::move(s.req));
      continue;
    }
    ready_.push_back(std::move(s));
  }
  prefilling_.clear();
}

void DecodeOnlyEngine::abort_queued(Nanos now, FailureReason why,
                                    const std::function<void(const Request&)>& aborted) {
  while (!waiting_.empty()) {
    Seq& s = waiting_.front();
    s.rec.failed = true;
    s.rec.failure = why;
    s.rec.finish = now;
    if (ctx_.observer) ctx_.observer->on_request_done(s.rec);
    if (patience_) unanswered_.erase(s.req.id);
    aborted(s.req);
    waiting_.pop_front();
  }
  waiting_bytes_ = 0;
}

}  // namespace servesim
