#include "run/beam_loop.h"

#include <algorithm>

#include "engine/engine.h"
#include "workload/prefix_hash.h"
#include "workload/prompt_ids.h"

namespace servesim {

BeamLoop::BeamLoop(RequestSource& inner, RunObserver& downstream, std::int64_t beams, double request_cpu_s,
                   bool prefix_caching, std::int32_t block_tokens, Nanos frontend_latency)
    : inner_(inner),
      down_(downstream),
      beams_(beams),
      request_cpu_s_(request_cpu_s),
      block_tokens_(block_tokens),
      frontend_latency_(frontend_latency) {
  report_.beams = beams;
  report_.request_cpu_s = request_cpu_s;
  report_.prefix_caching = prefix_caching;
  pull_inner();
}

void BeamLoop::pull_inner() {
  if (!lookahead_) lookahead_ = inner_.next();
}

std::int32_t BeamLoop::admit(Request&& r) {
  std::int32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<std::int32_t>(slots_.size());
    slots_.emplace_back();
  }
  Beam& b = slots_[static_cast<std::size_t>(slot)];
  std::vector<std::uint64_t> keep = std::move(b.prompt_ids);
  b = Beam{};
  b.prompt_ids = std::move(keep);  // its capacity reused
  b.id = r.id;
  b.arrival = r.arrival;
  b.prompt = r.input_tokens;
  b.output = std::max<std::int64_t>(r.output_tokens, 1);
  // A prompt the workload gave ids keeps them (a shared system prompt stays shared);
  // one without is its request's alone, named like its generated tokens.
  if (r.hash_block_tokens > 0) {
    b.block_tokens = r.hash_block_tokens;
    PromptIds(r).assign_to(b.prompt_ids);
  } else {
    b.block_tokens = block_tokens_;
    b.prompt_ids.clear();
  }
  b.generated_base = prefix_owner_base(HashOwner::beam, static_cast<std::uint64_t>(r.id));
  b.round = 0;
  b.to_send = 1;
  return slot;
}

// Round j's request of beam record `slot`: the prompt and j generated tokens, one to
// generate. Its full blocks are the prompt's, then the generated tokens' (the block
// the prompt left partial included: its content is this request's alone).
Request BeamLoop::make_request(std::int32_t slot, Nanos at) {
  Beam& b = slots_[static_cast<std::size_t>(slot)];
  Request r;
  r.id = issued_++;
  r.arrival = at;
  r.input_tokens = b.prompt + b.round;
  r.output_tokens = 1;
  r.session = slot;
  if (b.block_tokens > 0) {
    r.hash_block_tokens = b.block_tokens;
    const std::int64_t full = r.input_tokens / b.block_tokens;
    const std::int64_t from_prompt = std::min<std::int64_t>(full, static_cast<std::int64_t>(b.prompt_ids.size()));
    r.block_hashes.reserve(static_cast<std::size_t>(full));
    r.block_hashes.assign(b.prompt_ids.begin(), b.prompt_ids.begin() + from_prompt);
    for (std::int64_t k = from_prompt; k < full; ++k)
      r.block_hashes.push_back(prefix_owner_id(b.generated_base, static_cast<std::uint64_t>(k)));
  }
  --b.to_send;
  ++b.in_flight;
  return r;
}

void BeamLoop::absorb_first_rounds(Nanos upto) {
  while (!first_rounds_.empty() && first_rounds_.front() <= upto) {
    frontend_free_ = std::max(frontend_free_, first_rounds_.front()) + to_nanos(request_cpu_s_);
    first_rounds_.pop_front();
  }
}

Nanos BeamLoop::frontend_builds(Nanos ready, std::int64_t requests) {
  absorb_first_rounds(ready);
  const double work = request_cpu_s_ * static_cast<double>(requests);
  frontend_free_ = std::max(frontend_free_, ready) + to_nanos(work);
  report_.frontend_busy_s += work;
  return frontend_free_;
}

Nanos BeamLoop::frontend_builds_first_round(Nanos arrival) {
  // Known before its time (the workload is read ahead): it takes the thread after the
  // work ready before it, which completions still to come may add to, so it is held
  // apart and joins the thread's queue once the run has passed its arrival. Its own
  // time counts the round-0 builds ahead of it.
  report_.frontend_busy_s += request_cpu_s_;
  Nanos free = frontend_free_;
  for (const Nanos ahead : first_rounds_) free = std::max(free, ahead) + to_nanos(request_cpu_s_);
  first_rounds_.push_back(arrival);
  return std::max(free, arrival) + to_nanos(request_cpu_s_) + frontend_latency_;
}

std::optional<Request> BeamLoop::next() {
  pull_inner();
  // The workload's requests become round 0 in arrival order, each built by the front
  // end when its thread is free, up to the earliest round due (so what is handed out
  // keeps to arrival order).
  while (lookahead_ && (due_.empty() || lookahead_->arrival <= due_.top().time)) {
    const Nanos arrival = lookahead_->arrival;
    const std::int32_t slot = admit(std::move(*lookahead_));
    lookahead_.reset();
    due_.push(Due{frontend_builds_first_round(arrival), slot});
    pull_inner();
  }
  // (A request's arrival is its due time less the front-end latency.)
  if (returned_ && (due_.empty() || returned_->arrival + frontend_latency_ <= due_.top().time)) {
    Request r = std::move(*returned_);
    returned_.reset();
    r.id = issued_++;  // handed out again: ids stay in hand-out order
    return r;
  }
  if (due_.empty()) return std::nullopt;
  // Due times are when the engine gets the request; the run adds the front-end
  // latency to every arrival, which only round 0 pays (HTTP, tokenization once).
  const Due d = due_.top();
  Request r = make_request(d.slot, d.time - frontend_latency_);
  if (slots_[static_cast<std::size_t>(d.slot)].to_send == 0) due_.pop();
  return r;
}

void BeamLoop::put_back(Request&& r) { returned_ = std::move(r); }

std::optional<Nanos> BeamLoop::earliest() const {
  Nanos t = kNever;
  if (returned_) t = std::min(t, returned_->arrival);
  if (!due_.empty()) t = std::min(t, due_.top().time - frontend_latency_);
  if (lookahead_) t = std::min(t, lookahead_->arrival);
  if (t == kNever) return std::nullopt;
  return t;
}

bool BeamLoop::exhausted() const {
  if (returned_ || lookahead_ || !due_.empty()) return false;
  for (const Beam& b : slots_)
    if (b.in_flight > 0) return false;
  return inner_.exhausted();
}

bool BeamLoop::first_round(const Request& r) const {
  return slots_[static_cast<std::size_t>(r.session)].round == 0;
}

void BeamLoop::on_complete(const Request& r, Nanos completion_time) {
  absorb_first_rounds(completion_time);  // the run has passed them
  const std::int32_t slot = r.session;
  Beam& b = slots_[static_cast<std::size_t>(slot)];
  if (--b.in_flight > 0) return;
  if (b.failed || b.round + 1 >= b.output) {
    // Its last round (or a failure) ends it: the workload hears of it once.
    Request done;
    done.id = b.id;
    done.arrival = b.arrival;
    done.input_tokens = b.prompt;
    done.output_tokens = b.output;
    if (b.failed) inner_.on_failed(done, completion_time);
    else inner_.on_complete(done, completion_time);
    free_.push_back(slot);
    return;
  }
  // The front end turns the round's outputs into the next round's b requests, on one
  // thread that every request's rounds share.
  ++b.round;
  b.to_send = beams_;
  due_.push(Due{frontend_builds(completion_time, beams_), slot});
}

RequestRecord BeamLoop::record_of(const Beam& b) const {
  RequestRecord rec;
  rec.id = b.id;
  rec.replica = b.replica;
  rec.arrival = b.arrival;
  rec.first_scheduled = b.first_scheduled;
  rec.input_tokens = b.prompt;
  rec.output_tokens = b.output;
  rec.sequences = beams_;
  return rec;
}

void BeamLoop::on_request_done(const RequestRecord& r) {
  Beam& b = slots_[static_cast<std::size_t>(r.session)];
  ++report_.requests;
  if (b.round > 0) {
    report_.reprefilled += r.input_tokens - r.cached_tokens;
    report_.cached += r.cached_tokens;
  }
  if (b.failed) return;  // already reported
  if (r.failed) {
    b.failed = true;
    b.replica = r.replica;
    RequestRecord rec = record_of(b);
    rec.failed = true;
    rec.failure = r.failure;
    rec.finish = r.finish;
    down_.on_request_done(rec);
    return;
  }
  if (b.round == 0) {
    b.first_scheduled = r.first_scheduled;
    b.first_token = r.first_token;
    b.cached = r.cached_tokens;
    b.previous_round_end = r.finish;
  }
  b.preemptions += r.preemptions;
  b.replica = r.replica;
  b.round_end = std::max(b.round_end, r.finish);
  if (++b.recorded < round_size(b)) return;
  // The round is over: each beam has one more token.
  b.recorded = 0;
  if (b.round > 0) {
    down_.on_itl(to_seconds(b.round_end - b.previous_round_end), beams_);
    b.previous_round_end = b.round_end;
  }
  if (b.round + 1 < b.output) return;
  RequestRecord rec = record_of(b);
  rec.first_token = b.first_token;
  rec.finish = b.round_end;
  rec.cached_tokens = b.cached;
  rec.preemptions = b.preemptions;
  down_.on_request_done(rec);
}

}  // namespace servesim
