#pragma once
// Beam search as vLLM runs it since v0.6.3 and in V1: a loop above the engine
// (engine.beam_search: above_engine; framework_preset.h cites the sources).
//
// What vLLM does (vllm/entrypoints/llm.py LLM.beam_search; EngineClient.beam_search
// for the OpenAI server's use_beam_search): a request of beam width b and O output
// tokens keeps a list of beams, at first the prompt alone. For each of the O tokens
// it sends every beam to the engine as a request of its own (the beam's whole token
// list as the prompt, max_tokens = 1, logprobs = 2b), waits for all of them, expands
// each beam by its 2b candidates, and keeps the b best. So the engine sees
//  - round 0: one request, the prompt (P tokens), whose token is the first;
//  - round j = 1 .. O-1: b requests of P + j tokens each, one token each.
// A round's requests re-prefill what the prefix cache does not hold: with prefix
// caching (vLLM V1's default) the full blocks of the history are cached and each
// request computes its last partial block (1 to block_size tokens); without it, the
// whole context every token. The answer is returned when the last round ends (the
// OpenAI server does not stream beam search): TTFT here is when the first token
// exists (round 0's end), E2E when the client gets the answer, and the inter-token
// gaps are the rounds' lengths.
//
// The model: the engine runs the rounds' requests as any others (routing, batching,
// the prefix cache, every host cost of the framework). The beams' histories are
// taken as shared (every full block of generated tokens is the same for the b
// beams: the lower bound of what they hold, as engine/sequence_group.h takes for
// beams inside the engine), so the b requests of a round differ only in their last
// partial block. The front end (one Python thread for all requests) spends
// `request_cpu_s` per engine request it builds: for round 0 when the request
// arrives, for round j when round j-1 ends (the outputs' 2b logprobs turned into
// candidates, each a copy of the beam's token and logprob lists, the sort, and the b
// requests built and handed to the engine). New requests and rounds queue for that
// thread, so a saturated front end shows as requests waiting before their first
// round (the run's queue time and its saturation test). The request's front-end
// latency (engine.frontend_latency: HTTP, tokenization) is paid once, before round
// 0; the later rounds' requests are built from token ids inside the server, their
// hand-off and output processing counted in `request_cpu_s`.
//
// Not modelled: beams that end early (the lengths have ignore_eos semantics), a
// length penalty's effect on which beams survive, and beams whose histories diverge
// (more distinct blocks, more prefill when a pruned history is revived).
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <vector>

#include "metrics/run_observer.h"
#include "metrics/run_summary.h"
#include "workload/request_source.h"

namespace servesim {

// Front-end CPU time per engine request of a beam-search round (seconds). Fitted
// (one parameter) on vLLM PR #8726's H100 measurement of Llama-3-8B, 100 prompts of
// 256 tokens, 256 output tokens, beam width 4, the loop with prefix caching: 1.08
// requests/s (docs/beam-search.md, "The fit"); held out: the same run without prefix
// caching (0.10 requests/s).
inline constexpr double kBeamRequestCpuSeconds = 0.90e-3;

class BeamLoop final : public RequestSource, public RunObserver {
 public:
  // `inner`: the workload's requests; `downstream`: the run's collector, which sees
  // one record per request of `inner` (its rounds' engine requests are the loop's).
  // `block_tokens`: the engine's KV block size, the blocks a prompt without ids of its
  // own is named in.
  // `frontend_latency`: engine.frontend_latency, which the run adds to each arrival.
  BeamLoop(RequestSource& inner, RunObserver& downstream, std::int64_t beams, double request_cpu_s,
           bool prefix_caching, std::int32_t block_tokens, Nanos frontend_latency);

  // RequestSource: the rounds' engine requests, in arrival order.
  std::optional<Request> next() override;
  void on_complete(const Request& r, Nanos completion_time) override;
  void on_failed(const Request& r, Nanos time) override { on_complete(r, time); }
  void on_abandon(const Request& r, Nanos time) override { on_complete(r, time); }
  bool exhausted() const override;
  std::int64_t expected_total() const override { return -1; }
  bool may_reorder() const override { return true; }
  std::optional<Nanos> earliest() const override;
  void put_back(Request&& r) override;

  // RunObserver: steps pass through; a round's records make its request's record.
  void on_step(const StepRecord& s) override { down_.on_step(s); }
  void on_itl(double, std::int64_t) override {}  // single-token requests decode nothing
  void on_request_done(const RequestRecord& r) override;

  // Whether `r`, handed out by next(), is its request's first round (the run counts
  // it as offered; later rounds are the loop's own).
  bool first_round(const Request& r) const;
  // When the workload's request that `r` is a round of arrived.
  Nanos arrival_of(const Request& r) const { return slots_[static_cast<std::size_t>(r.session)].arrival; }
  BeamLoopReport report() const { return report_; }

 private:
  struct Beam {
    std::int64_t id = 0;          // the workload's request id
    Nanos arrival = 0;
    std::int64_t prompt = 0, output = 0;
    std::int32_t block_tokens = 0;
    std::vector<std::uint64_t> prompt_ids;  // its prompt's full blocks
    std::uint64_t generated_base = 0;       // ids of the blocks its generated tokens fill
    std::int64_t round = 0;        // the round in flight or due
    std::int64_t to_send = 0;      // of that round's requests, not yet handed out
    std::int64_t in_flight = 0;    // handed out, not yet reported done to the source
    std::int64_t recorded = 0;     // records of the round seen
    Nanos first_scheduled = -1, first_token = -1, round_end = 0, previous_round_end = 0;
    std::int64_t cached = 0;       // round 0's prompt tokens from the prefix cache
    int preemptions = 0;
    int replica = 0;
    bool failed = false;
  };
  struct Due {
    Nanos time;
    std::int32_t slot;
    bool operator>(const Due& o) const { return time != o.time ? time > o.time : slot > o.slot; }
  };

  std::int64_t round_size(const Beam& b) const { return b.round == 0 ? 1 : beams_; }
  Request make_request(std::int32_t slot, Nanos at);
  // The front end's thread builds `requests` engine requests from `ready` on: when
  // they are ready (it works in the order it is asked).
  Nanos frontend_builds(Nanos ready, std::int64_t requests);
  // ... a request's round 0, when it arrives; and the round-0 builds due by `upto`
  // into the thread's queue.
  Nanos frontend_builds_first_round(Nanos arrival);
  void absorb_first_rounds(Nanos upto);
  // The workload request's record as far as `b` knows it (what the collector sees).
  RequestRecord record_of(const Beam& b) const;
  std::int32_t admit(Request&& r);
  void pull_inner();

  RequestSource& inner_;
  RunObserver& down_;
  std::int64_t beams_;
  double request_cpu_s_;
  std::int32_t block_tokens_;
  Nanos frontend_latency_;
  std::vector<Beam> slots_;
  std::vector<std::int32_t> free_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::optional<Request> lookahead_;   // the workload's next request (not yet a round)
  std::optional<Request> returned_;    // a round's request the run gave back (put_back)
  std::int64_t issued_ = 0;            // engine request ids
  Nanos frontend_free_ = 0;            // when the front end's thread is next idle
  std::deque<Nanos> first_rounds_;     // round-0 builds not yet in it: their arrivals, in order
  BeamLoopReport report_;
};

}  // namespace servesim
