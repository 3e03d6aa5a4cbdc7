#pragma once
// Synthetic requests from a WorkloadSpec, generated lazily one at a time.
//
// Request k (ids 0, 1, 2, ... in arrival order) takes its arrival from the
// "arrivals" stream, its prompt length from "input_tokens" and its output length
// from "output_tokens", each a RandomStream of spec.seed. Separate streams mean
// that changing the arrival process leaves the length sequence unchanged.
//
// Requests stop after spec.requests, when the arrival schedule ends, or at the
// first arrival later than spec.duration_s, whichever comes first.
//
// Closed loop: all users send at t = 0 (session = user index, in user order);
// each later request of a user arrives think_time after on_complete reports the
// previous one. Because the think time is constant and completions are reported
// in time order, next() still returns requests in non-decreasing arrival order.
//
// Shared prefixes (spec.shared_prefix, see SharedPrefixSpec): input_tokens is
// the group's system prompt plus the question drawn from "input_tokens"; random
// group choices come from the "prefix_groups" stream. block_hashes (blocks of
// spec.hash_block_tokens, default 16, full blocks only) start with the group's
// floor(T / block) system-prompt hashes, then hashes owned by the request (or
// by the distinct prompt, with prompts_per_group). Without shared_prefix or
// multi_turn, block_hashes is empty (nothing is shared).
//
// Multi-turn sessions (spec.multi_turn, see MultiTurnSpec): turn i's prompt is
// the session's earlier prompts and outputs plus a new question, and its block
// hashes are the session's token stream's (so earlier turns' blocks are its
// prefix; they include the earlier outputs, as vLLM caches generated blocks
// too). Open loop: session s starts at the s-th arrival of the process and its
// turn i arrives at start + i * think_time; Request::session is the session
// number. Closed loop: Request::session is the user, who runs sessions back to
// back. spec.requests counts turns.
//
// Users who give up (workload.patience): an abandoned turn ends its
// conversation. Open loop: its turns not yet sent are dropped (turns_not_sent;
// one already handed out is withdrawn at its arrival); turns already sent stay.
// Closed loop: the user's next request, after its think time, starts a new
// conversation.
//
// Memory: O(1) for open loop, O(users) for closed loop, plus O(sessions in
// progress) with multi_turn and O(groups * prompts_per_group) with it set.
#include <cstdint>
#include <optional>
#include <queue>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "workload/arrival_process.h"
#include "workload/length_distribution.h"
#include "workload/prefix_hash.h"
#include "workload/request_source.h"
#include "workload/workload_spec.h"

namespace servesim {

class SyntheticSource final : public RequestSource {
 public:
  explicit SyntheticSource(const WorkloadSpec& spec);

  std::optional<Request> next() override;
  void on_complete(const Request& r, Nanos completion_time) override;
  void on_abandon(const Request& r, Nanos time) override;
  bool withdrawn(const Request& r) override;
  std::int64_t turns_not_sent() const override { return turns_not_sent_; }
  bool exhausted() const override;
  std::int64_t expected_total() const override;

 private:
  // One multi-turn conversation in progress.
  struct Session {
    std::uint64_t uid = 0;       // sessions numbered 0, 1, 2, ... as they start
    std::int64_t group = -1;     // shared-prefix group, -1 without shared_prefix
    std::int64_t context = 0;    // tokens so far: last prompt + its output
    std::int64_t turn = 0;       // turns already issued
  };
  struct PendingTurn {
    Nanos time = 0;
    Session session;
    bool operator>(const PendingTurn& o) const {
      return time != o.time ? time > o.time : session.uid > o.session.uid;
    }
  };

  bool count_reached() const { return spec_.requests >= 0 && issued_ >= spec_.requests; }
  bool within_duration(Nanos t) const { return !duration_end_ || t <= *duration_end_; }
  std::optional<Nanos> pull_open_arrival();
  Request make_request(Nanos arrival, std::int32_t session);
  Request make_turn(Nanos arrival, Session& s, std::int32_t session_field);
  std::int64_t pick_group(std::uint64_t index);
  std::optional<Request> next_open_multi_turn();

  WorkloadSpec spec_;
  std::optional<Nanos> duration_end_;
  RandomStream arrivals_rng_;
  RandomStream input_rng_;
  RandomStream output_rng_;
  RandomStream prefix_rng_;
  LengthSampler input_length_, output_length_;  // spec_.input_tokens, spec_.output_tokens
  std::int32_t block_ = kDefaultHashBlockTokens;
  PromptBlockHashes prompt_hashes_;  // prompt_block_hashes, system prompts hashed once
  std::int64_t issued_ = 0;

  // Open loop: the arrival process and a one-arrival lookahead, so that
  // exhausted() is exact as soon as the last request has been handed out.
  std::optional<OpenLoopArrivals> open_;
  std::optional<Nanos> lookahead_;

  // Closed loop: users ready to send, earliest first (ties by user index).
  using Ready = std::pair<Nanos, std::int32_t>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready_;
  Nanos think_ = 0;
  std::int64_t users_alive_ = 0;  // users that may still send (ready or outstanding)

  // shared_prefix with prompts_per_group: each distinct prompt's question
  // length, and (assign: random) the order requests cycle through them.
  std::vector<std::int64_t> prompt_question_;
  std::vector<std::int64_t> prompt_order_;

  // multi_turn: open loop's later turns, earliest first; closed loop's
  // conversation per user.
  std::priority_queue<PendingTurn, std::vector<PendingTurn>, std::greater<>> turns_;
  std::vector<Session> user_session_;
  std::uint64_t sessions_started_ = 0;
  // Open-loop multi_turn with patience: conversations whose user gave up (their
  // pending turns are dropped, not sent), and how many turns were dropped.
  std::unordered_set<std::int32_t> ended_;
  std::int64_t turns_not_sent_ = 0;
};

}  // namespace servesim
