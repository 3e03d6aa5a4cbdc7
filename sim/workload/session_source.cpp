#include "workload/session_source.h"

#include <algorithm>
#include <stdexcept>

#include "util/units.h"
#include "workload/duration_distribution.h"

namespace servesim {

namespace {
// A LengthSpec the sampler never reads (no tool calls): any valid one.
LengthSpec tool_output_spec(const WorkloadSpec& spec) {
  if (spec.multi_turn && spec.multi_turn->tool_calls) return spec.multi_turn->tool_calls->output_tokens;
  return LengthSpec{};
}
}  // namespace

SessionSource::SessionSource(const WorkloadSpec& spec)
    : spec_(spec),
      mt_(spec.multi_turn ? *spec.multi_turn : MultiTurnSpec{}),
      arrivals_rng_(spec.seed, "arrivals"),
      input_length_(spec.input_tokens),
      output_length_(spec.output_tokens),
      tool_output_length_(tool_output_spec(spec)) {
  if (!spec_.multi_turn || !mt_.closed || spec_.trace || spec_.arrival.kind == ArrivalKind::closed_loop)
    throw std::logic_error("SessionSource: needs multi_turn with loop: closed and an open arrival process");
  if (spec_.duration_s) duration_end_ = to_nanos(*spec_.duration_s);
  block_ = spec_.hash_block_tokens.value_or(kDefaultHashBlockTokens);
  prefix_ = spec_.shared_prefix ? spec_.shared_prefix->tokens : 0;
  open_.emplace(spec_.arrival);
  lookahead_ = pull_start();
}

std::optional<Nanos> SessionSource::pull_start() {
  if (count_reached()) return std::nullopt;
  const std::optional<Nanos> t = open_->next(arrivals_rng_);
  if (!t || !within_duration(*t)) return std::nullopt;
  return t;
}

RandomStream SessionSource::turn_stream(std::uint64_t key, std::int64_t turn) const {
  // SplitMix64 of (seed, session key, turn) seeds the stream: distinct keys, well-mixed seeds.
  std::uint64_t state = spec_.seed ^ (key * 0xD1B54A32D192ED03ULL) ^
                        (static_cast<std::uint64_t>(turn + 1) * 0x9E3779B97F4A7C15ULL);
  return RandomStream(splitmix64(state), "session_turn");
}

std::int32_t SessionSource::start_session(std::int32_t parent, std::int64_t index, std::int64_t turns) {
  const std::int32_t id = next_id_++;
  Session s;
  s.parent = parent;
  if (parent < 0) {
    s.key = static_cast<std::uint64_t>(top_level_started_);
    RandomStream own = turn_stream(s.key, -1);
    s.turns = mt_.max_turns > mt_.turns ? own.uniform_int(mt_.turns, mt_.max_turns) : mt_.turns;
    if (spec_.shared_prefix) {
      const SharedPrefixSpec& sp = *spec_.shared_prefix;
      s.group = sp.random_assign ? own.uniform_int(0, sp.groups - 1) : top_level_started_ % sp.groups;
    }
    ++top_level_started_;
    ++stats_.sessions;
  } else {
    const Session& p = sessions_.at(parent);
    // The top bit set keeps sub-agents' keys apart from the top-level indices.
    std::uint64_t mix = p.key * 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(p.turn) << 32 ^
                        static_cast<std::uint64_t>(index);
    s.key = splitmix64(mix) | (1ULL << 63);
    s.group = p.group;
    s.turns = turns;
    ++stats_.subagents;
  }
  sessions_.emplace(id, s);
  return id;
}

Request SessionSource::make_turn(Nanos arrival, std::int32_t id, Session& s) {
  RandomStream rng = turn_stream(s.key, s.turn);
  Request r;
  r.id = issued_++;
  r.arrival = arrival;
  r.session = id;
  if (s.turn == 0) r.input_tokens = prefix_ + input_length_(rng);
  else r.input_tokens = s.context + s.appended;
  r.output_tokens = output_length_(rng);
  r.block_hashes = prompt_hashes_(r.input_tokens, block_, s.group, prefix_, HashOwner::session, s.key);
  r.hash_block_tokens = block_;
  // Its ids after the system prompt's are the session's, and its later turns
  // start with this whole prompt (Request::extended_later).
  const std::int64_t system_ids = s.group >= 0 && block_ > 0 ? std::min(r.input_tokens / block_, prefix_ / block_) : 0;
  r.unique_hashes_from = static_cast<std::int32_t>(system_ids);
  r.extended_later = true;
  r.last_turn = s.turn + 1 >= s.turns;
  s.context = r.input_tokens + r.output_tokens;
  ++s.turn;
  // What follows this turn, drawn with it: one uniform picks fork / tool / think.
  if (!r.last_turn) {
    const double u = rng.uniform01();
    const double p_fork = s.parent < 0 && mt_.subagents ? mt_.subagents->probability : 0.0;
    const double p_tool = mt_.tool_calls ? mt_.tool_calls->probability : 0.0;
    if (u < p_fork) {
      s.follow = Follow::fork;
      s.follow_s = 0;
      s.follow_tokens = 0;
    } else if (u < p_fork + p_tool) {
      s.follow = Follow::tool;
      const DurationSpec& d = mt_.tool_calls->duration;
      const double u0 = rng.uniform01();
      const double u1 = d.uses_second_uniform() ? rng.uniform01() : 0.5;
      s.follow_s = std::min(sample_duration(d, u0, u1), kMaxDurationSeconds);
      s.follow_tokens = tool_output_length_(rng);
    } else {
      s.follow = Follow::think;
      if (mt_.think) {
        const double u0 = rng.uniform01();
        const double u1 = mt_.think->uses_second_uniform() ? rng.uniform01() : 0.5;
        s.follow_s = std::min(sample_duration(*mt_.think, u0, u1), kMaxDurationSeconds);
      } else {
        s.follow_s = mt_.think_time_s;
      }
      s.follow_tokens = input_length_(rng);  // the user's next question
    }
  }
  return r;
}

void SessionSource::schedule(std::int32_t id, Nanos at) {
  if (!within_duration(at)) {
    // Cut by the run's duration: its remaining turns are never sent.
    Session& s = sessions_.at(id);
    turns_not_sent_ += s.turns - s.turn;
    finish_session(id, 0, at);
    return;
  }
  due_.push(Due{at, id});
}

void SessionSource::finish_session(std::int32_t id, std::int64_t answer_tokens, Nanos at) {
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  const std::int32_t parent = it->second.parent;
  sessions_.erase(it);
  if (parent < 0) return;
  Session& p = sessions_.at(parent);
  p.joined_tokens += answer_tokens;
  if (--p.children > 0) return;
  ++stats_.joins;
  p.appended = p.joined_tokens;
  p.joined_tokens = 0;
  schedule(parent, at);
}

void SessionSource::end_session(const Request& r, Nanos at) {
  const auto it = sessions_.find(r.session);
  if (it == sessions_.end()) return;
  turns_not_sent_ += it->second.turns - it->second.turn;
  finish_session(r.session, 0, at);
}

void SessionSource::on_complete(const Request& r, Nanos completion_time) {
  const auto it = sessions_.find(r.session);
  if (it == sessions_.end()) throw std::logic_error("SessionSource::on_complete: the request is not from this source");
  if (r.last_turn) {
    finish_session(r.session, r.output_tokens, completion_time);
    return;
  }
  Session& s = it->second;
  switch (s.follow) {
    case Follow::think:
      stats_.think_s += s.follow_s;
      s.appended = s.follow_tokens;
      schedule(r.session, completion_time + to_nanos(s.follow_s));
      break;
    case Follow::tool:
      ++stats_.tool_calls;
      stats_.tool_s += s.follow_s;
      s.appended = s.follow_tokens;
      schedule(r.session, completion_time + to_nanos(s.follow_s));
      break;
    case Follow::fork: {
      const std::int64_t count = mt_.subagents->count;
      s.children = count;
      s.joined_tokens = 0;
      for (std::int64_t c = 0; c < count; ++c)
        schedule(start_session(r.session, c, mt_.subagents->turns), completion_time);
      break;
    }
  }
}

std::optional<Nanos> SessionSource::earliest() const {
  std::optional<Nanos> t = lookahead_;
  if (!due_.empty() && (!t || due_.top().time < *t)) t = due_.top().time;
  if (const std::ptrdiff_t k = first_returned(); k >= 0) {
    const Nanos a = returned_[static_cast<std::size_t>(k)].arrival;
    if (!t || a < *t) t = a;
  }
  return t;
}

std::ptrdiff_t SessionSource::first_returned() const {
  std::ptrdiff_t best = -1;
  for (std::size_t k = 0; k < returned_.size(); ++k)
    if (best < 0 || returned_[k].arrival < returned_[static_cast<std::size_t>(best)].arrival)
      best = static_cast<std::ptrdiff_t>(k);
  return best;
}

void SessionSource::put_back(Request&& r) {
  // It is handed out again later with the next id; the ids stay in hand-out order.
  if (r.id == issued_ - 1) --issued_;
  returned_.push_back(std::move(r));
}

std::optional<Request> SessionSource::next() {
  if (count_reached()) return std::nullopt;
  // The earliest of: the request held back, a due turn, a new session (ties in that order).
  const bool have_due = !due_.empty();
  const Nanos due_t = have_due ? due_.top().time : 0;
  if (const std::ptrdiff_t k = first_returned(); k >= 0) {
    const auto it = returned_.begin() + k;
    if ((!have_due || it->arrival <= due_t) && (!lookahead_ || it->arrival <= *lookahead_)) {
      Request r = std::move(*it);
      returned_.erase(it);
      r.id = issued_++;
      return r;
    }
  }
  if (have_due && (!lookahead_ || due_t <= *lookahead_)) {
    const std::int32_t id = due_.top().session;
    due_.pop();
    return make_turn(due_t, id, sessions_.at(id));
  }
  if (!lookahead_) return std::nullopt;  // sessions in progress wait for answers
  const Nanos t = *lookahead_;
  const std::int32_t id = start_session();
  Request r = make_turn(t, id, sessions_.at(id));
  lookahead_ = pull_start();  // after make_turn, so the count includes this request
  return r;
}

bool SessionSource::exhausted() const {
  if (count_reached()) return true;
  return !lookahead_ && due_.empty() && returned_.empty() && sessions_.empty();
}

std::int64_t SessionSource::expected_total() const {
  // Sessions end early (failures, the duration): the count is known only as a cap
  // of an endless arrival process.
  if (spec_.duration_s) return -1;
  switch (spec_.arrival.kind) {
    case ArrivalKind::poisson:
    case ArrivalKind::gamma:
    case ArrivalKind::constant: return spec_.requests;
    default: return -1;
  }
}

}  // namespace servesim
