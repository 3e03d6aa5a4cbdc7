#pragma once
// Per-conversation metrics of a multi-turn workload (workload.multi_turn with
// conversation_metrics: true): what a user sees over a whole conversation rather
// than per request. A conversation is the requests sharing Request::session
// (open loop: one session; closed loop: one user's conversation, whose turns are
// sequential, so the next one of that user starts a new conversation; closed-loop
// sessions, multi_turn.loop: closed: one session or sub-agent, session_source.h).
//
// Its total wait is the sum over its turns of the time to the first token
// (TTFT; for the turn whose user gave up, the time waited until then), its
// duration is from its first turn's arrival to its last turn's end. It is
// `completed` when every turn was served, `abandoned` when a user gave up on a
// turn (workload.patience: the later turns are not sent), else `cut` (the run's
// requests or duration ended it, or a turn failed for another reason).
//
// Closed-loop sessions also report, per session: the time spent waiting for
// whole answers (the sum of its turns' E2E: the loop waits for each answer before
// it goes on) and the tokens re-prefilled: of each turn's context (the previous
// turn's prompt and answer, which were computed before), the part that was
// neither in the GPU prefix cache nor reloaded from a KV tier, so was computed
// again. A session closes at its last turn (Request::last_turn) or at any failed
// turn (which ends it).
//
// Memory: one entry per conversation in progress (open loop: abandoned ones are
// kept to the end of the run, since a turn sent before the abandonment may still
// finish); the per-conversation samples fold into histograms past a cap
// (sample_set.h), so memory is flat in the number of conversations.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "metrics/run_observer.h"
#include "metrics/sample_set.h"
#include "metrics/stats.h"
#include "workload/session_stats.h"

namespace servesim {

struct ConversationSummary {
  bool reported = false;  // conversation metrics were asked for
  bool sessions_closed = false;  // closed-loop sessions (the fields after turns_served)
  std::int64_t conversations = 0, completed = 0, abandoned = 0, cut = 0;
  std::int64_t turns_not_sent = 0;  // later turns never sent because a user gave up (filled by the simulation)
  Distribution wait_ms;             // total wait per conversation
  Distribution duration_s;          // first arrival to last turn's end
  Distribution turns_served;        // turns served per conversation
  // Closed-loop sessions only.
  Distribution answer_wait_s;       // sum of the turns' E2E per session
  Distribution reprefill_tokens;    // context tokens computed again per session
  std::int64_t reprefill_total = 0, context_total = 0;  // over all sessions: re-prefilled and reusable context tokens
  SessionStats sessions;            // the source's counts (filled by the simulation)
};

class ConversationTracker {
 public:
  static constexpr std::size_t kExactCap = 200000;
  // `sessions`: closed-loop sessions (multi_turn.loop: closed).
  ConversationTracker(std::int64_t turns, bool closed_loop, bool sessions = false)
      : turns_(turns), closed_loop_(closed_loop || sessions), sessions_(sessions) {}
  // A finished (or failed) turn; requests without a session are ignored.
  void on_turn(const RequestRecord& r);
  // Closes the conversations still open (as completed, abandoned or cut) and summarises.
  ConversationSummary summarize();

 private:
  struct Open {
    Nanos first_arrival = 0, last_end = 0;
    double wait_s = 0, answer_s = 0;
    std::int64_t turns_seen = 0, turns_served = 0;
    std::int64_t context = 0;    // sessions: the last served turn's prompt + answer
    std::int64_t reprefill = 0;  // sessions: context tokens computed again
    bool abandoned = false, failed = false, ended = false;
  };
  void close(const Open& c);

  std::int64_t turns_;
  bool closed_loop_;
  bool sessions_;
  std::unordered_map<std::int32_t, Open> open_;
  std::int64_t completed_ = 0, abandoned_ = 0, cut_ = 0;
  std::int64_t reprefill_total_ = 0, context_total_ = 0;
  SampleSet wait_ms_{kExactCap, false}, duration_s_{kExactCap, false}, turns_served_{kExactCap, false};
  SampleSet answer_s_{kExactCap, false}, reprefill_{kExactCap, false};
};

}  // namespace servesim
