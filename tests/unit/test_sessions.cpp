// Closed-loop sessions (workload.multi_turn.loop: closed, session_source.h): turns
// that follow their answers, tool calls, sub-agents that fork and join, and the
// per-session metrics.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "run/simulation.h"
#include "test_sim_helpers.h"
#include "workload/session_source.h"
#include "workload/synthetic_source.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// Forwards to a SessionSource and records what was handed out and when each
// answer came, by session: the contract "a turn is sent only after the previous
// answer" is checked on what the simulation actually did.
class RecordingSource final : public RequestSource {
 public:
  explicit RecordingSource(const WorkloadSpec& spec) : inner_(spec) {}
  struct Turn {
    Nanos sent = 0, answered = -1;
    std::int64_t input = 0, output = 0;
    bool last = false;
  };
  std::optional<Request> next() override {
    std::optional<Request> r = inner_.next();
    if (r) handed_[r->id] = {r->session, r->arrival, r->input_tokens, r->output_tokens, r->last_turn};
    return r;
  }
  void on_complete(const Request& r, Nanos t) override {
    record(r, t);
    inner_.on_complete(r, t);
  }
  void on_abandon(const Request& r, Nanos t) override { inner_.on_abandon(r, t); }
  void on_failed(const Request& r, Nanos t) override {
    ++failed;
    inner_.on_failed(r, t);
  }
  bool exhausted() const override { return inner_.exhausted(); }
  std::int64_t expected_total() const override { return inner_.expected_total(); }
  bool may_reorder() const override { return true; }
  std::optional<Nanos> earliest() const override { return inner_.earliest(); }
  void put_back(Request&& r) override {
    handed_.erase(r.id);
    ++put_back_count;
    inner_.put_back(std::move(r));
  }
  const SessionStats* session_stats() const override { return inner_.session_stats(); }

  // Each session's answered turns, in the order they were sent.
  std::map<std::int32_t, std::vector<Turn>> sessions;
  std::int64_t failed = 0, put_back_count = 0;

 private:
  void record(const Request& r, Nanos t) {
    const auto& [session, sent, input, output, last] = handed_.at(r.id);
    sessions[session].push_back(Turn{sent, t, input, output, last});
  }
  SessionSource inner_;
  std::map<std::int64_t, std::tuple<std::int32_t, Nanos, std::int64_t, std::int64_t, bool>> handed_;
};

const std::string kFixed = "input_tokens: {dist: fixed, value: 256}, output_tokens: {dist: fixed, value: 32}";

}  // namespace

TEST_CASE("closed-loop sessions: a turn is sent only after the previous answer, plus the think time",
          "[workload][sessions]") {
  // 300 sessions of 4..8 turns started at 20/s, exponential think times (mean 0.5 s):
  // the engine is busy, so answers take a varying time and turns interleave.
  const Scenario sc = scenario_from(
      "{kind: vllm, max_num_seqs: 32}",
      "{arrival: {process: multi_stage, stages: [{process: poisson, rate: 20, requests: 300}]}, " + kFixed +
          ", multi_turn: {turns: 4, max_turns: 8, loop: closed, think: {dist: exponential, mean: \"0.5 s\"}, "
          "conversation_metrics: true}}");
  RecordingSource source(sc.workload);
  const RunSummary s = simulate(sc, source).summary;
  REQUIRE(source.failed == 0);
  REQUIRE(source.sessions.size() == 300);
  std::int64_t turns = 0;
  for (const auto& [id, ts] : source.sessions) {
    REQUIRE(ts.size() >= 4);
    REQUIRE(ts.size() <= 8);
    CHECK(ts.back().last);
    for (std::size_t k = 1; k < ts.size(); ++k) {
      // Never before its answer; and the prompt holds the previous prompt and answer.
      CHECK(ts[k].sent >= ts[k - 1].answered);
      CHECK(ts[k].input == ts[k - 1].input + ts[k - 1].output + 256);
    }
    turns += static_cast<std::int64_t>(ts.size());
  }
  CHECK(s.completed == turns);
  CHECK(s.conversations.completed == 300);
  CHECK(s.conversations.sessions.sessions == 300);
  // Think time in all: the sum of the exponential draws, one per later turn, mean 0.5 s:
  // within 5 standard errors of (turns - 300) x 0.5 s (the sd of a sum of n exponentials is 0.5 sqrt(n)).
  const double n = static_cast<double>(turns - 300);
  CHECK(std::abs(s.conversations.sessions.think_s - 0.5 * n) < 5 * 0.5 * std::sqrt(n));
}

TEST_CASE("the seed's accumulation: 1 s more per turn makes a 10-turn session 10 s longer in closed loop, 1 s in open",
          "[workload][sessions]") {
  // One session of 10 turns (requests: 10, sessions started every 1000 s), think 5 s.
  // A front-end 1 s slower makes each turn's answer come 1 s later. Closed loop: each
  // later turn is sent after that answer, so the session's length grows by
  // 10 x 1 s = 10 s. Open loop: turns are sent 5 s after the previous one's arrival,
  // whatever the answers, so only the last answer's extra second shows: +1 s.
  auto length_s = [](const std::string& loop, double frontend_s) {
    const Scenario sc = scenario_from(
        "{kind: vllm, frontend_latency: \"" + std::to_string(frontend_s) + " s\"}",
        "{requests: 10, arrival: {process: constant, rate: 0.001}, " + kFixed + ", multi_turn: {turns: 10, loop: " +
            loop + ", think_time: \"5 s\", conversation_metrics: true}}");
    const RunSummary s = simulate(sc).summary;
    REQUIRE(s.completed == 10);
    REQUIRE(s.conversations.conversations == 1);
    return s.conversations.duration_s.mean;
  };
  CHECK(length_s("closed", 1.0) - length_s("closed", 0.0) == Approx(10.0).margin(1e-6));
  CHECK(length_s("open", 1.0) - length_s("open", 0.0) == Approx(1.0).margin(1e-6));
}

TEST_CASE("tool calls: the next turn is sent the tool's duration after the answer, with the tool's output appended",
          "[workload][sessions]") {
  // Every turn but the last ends in a tool call of exactly 2 s returning 500 tokens:
  // turn k+1's prompt = turn k's prompt + 32 answer tokens + 500, sent at answer + 2 s.
  const Scenario sc = scenario_from(
      "{kind: vllm}",
      "{arrival: {process: multi_stage, stages: [{process: poisson, rate: 2, requests: 20}]}, " + kFixed +
          ", multi_turn: {turns: 5, loop: closed, think_time: \"1 s\", conversation_metrics: true, tool_calls: "
          "{probability: 1, duration: {dist: fixed, value: \"2 s\"}, output_tokens: {dist: fixed, value: 500}}}}");
  RecordingSource source(sc.workload);
  const RunSummary s = simulate(sc, source).summary;
  REQUIRE(source.sessions.size() == 20);
  for (const auto& [id, ts] : source.sessions) {
    REQUIRE(ts.size() == 5);
    for (std::size_t k = 1; k < ts.size(); ++k) {
      CHECK(ts[k].sent == ts[k - 1].answered + to_nanos(2.0));
      CHECK(ts[k].input == ts[k - 1].input + 32 + 500);
    }
  }
  // 20 sessions x 4 tool calls x 2 s; no user thinking.
  CHECK(s.conversations.sessions.tool_calls == 80);
  CHECK(s.conversations.sessions.tool_s == Approx(160.0));
  CHECK(s.conversations.sessions.think_s == 0.0);
}

TEST_CASE("sub-agents fork after a turn, run in parallel, and the next turn waits for the last of them",
          "[workload][sessions]") {
  // Each session: turn 0, then 3 sub-agents of 2 turns each (think 0.2 s between their
  // turns), then turn 1 sent when the last sub-agent's last answer came, its prompt the
  // parent's context (256 + 32) plus the three last answers (3 x 32).
  const Scenario sc = scenario_from(
      "{kind: vllm}",
      "{arrival: {process: multi_stage, stages: [{process: poisson, rate: 1, requests: 10}]}, " + kFixed +
          ", multi_turn: {turns: 2, loop: closed, think_time: \"0.2 s\", conversation_metrics: true, subagents: "
          "{probability: 1, count: 3, turns: 2}}}");
  RecordingSource source(sc.workload);
  const RunSummary s = simulate(sc, source).summary;
  // 10 parents x (2 turns) + 30 sub-agents x 2 turns.
  CHECK(s.completed == 10 * 2 + 30 * 2);
  CHECK(s.conversations.sessions.sessions == 10);
  CHECK(s.conversations.sessions.subagents == 30);
  CHECK(s.conversations.sessions.joins == 10);
  std::int64_t parents = 0;
  for (const auto& [id, ts] : source.sessions) {
    REQUIRE(ts.size() == 2);
    if (ts[1].input == 256 + 32 + 3 * 32) ++parents;
    else CHECK(ts[1].input == 256 + 32 + 256);  // a sub-agent's second turn: its context + a new question
  }
  CHECK(parents == 10);
  // The join: each parent's second turn is sent exactly when the last of its
  // sub-agents' answers came (sub-agents start at the parent's first answer).
  for (const auto& [id, ts] : source.sessions) {
    if (ts[1].input != 256 + 32 + 3 * 32) continue;
    Nanos last_child = -1;
    int children = 0;
    for (const auto& [cid, cs] : source.sessions)
      if (cs[0].sent == ts[0].answered && cs[1].input != 256 + 32 + 3 * 32) {
        last_child = std::max(last_child, cs[1].answered);
        ++children;
      }
    CHECK(children == 3);
    CHECK(ts[1].sent == last_child);
  }
}

TEST_CASE("closed-loop sessions: a session's draws do not depend on the engine, and runs are deterministic",
          "[workload][sessions]") {
  const std::string workload =
      "{arrival: {process: multi_stage, stages: [{process: poisson, rate: 30, requests: 200}]}, input_tokens: "
      "{dist: lognormal, mean: 400, stddev: 200, max: 2000}, output_tokens: {dist: lognormal, mean: 100, stddev: 80, "
      "max: 1000}, multi_turn: {turns: 2, max_turns: 6, loop: closed, think: {dist: lognormal, mean: \"1 s\", stddev: "
      "\"1 s\"}, tool_calls: {probability: 0.4, duration: {dist: uniform, min: \"0.1 s\", max: \"3 s\"}, "
      "output_tokens: {dist: uniform, min: 10, max: 900}}, subagents: {probability: 0.1, count: 2, turns: 2}}}";
  // The multiset of (input, output) over all turns: the same on a fast and a slow engine.
  auto turns_of = [&](const std::string& engine) {
    const Scenario sc = scenario_from(engine, workload);
    RecordingSource source(sc.workload);
    simulate(sc, source);
    REQUIRE(source.failed == 0);
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (const auto& [id, ts] : source.sessions)
      for (const auto& t : ts) out.emplace_back(t.input, t.output);
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto fast = turns_of("{kind: vllm, max_num_seqs: 256}");
  const auto slow = turns_of("{kind: vllm, max_num_seqs: 2}");
  CHECK(fast.size() > 400);
  CHECK(fast == slow);
  // Same scenario twice: the same requests.csv, byte for byte.
  const Scenario sc = scenario_from("{kind: vllm, max_num_seqs: 8}", workload);
  CHECK(run_with_csv(sc, nullptr).csv == run_with_csv(sc, nullptr).csv);
}

TEST_CASE("a failed turn ends its session, and the turns it never sent are counted", "[workload][sessions]") {
  // max_model_len 1000: turn k's prompt is 256 + k x (32 + 256) tokens, so turns 0..2
  // fit (256, 544, 832) and turn 3 (1120) is refused; turns 4..5 are never sent.
  const Scenario sc = scenario_from("{kind: vllm, max_model_len: 1000}",
                                    "{arrival: {process: multi_stage, stages: [{process: poisson, rate: 1, requests: "
                                    "5}]}, " + kFixed +
                                        ", multi_turn: {turns: 6, loop: closed, think_time: \"1 s\", "
                                        "conversation_metrics: true}}");
  const RunSummary s = simulate(sc).summary;
  CHECK(s.completed == 5 * 3);
  CHECK(s.failed == 5);
  CHECK(s.conversations.turns_not_sent == 5 * 2);
  CHECK(s.conversations.cut == 5);
}

TEST_CASE("loop: closed is refused where it cannot mean anything", "[workload][sessions][config]") {
  // Each workload below is `{lengths, ...}` with the required lengths filled in.
  auto err = [&](const std::string& workload) {
    return error_of([&] { scenario_from("{kind: vllm}", "{" + kFixed + ", " + workload.substr(1)); });
  };
  CHECK_THAT(err("{requests: 10, arrival: {process: closed_loop, users: 2, think_time: \"1 s\"}, multi_turn: "
                 "{turns: 2, loop: closed}}"),
             Catch::Contains("loop: closed is for arrival processes"));
  CHECK_THAT(err("{requests: 10, arrival: {process: poisson, rate: 1}, multi_turn: {turns: 2, think_time: \"1 s\", "
                 "tool_calls: {probability: 0.5, duration: {dist: fixed, value: \"1 s\"}, output_tokens: {dist: "
                 "fixed, value: 10}}}}"),
             Catch::Contains("only with loop: closed"));
  CHECK_THAT(err("{requests: 10, arrival: {process: poisson, rate: 1}, multi_turn: {turns: 2, loop: closed}}"),
             Catch::Contains("neither"));
  CHECK_THAT(err("{requests: 10, arrival: {process: poisson, rate: 1}, multi_turn: {turns: 4, max_turns: 2, loop: "
                 "closed, think_time: \"1 s\"}}"),
             Catch::Contains("max_turns (2) is below turns (4)"));
  CHECK_THAT(err("{requests: 10, arrival: {process: poisson, rate: 1}, multi_turn: {turns: 2, loop: closed, "
                 "think: {dist: exponental, mean: \"1 s\"}}}"),
             Catch::Contains("did you mean 'exponential'"));
}
