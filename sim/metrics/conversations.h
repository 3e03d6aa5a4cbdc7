#pragma once
// Per-conversation metrics of a multi-turn workload (workload.multi_turn with
// conversation_metrics: true): what a user sees over a whole conversation rather
// than per request. A conversation is the requests sharing Request::session
// (open loop: one session; closed loop: one user's conversation, whose turns are
// sequential, so the next one of that user starts a new conversation).
//
// Its total wait is the sum over its turns of the time to the first token
// (TTFT; for the turn whose user gave up, the time waited until then), its
// duration is from its first turn's arrival to its last turn's end. It is
// `completed` when every turn was served, `abandoned` when a user gave up on a
// turn (workload.patience: the later turns are not sent), else `cut` (the run's
// requests or duration ended it, or a turn failed for another reason).
//
// Memory: one entry per conversation in progress (open loop: abandoned ones are
// kept to the end of the run, since a turn sent before the abandonment may still
// finish).
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "metrics/run_observer.h"
#include "metrics/stats.h"

namespace servesim {

struct ConversationSummary {
  bool reported = false;  // conversation metrics were asked for
  std::int64_t conversations = 0, completed = 0, abandoned = 0, cut = 0;
  std::int64_t turns_not_sent = 0;  // later turns never sent because a user gave up (filled by the simulation)
  Distribution wait_ms;             // total wait per conversation
  Distribution duration_s;          // first arrival to last turn's end
  Distribution turns_served;        // turns served per conversation
};

class ConversationTracker {
 public:
  ConversationTracker(std::int64_t turns, bool closed_loop) : turns_(turns), closed_loop_(closed_loop) {}
  // A finished (or failed) turn; requests without a session are ignored.
  void on_turn(const RequestRecord& r);
  // Closes the conversations still open (as completed, abandoned or cut) and summarises.
  ConversationSummary summarize();

 private:
  struct Open {
    Nanos first_arrival = 0, last_end = 0;
    double wait_s = 0;
    std::int64_t turns_seen = 0, turns_served = 0;
    bool abandoned = false;
  };
  void close(const Open& c);

  std::int64_t turns_;
  bool closed_loop_;
  std::unordered_map<std::int32_t, Open> open_;
  std::int64_t completed_ = 0, abandoned_ = 0, cut_ = 0;
  std::vector<double> wait_ms_, duration_s_, turns_served_;
};

}  // namespace servesim
