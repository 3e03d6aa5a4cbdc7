#include "metrics/conversations.h"

#include <algorithm>
#include <map>

namespace servesim {

void ConversationTracker::on_turn(const RequestRecord& r) {
  if (r.session < 0) return;
  auto [it, fresh] = open_.try_emplace(r.session);
  Open& c = it->second;
  if (fresh) c.first_arrival = r.arrival;
  c.first_arrival = std::min(c.first_arrival, r.arrival);
  c.last_end = std::max(c.last_end, r.finish);
  ++c.turns_seen;
  if (!r.failed) {
    ++c.turns_served;
    c.wait_s += to_seconds(r.first_token - r.arrival);
    if (sessions_) {
      c.answer_s += to_seconds(r.finish - r.arrival);
      // Of the context the previous turns computed, what neither the prefix cache
      // nor a KV tier gave back.
      const std::int64_t kept = std::min(c.context, r.cached_tokens + r.offload_tokens);
      c.reprefill += c.context - kept;
      context_total_ += c.context;
      c.context = r.input_tokens + r.output_tokens;
    }
  } else if (r.failure == FailureReason::abandoned) {
    c.abandoned = true;
    c.wait_s += to_seconds(r.finish - r.arrival);
  } else {
    c.failed = true;
  }
  // Closed loop: a user's turns are sequential, so an abandoned turn is its
  // conversation's last. Open loop: a turn sent before the abandonment may
  // still come, so an abandoned conversation stays open to the end. Closed-loop
  // sessions end at their last turn or at a failed one.
  const bool ends = sessions_ ? (r.last_turn || r.failed) : c.turns_seen >= turns_ || (closed_loop_ && c.abandoned);
  if (ends) {
    c.ended = r.last_turn && !r.failed;
    close(c);
    open_.erase(it);
  }
}

void ConversationTracker::close(const Open& c) {
  if (c.abandoned) ++abandoned_;
  else if (sessions_ ? c.ended : c.turns_served == turns_) ++completed_;
  else ++cut_;
  wait_ms_.add(c.wait_s * 1e3);
  duration_s_.add(to_seconds(c.last_end - c.first_arrival));
  turns_served_.add(static_cast<double>(c.turns_served));
  if (sessions_) {
    answer_s_.add(c.answer_s);
    reprefill_.add(static_cast<double>(c.reprefill));
    reprefill_total_ += c.reprefill;
  }
}

ConversationSummary ConversationTracker::summarize() {
  // In session order, so the samples (and so nothing else) depend on the hash map's order.
  std::map<std::int32_t, Open> rest(open_.begin(), open_.end());
  for (const auto& [session, c] : rest) close(c);
  open_.clear();
  ConversationSummary s;
  s.reported = true;
  s.sessions_closed = sessions_;
  s.completed = completed_;
  s.abandoned = abandoned_;
  s.cut = cut_;
  s.conversations = completed_ + abandoned_ + cut_;
  s.wait_ms = wait_ms_.summarize();
  s.duration_s = duration_s_.summarize();
  s.turns_served = turns_served_.summarize();
  if (sessions_) {
    s.answer_wait_s = answer_s_.summarize();
    s.reprefill_tokens = reprefill_.summarize();
    s.reprefill_total = reprefill_total_;
    s.context_total = context_total_;
  }
  return s;
}

}  // namespace servesim
