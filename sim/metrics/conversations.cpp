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
  } else if (r.failure == FailureReason::abandoned) {
    c.abandoned = true;
    c.wait_s += to_seconds(r.finish - r.arrival);
  }
  // Closed loop: a user's turns are sequential, so an abandoned turn is its
  // conversation's last. Open loop: a turn sent before the abandonment may
  // still come, so an abandoned conversation stays open to the end.
  if (c.turns_seen >= turns_ || (closed_loop_ && c.abandoned)) {
    close(c);
    open_.erase(it);
  }
}

void ConversationTracker::close(const Open& c) {
  if (c.abandoned) ++abandoned_;
  else if (c.turns_served == turns_) ++completed_;
  else ++cut_;
  wait_ms_.push_back(c.wait_s * 1e3);
  duration_s_.push_back(to_seconds(c.last_end - c.first_arrival));
  turns_served_.push_back(static_cast<double>(c.turns_served));
}

ConversationSummary ConversationTracker::summarize() {
  // In session order, so the samples (and so nothing else) depend on the hash map's order.
  std::map<std::int32_t, Open> rest(open_.begin(), open_.end());
  for (const auto& [session, c] : rest) close(c);
  open_.clear();
  ConversationSummary s;
  s.reported = true;
  s.completed = completed_;
  s.abandoned = abandoned_;
  s.cut = cut_;
  s.conversations = completed_ + abandoned_ + cut_;
  s.wait_ms = summarize_values(wait_ms_);
  s.duration_s = summarize_values(duration_s_);
  s.turns_served = summarize_values(turns_served_);
  return s;
}

}  // namespace servesim
