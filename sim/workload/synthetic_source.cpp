#include "workload/synthetic_source.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "workload/prefix_hash.h"
#include "workload/prompt_ids.h"
#include "workload/session_source.h"
#include "workload/trace_source.h"

namespace servesim {

SyntheticSource::SyntheticSource(const WorkloadSpec& spec)
    : spec_(spec),
      arrivals_rng_(spec.seed, "arrivals"),
      input_rng_(spec.seed, "input_tokens"),
      output_rng_(spec.seed, "output_tokens"),
      prefix_rng_(spec.seed, "prefix_groups"),
      input_length_(spec.input_tokens),
      output_length_(spec.output_tokens) {
  if (spec_.trace) throw std::logic_error("SyntheticSource: the workload is a trace (use make_request_source)");
  if (spec_.duration_s) duration_end_ = to_nanos(*spec_.duration_s);
  block_ = spec_.hash_block_tokens.value_or(kDefaultHashBlockTokens);
  if (spec_.shared_prefix && spec_.shared_prefix->prompts_per_group > 0) {
    const SharedPrefixSpec& sp = *spec_.shared_prefix;
    const std::int64_t distinct = sp.groups * sp.prompts_per_group;
    prompt_question_.reserve(static_cast<std::size_t>(distinct));
    for (std::int64_t p = 0; p < distinct; ++p) prompt_question_.push_back(input_length_(input_rng_));
    if (sp.random_assign) {
      prompt_order_.resize(static_cast<std::size_t>(distinct));
      for (std::int64_t p = 0; p < distinct; ++p) prompt_order_[static_cast<std::size_t>(p)] = p;
      for (std::int64_t i = distinct - 1; i > 0; --i)  // Fisher-Yates
        std::swap(prompt_order_[static_cast<std::size_t>(i)],
                  prompt_order_[static_cast<std::size_t>(prefix_rng_.uniform_int(0, i))]);
    }
  }
  if (spec_.arrival.kind == ArrivalKind::closed_loop) {
    think_ = to_nanos(spec_.arrival.think_time_s);
    users_alive_ = spec_.arrival.users;
    if (spec_.multi_turn) user_session_.resize(static_cast<std::size_t>(spec_.arrival.users));
    for (std::int64_t u = 0; u < spec_.arrival.users; ++u) ready_.emplace(Nanos{0}, static_cast<std::int32_t>(u));
  } else {
    open_.emplace(spec_.arrival);
    lookahead_ = pull_open_arrival();
  }
}

std::optional<Nanos> SyntheticSource::pull_open_arrival() {
  if (count_reached()) return std::nullopt;  // do not draw past the last request
  const std::optional<Nanos> t = open_->next(arrivals_rng_);
  if (!t || !within_duration(*t)) return std::nullopt;
  return t;
}

std::int64_t SyntheticSource::pick_group(std::uint64_t index) {
  const SharedPrefixSpec& sp = *spec_.shared_prefix;
  if (sp.random_assign) return prefix_rng_.uniform_int(0, sp.groups - 1);
  return static_cast<std::int64_t>(index % static_cast<std::uint64_t>(sp.groups));
}

Request SyntheticSource::make_request(Nanos arrival, std::int32_t session) {
  Request r;
  r.id = issued_++;
  r.arrival = arrival;
  r.session = session;
  if (!spec_.shared_prefix) {
    r.input_tokens = input_length_(input_rng_);
  } else {
    const SharedPrefixSpec& sp = *spec_.shared_prefix;
    if (sp.prompts_per_group > 0) {
      // Cycle through the distinct prompts; a repeated prompt is the same text.
      const auto distinct = static_cast<std::uint64_t>(prompt_question_.size());
      const auto k = static_cast<std::size_t>(static_cast<std::uint64_t>(r.id) % distinct);
      const std::int64_t p = sp.random_assign ? prompt_order_[k] : static_cast<std::int64_t>(k);
      const std::int64_t group = p % sp.groups;
      r.input_tokens = sp.tokens + prompt_question_[static_cast<std::size_t>(p)];
      r.block_hashes = prompt_hashes_(r.input_tokens, block_, group, sp.tokens, HashOwner::prompt,
                                           static_cast<std::uint64_t>(p));
      // Its ids after the system prompt's are prompt p's, and every later request of
      // p repeats this whole prompt (Request::extended_later: cached as runs).
      r.unique_hashes_from =
          static_cast<std::int32_t>(block_ > 0 ? std::min(r.input_tokens / block_, sp.tokens / block_) : 0);
      r.extended_later = true;
    } else {
      const std::int64_t group = pick_group(static_cast<std::uint64_t>(r.id));
      r.input_tokens = sp.tokens + input_length_(input_rng_);
      r.hash_block_tokens = block_;
      // The blocks after the system prompt's are owned by this request id alone,
      // and the system prompt's follow from its first: only that one id is stored
      // (Request::own_ids_implied, system_ids_implied).
      if (!imply_prompt_ids(r, group, sp.tokens))  // no full system-prompt block: every id is the request's, stored
        r.block_hashes = prompt_hashes_(r.input_tokens, block_, group, sp.tokens, HashOwner::request,
                                        static_cast<std::uint64_t>(r.id));
    }
    r.hash_block_tokens = block_;
  }
  r.output_tokens = output_length_(output_rng_);
  return r;
}

Request SyntheticSource::make_turn(Nanos arrival, Session& s, std::int32_t session_field) {
  Request r;
  r.id = issued_++;
  r.arrival = arrival;
  r.session = session_field;
  const std::int64_t question = input_length_(input_rng_);
  const std::int64_t prefix = spec_.shared_prefix ? spec_.shared_prefix->tokens : 0;
  if (s.turn == 0) {
    s.group = spec_.shared_prefix ? pick_group(s.uid) : -1;
    r.input_tokens = prefix + question;
  } else {
    r.input_tokens = s.context + question;
  }
  r.output_tokens = output_length_(output_rng_);
  r.block_hashes = prompt_hashes_(r.input_tokens, block_, s.group, prefix, HashOwner::session, s.uid);
  r.hash_block_tokens = block_;
  // Its ids after the system prompt's are the conversation's, and its later turns
  // start with this whole prompt (Request::extended_later).
  const std::int64_t system_ids = s.group >= 0 && block_ > 0 ? std::min(r.input_tokens / block_, prefix / block_) : 0;
  r.unique_hashes_from = static_cast<std::int32_t>(system_ids);
  r.extended_later = true;
  s.context = r.input_tokens + r.output_tokens;
  ++s.turn;
  return r;
}

std::optional<Request> SyntheticSource::next_open_multi_turn() {
  const MultiTurnSpec& mt = *spec_.multi_turn;
  const Nanos gap = to_nanos(mt.think_time_s);
  Nanos t = 0;
  Session s;
  bool fresh = false;
  // Turns of conversations whose user gave up are dropped (never sent).
  while (!turns_.empty() && !ended_.empty() && ended_.count(static_cast<std::int32_t>(turns_.top().session.uid))) {
    const PendingTurn dropped = turns_.top();
    turns_.pop();
    // Each turn issued pushes the next one, so this drop accounts for every later turn.
    std::int64_t left = 0;
    for (std::int64_t k = dropped.session.turn; k < mt.turns && within_duration(dropped.time + (k - dropped.session.turn) * gap); ++k)
      ++left;
    turns_not_sent_ += left;
    ended_.erase(static_cast<std::int32_t>(dropped.session.uid));
  }
  if (turns_.empty() && !lookahead_) return std::nullopt;
  // A later turn of a session in progress goes first at equal times.
  if (!turns_.empty() && (!lookahead_ || turns_.top().time <= *lookahead_)) {
    t = turns_.top().time;
    s = turns_.top().session;
    turns_.pop();
  } else {
    t = *lookahead_;
    s.uid = sessions_started_++;
    fresh = true;
  }
  Request r = make_turn(t, s, static_cast<std::int32_t>(s.uid));
  if (s.turn < mt.turns && within_duration(t + gap)) turns_.push(PendingTurn{t + gap, s});
  if (fresh) lookahead_ = pull_open_arrival();  // after make_turn, so the count includes this request
  return r;
}

std::optional<Request> SyntheticSource::next() {
  if (exhausted()) return std::nullopt;
  if (open_) {
    if (spec_.multi_turn) return next_open_multi_turn();
    const Nanos t = *lookahead_;
    Request r = make_request(t, -1);
    lookahead_ = pull_open_arrival();
    return r;
  }
  if (ready_.empty()) return std::nullopt;  // every live user has a request outstanding
  const auto [t, user] = ready_.top();
  ready_.pop();
  if (!spec_.multi_turn) return make_request(t, user);
  Session& s = user_session_[static_cast<std::size_t>(user)];
  if (s.turn == 0 || s.turn >= spec_.multi_turn->turns) s = Session{sessions_started_++, -1, 0, 0};
  return make_turn(t, s, user);
}

void SyntheticSource::on_abandon(const Request& r, Nanos time) {
  if (spec_.multi_turn) {
    if (open_) {
      ended_.insert(r.session);  // its pending turn (if any) is dropped when it comes up
      return;
    }
    // Closed loop: the user's next request starts a new conversation.
    user_session_[static_cast<std::size_t>(r.session)].turn = spec_.multi_turn->turns;
  }
  on_complete(r, time);
}

bool SyntheticSource::withdrawn(const Request& r) {
  if (!open_ || !spec_.multi_turn || ended_.empty() || ended_.count(r.session) == 0) return false;
  ++turns_not_sent_;
  return true;
}

void SyntheticSource::on_complete(const Request& r, Nanos completion_time) {
  if (open_) return;
  if (r.session < 0 || r.session >= spec_.arrival.users)
    throw std::logic_error("SyntheticSource::on_complete: request is not from this closed-loop source");
  const Nanos t = completion_time + think_;
  if (count_reached() || !within_duration(t)) {
    --users_alive_;  // this user will never send again
    return;
  }
  ready_.emplace(t, r.session);
}

bool SyntheticSource::exhausted() const {
  if (count_reached()) return true;
  if (open_) return !lookahead_.has_value() && turns_.empty();
  return users_alive_ == 0;
}

std::int64_t SyntheticSource::expected_total() const {
  // A duration cap or a duration stage makes the count depend on the draws.
  if (spec_.duration_s) return -1;
  switch (spec_.arrival.kind) {
    case ArrivalKind::closed_loop:
    case ArrivalKind::all_at_once: return spec_.requests;
    case ArrivalKind::multi_stage: {
      const std::int64_t own = arrival_count(spec_.arrival);
      if (own < 0) return -1;
      if (spec_.multi_turn) {
        // Sessions whose later turns fall after a duration stage may be cut; with
        // count-only stages every session runs all its turns.
        const std::int64_t all = own * spec_.multi_turn->turns;
        return spec_.requests < 0 ? all : std::min(all, spec_.requests);
      }
      return spec_.requests < 0 ? own : std::min(own, spec_.requests);
    }
    default: return spec_.requests;  // an endless renewal process, cut by the count
  }
}

std::unique_ptr<RequestSource> make_request_source(const WorkloadSpec& spec) {
  if (spec.trace) return make_trace_source(spec);
  if (spec.multi_turn && spec.multi_turn->closed) return std::make_unique<SessionSource>(spec);
  return std::make_unique<SyntheticSource>(spec);
}

std::unique_ptr<RequestSource> make_synthetic_source(const WorkloadSpec& spec) { return make_request_source(spec); }

}  // namespace servesim
