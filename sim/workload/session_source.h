#pragma once
// Closed-loop sessions under an open arrival process (`workload.multi_turn`
// with `loop: closed`): agent loops and chats whose next turn is sent only once
// the previous answer has finished.
//
// The arrival process (poisson, gamma, constant, multi_stage, or all_at_once:
// every session at t = 0) starts sessions. A session of T turns (multi_turn.turns,
// or uniform on [turns, max_turns]) sends turn 0 at its start: the group's system
// prompt (shared_prefix) plus a question drawn from workload.input_tokens. After
// turn k's answer finishes at time f (k < T - 1), one of three things happens,
// drawn in this order:
//  - with subagents.probability: `count` sub-agents fork at f, each a session of
//    its own (system prompt + a task drawn from input_tokens, `subagents.turns`
//    turns, tool calls as below, no further forks); when the last of them has
//    answered its last turn (at time j), turn k+1 is sent at j with the sum of
//    their last answers' tokens appended to the context;
//  - else with tool_calls.probability: the answer was a tool call; the tool runs
//    for tool_calls.duration and turn k+1 is sent at f + duration with the tool's
//    output (tool_calls.output_tokens) appended;
//  - else the user thinks (think_time, or the `think` distribution) and sends
//    turn k+1 at f + think with a new question appended.
// A turn's prompt is its session's context (every earlier prompt and answer)
// plus what was appended; its block hashes are the session's token stream's, so
// earlier turns' blocks are its prefix (cached as the session's runs,
// Request::extended_later).
//
// Every draw of a session's turn k (question, output length, what follows it,
// tool duration and output, think time) comes from a stream keyed by (seed,
// session, k), and a session's length and group from one keyed by (seed,
// session): a session is the same whatever the engine's timing, so two runs that
// differ only in the serving side differ only in when things happen.
//
// A turn that fails (too long, larger than the KV cache) or is abandoned
// (workload.patience) ends its session; a sub-agent that ends so counts as
// joined with an empty answer. Turns that would be sent after workload.duration
// are not sent (the session is cut); workload.requests counts turns.
//
// Ordering: a completion may schedule a turn earlier than the request the
// simulation holds (random think and tool times), so this source may reorder
// (RequestSource::may_reorder): put_back keeps the returned requests and hands
// them out again, renumbered, when their time comes.
//
// Memory: O(sessions in progress).
#include <cstdint>
#include <optional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "workload/arrival_process.h"
#include "workload/length_distribution.h"
#include "workload/prefix_hash.h"
#include "workload/request_source.h"
#include "workload/workload_spec.h"

namespace servesim {

class SessionSource final : public RequestSource {
 public:
  // Precondition: spec.multi_turn with closed set, an arrival other than closed_loop.
  explicit SessionSource(const WorkloadSpec& spec);

  std::optional<Request> next() override;
  void on_complete(const Request& r, Nanos completion_time) override;
  void on_abandon(const Request& r, Nanos time) override { end_session(r, time); }
  void on_failed(const Request& r, Nanos time) override { end_session(r, time); }
  std::int64_t turns_not_sent() const override { return turns_not_sent_; }
  bool exhausted() const override;
  std::int64_t expected_total() const override;
  bool may_reorder() const override { return true; }
  std::optional<Nanos> earliest() const override;
  void put_back(Request&& r) override;
  const SessionStats* session_stats() const override { return &stats_; }

 private:
  enum class Follow : std::int8_t { think, tool, fork };
  struct Session {
    // Keys its draws and its prompt's block hashes: a top-level session's index
    // (sessions start in the arrival process's order), a sub-agent's a mix of its
    // parent's key, the forking turn and its index, so neither depends on the
    // order in which the engine's timing makes sub-agents start.
    std::uint64_t key = 0;
    std::int64_t group = -1;     // shared-prefix group, -1 without shared_prefix
    std::int64_t context = 0;    // tokens so far: last prompt + its answer
    std::int64_t turn = 0;       // turns sent
    std::int64_t turns = 1;      // turns in all
    std::int64_t appended = 0;   // tokens the next turn adds to the context
    std::int32_t parent = -1;    // a sub-agent's parent session, else -1
    std::int64_t children = 0;   // a parent's sub-agents still running
    std::int64_t joined_tokens = 0;  // their answers' tokens so far
    // What follows the turn in flight (drawn with it): think, tool call or fork,
    // the seconds it takes and the tokens it appends.
    Follow follow = Follow::think;
    double follow_s = 0;
    std::int64_t follow_tokens = 0;
  };
  // A turn due at `time` (ties: the lower session id first).
  struct Due {
    Nanos time;
    std::int32_t session;
    bool operator>(const Due& o) const { return time != o.time ? time > o.time : session > o.session; }
  };

  bool count_reached() const { return spec_.requests >= 0 && issued_ >= spec_.requests; }
  bool within_duration(Nanos t) const { return !duration_end_ || t <= *duration_end_; }
  std::optional<Nanos> pull_start();
  // A new top-level session (its turns and group drawn), or sub-agent `index` of
  // session `parent`'s fork, of `turns` turns.
  std::int32_t start_session(std::int32_t parent = -1, std::int64_t index = 0, std::int64_t turns = 0);
  Request make_turn(Nanos arrival, std::int32_t id, Session& s);
  // Schedules session `id`'s next turn at `at` (or cuts the session past the duration).
  void schedule(std::int32_t id, Nanos at);
  // Session `id` is over (its last answer, a failure or an abandonment): a sub-agent joins its parent.
  void finish_session(std::int32_t id, std::int64_t answer_tokens, Nanos at);
  void end_session(const Request& r, Nanos at);
  // The stream of turn `turn` of the session keyed `key` (turn -1: the session's own draws).
  RandomStream turn_stream(std::uint64_t key, std::int64_t turn) const;

  WorkloadSpec spec_;
  MultiTurnSpec mt_;
  std::optional<Nanos> duration_end_;
  RandomStream arrivals_rng_;
  LengthSampler input_length_, output_length_, tool_output_length_;
  std::int32_t block_ = kDefaultHashBlockTokens;
  std::int64_t prefix_ = 0;  // system prompt tokens
  PromptBlockHashes prompt_hashes_;
  std::int64_t issued_ = 0;
  std::int64_t turns_not_sent_ = 0;
  std::int32_t next_id_ = 0;  // sessions numbered 0, 1, 2, ... as they start (sub-agents included)
  std::int64_t top_level_started_ = 0;

  std::optional<OpenLoopArrivals> open_;
  std::optional<Nanos> lookahead_;  // the next session start
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::unordered_map<std::int32_t, Session> sessions_;
  // Put back by the simulation, sent again when due (earliest arrival first; a
  // handful at most: one per completion that made a turn due earlier).
  std::vector<Request> returned_;
  // The held-back request that goes first (-1: none).
  std::ptrdiff_t first_returned() const;
  SessionStats stats_;
};

}  // namespace servesim
