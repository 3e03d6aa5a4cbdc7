// The prefix cache's runs (engine/prefix_cache.h) and the lazy hashes of
// batch_state.h change no result: a run whose synthetic requests mark their own
// blocks (Request::unique_hashes_from) gives the same summary, byte for byte, as
// the same run with the mark removed (every block its own node, every hash
// computed), under eviction, preemption and recompute. Likewise the implied own
// ids (Request::own_ids_implied, system_ids_implied): the same summary as with
// every id stored, but for the waiting queue's bytes.
#include <catch2/catch.hpp>

#include <memory>

#include "metrics/summary_json.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"
#include "workload/prompt_ids.h"
#include "workload/workload_spec.h"

using namespace servesim;
using namespace servesim::testing;

namespace {
// The requests of `inner`, each changed by edit() on its way out; everything else
// is `inner`'s.
class EditedSource : public RequestSource {
 public:
  explicit EditedSource(std::unique_ptr<RequestSource> inner) : inner_(std::move(inner)) {}
  std::optional<Request> next() override {
    std::optional<Request> r = inner_->next();
    if (r) edit(*r);
    return r;
  }
  void on_complete(const Request& r, Nanos t) override { inner_->on_complete(r, t); }
  void on_abandon(const Request& r, Nanos t) override { inner_->on_abandon(r, t); }
  bool withdrawn(const Request& r) override { return inner_->withdrawn(r); }
  std::int64_t turns_not_sent() const override { return inner_->turns_not_sent(); }
  bool exhausted() const override { return inner_->exhausted(); }
  std::int64_t expected_total() const override { return inner_->expected_total(); }

 protected:
  virtual void edit(Request& r) = 0;

 private:
  std::unique_ptr<RequestSource> inner_;
};

// The requests of `inner` with every id stored (materialize_block_ids) and,
// when `unmark`, without the mark of their own blocks.
class Unmarked : public EditedSource {
 public:
  explicit Unmarked(std::unique_ptr<RequestSource> inner, bool unmark = true)
      : EditedSource(std::move(inner)), unmark_(unmark) {}
  std::int64_t implied() const { return implied_; }

 private:
  void edit(Request& r) override {
    implied_ += r.own_ids_implied ? 1 : 0;
    materialize_block_ids(r);
    if (unmark_) r.unique_hashes_from = Request::kNotUnique;
  }
  bool unmark_;
  std::int64_t implied_ = 0;
};

// One summary per way of carrying the ids: implied, and all of them stored. The
// results are the same; the waiting queue's bytes are not: an implied request
// holds one id (its system prompt's name), a stored one all ~70 of them.
// Returns the implied run's summary.
RunSummary check_implied_ids_change_nothing(const Scenario& sc) {
  std::unique_ptr<RequestSource> implied = make_request_source(sc.workload);
  const SimulationResult a = simulate(sc, *implied, {});
  Unmarked stored(make_request_source(sc.workload), false);
  const SimulationResult b = simulate(sc, stored, {});
  // Nearly every request had them implied (all but those whose question is
  // shorter than a block: lognormal, mean 600 tokens, stddev 300).
  CHECK(stored.implied() >= 1400);
  CHECK(a.summary.load.queued_peak > 0);  // the queue's bytes are in the summary compared
  CHECK(a.summary.load.queued_peak == b.summary.load.queued_peak);
  CHECK(a.summary.load.queued_peak_bytes < b.summary.load.queued_peak_bytes);
  nlohmann::json ja = summary_json(a.summary), jb = summary_json(b.summary);
  ja["load"].erase("waiting_peak_bytes");
  jb["load"].erase("waiting_peak_bytes");
  CHECK(ja.dump() == jb.dump());
  return a.summary;
}
}  // namespace

TEST_CASE("runs of a request's own blocks give the results of one node per block", "[engine][prefix]") {
  // 3,000 KV blocks of 16 tokens for 40 system prompts of 512 tokens plus ~600-token
  // questions at 30 req/s (about 1.7x what one H100 serves here): the cache evicts
  // all the time and requests are preempted and recomputed (matching their own
  // cached blocks again, cut by their limit).
  const Scenario sc = scenario_from("{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 3000}",
                                    "{requests: 1500, seed: 3, arrival: {process: poisson, rate: 30}, "
                                    "input_tokens: {dist: lognormal, mean: 600, stddev: 300, max: 2000}, "
                                    "output_tokens: {dist: uniform, min: 64, max: 512}, "
                                    "shared_prefix: {groups: 40, tokens: 512}}");
  std::unique_ptr<RequestSource> marked = make_request_source(sc.workload);
  const SimulationResult a = simulate(sc, *marked, {});
  Unmarked unmarked(make_request_source(sc.workload));
  const SimulationResult b = simulate(sc, unmarked, {});
  nlohmann::json ja = summary_json(a.summary), jb = summary_json(b.summary);
  CHECK(ja["requests"]["preemptions"].get<std::int64_t>() > 0);  // the case the runs must survive
  CHECK(ja["tokens"]["prefix_hit_rate"].get<double>() > 0.1);
  // The unmarked requests store every id; the marked ones imply all but the first,
  // so only the waiting queue's bytes differ (test below).
  ja["load"].erase("waiting_peak_bytes");
  jb["load"].erase("waiting_peak_bytes");
  CHECK(ja.dump() == jb.dump());
}

TEST_CASE("implied ids give the results of stored ones", "[engine][prefix]") {
  // The same workload as above: every request's ids but its system prompt's first
  // are implied (Request::own_ids_implied, system_ids_implied) and read through
  // PromptIds; stored, they must give the same summary byte for byte but for the
  // queue's peak bytes, which are less (one id held per request). Preempted
  // requests re-match all their blocks (complete_hashes), a CPU tier hashes every
  // block, and two replicas with prefix_affinity route by the first id.
  const std::string workload = "{requests: 1500, seed: 3, arrival: {process: poisson, rate: 30}, "
                               "input_tokens: {dist: lognormal, mean: 600, stddev: 300, max: 2000}, "
                               "output_tokens: {dist: uniform, min: 64, max: 512}, "
                               "shared_prefix: {groups: 40, tokens: 512}}";
  SECTION("one replica, evicting and preempting") {
    const Scenario sc = scenario_from("{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 3000}", workload);
    const RunSummary s = check_implied_ids_change_nothing(sc);
    // Every prompt opens with a 512-token system prompt (32 full blocks of 16), so
    // each waiting request is a 48-byte QueuedRequest and its 32-byte prefix
    // record holding one 8-byte id: 88 bytes.
    CHECK(s.load.queued_peak_bytes == 88.0 * static_cast<double>(s.load.queued_peak));
  }
  SECTION("a CPU tier (every block hashed)") {
    const Scenario sc = scenario_from(
        "{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 3000, cpu_offload: 1 GiB}", workload);
    check_implied_ids_change_nothing(sc);
  }
  SECTION("disaggregated prefill and decode pools (a request's copies queued in both)") {
    const std::string text =
        "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nparallelism: {tp: 1, replicas: 1}\n"
        "engine: {kind: vllm, prefix_caching: true, num_gpu_blocks_override: 3000}\n"
        "disaggregation: {prefill: {replicas: 1}, decode: {replicas: 1}, "
        "transfer: {bandwidth: \"50 GB/s\", latency: \"20 us\"}}\n"
        "workload: " + workload + "\n";
    check_implied_ids_change_nothing(parse_scenario(parse_yaml_text(text), "test.yaml", true));
  }
  SECTION("two replicas, prefix_affinity") {
    const Scenario sc = scenario_from("{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 3000}", workload,
                                      "llama-3.1-8b", "{tp: 1, replicas: 2, router: prefix_affinity}");
    check_implied_ids_change_nothing(sc);
  }
}

namespace {
// A multi-turn workload's requests as they were before conversation runs: every
// block its own cache node (no unique_hashes_from, no extended_later).
class PerBlockTurns : public EditedSource {
 public:
  using EditedSource::EditedSource;
  std::int64_t marked() const { return marked_; }

 private:
  void edit(Request& r) override {
    marked_ += r.extended_later ? 1 : 0;
    r.extended_later = false;
    r.unique_hashes_from = Request::kNotUnique;
  }
  std::int64_t marked_ = 0;
};

// The run with conversation runs and the run with one node per block: the same summary, byte for byte.
nlohmann::json check_conversation_runs_change_nothing(const Scenario& sc) {
  std::unique_ptr<RequestSource> runs = make_request_source(sc.workload);
  const SimulationResult a = simulate(sc, *runs, {});
  PerBlockTurns per_block(make_request_source(sc.workload));
  const SimulationResult b = simulate(sc, per_block, {});
  CHECK(per_block.marked() == sc.workload.requests);  // every request was marked extended_later
  const nlohmann::json ja = summary_json(a.summary), jb = summary_json(b.summary);
  CHECK(ja.dump() == jb.dump());
  return ja;
}
}  // namespace

TEST_CASE("a conversation's turns cached as runs give the results of one node per block", "[engine][prefix]") {
  // Multi-turn chat: each turn's prompt is the conversation so far plus a question,
  // so a turn's blocks after the system prompt are its conversation's, matched by
  // its later turns (Request::extended_later: cached as runs, like a request's own
  // blocks). Open-loop turns come every think time whether or not the last one
  // finished, so turns of one conversation overlap and share runs; 2,500 KV blocks
  // at 4 conversations/s (6 turns/s growing to ~2k tokens) keep the cache evicting
  // and the engine preempting; an earlier turn re-admitted after a later one
  // registered a run past its own end takes only its part (the split past the
  // prompt's end). Every variant must give the per-block summary exactly.
  const std::string base = "{requests: 3000, seed: 11, arrival: {process: poisson, rate: 6}, "
                           "input_tokens: {dist: lognormal, mean: 250, stddev: 150, max: 1500}, "
                           "output_tokens: {dist: uniform, min: 16, max: 300}, "
                           "shared_prefix: {groups: 8, tokens: 500}, "
                           "multi_turn: {turns: 6, think_time: \"1 s\"}";
  const std::string engine = "{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 2500";
  SECTION("one replica, overlapping turns, evicting and preempting") {
    const nlohmann::json j = check_conversation_runs_change_nothing(scenario_from(engine + "}", base + "}"));
    CHECK(j["requests"]["preemptions"].get<std::int64_t>() > 0);
    CHECK(j["tokens"]["prefix_hit_rate"].get<double>() > 0.3);
  }
  SECTION("no shared system prompt (runs from the first block)") {
    std::string w = base;
    w.replace(w.find("shared_prefix: {groups: 8, tokens: 500}, "), std::string("shared_prefix: {groups: 8, tokens: 500}, ").size(), "");
    check_conversation_runs_change_nothing(scenario_from(engine + "}", w + "}"));
  }
  SECTION("id blocks of 32 tokens under engine blocks of 16") {
    check_conversation_runs_change_nothing(scenario_from(engine + "}", base + ", hash_block_tokens: 32}"));
  }
  SECTION("engine blocks of 32 tokens over id blocks of 16") {
    check_conversation_runs_change_nothing(scenario_from(engine + ", block_size: 32}", base + "}"));
  }
  SECTION("users who give up (patience)") {
    check_conversation_runs_change_nothing(
        scenario_from(engine + "}", base + ", patience: {dist: fixed, value: \"2 s\"}}"));
  }
  SECTION("vLLM V0 (prefill first) and TensorRT-LLM (no eviction) scheduling") {
    check_conversation_runs_change_nothing(scenario_from(engine + ", framework: vllm-v0}", base + "}"));
    check_conversation_runs_change_nothing(scenario_from(engine + ", framework: trtllm}", base + "}"));
  }
  SECTION("two replicas, prefix_affinity") {
    check_conversation_runs_change_nothing(
        scenario_from(engine + "}", base + "}", "llama-3.1-8b", "{tp: 1, replicas: 2, router: prefix_affinity}"));
  }
  SECTION("repeated prompts (shared_prefix.prompts_per_group): every request of a prompt repeats it whole") {
    const std::string repeated = "{requests: 3000, seed: 17, arrival: {process: poisson, rate: 30}, "
                                 "input_tokens: {dist: lognormal, mean: 600, stddev: 300, max: 2000}, "
                                 "output_tokens: {dist: uniform, min: 16, max: 300}, "
                                 "shared_prefix: {groups: 8, tokens: 500, prompts_per_group: 20}}";
    const nlohmann::json j = check_conversation_runs_change_nothing(scenario_from(engine + "}", repeated));
    CHECK(j["requests"]["preemptions"].get<std::int64_t>() > 0);
  }
  SECTION("closed loop: a user's next turn after its last one finished") {
    const std::string closed = "{requests: 3000, seed: 13, arrival: {process: closed_loop, users: 40, think_time: \"0.5 s\"}, "
                               "input_tokens: {dist: lognormal, mean: 250, stddev: 150, max: 1500}, "
                               "output_tokens: {dist: uniform, min: 16, max: 300}, "
                               "shared_prefix: {groups: 8, tokens: 500}, multi_turn: {turns: 6}}";
    check_conversation_runs_change_nothing(scenario_from(engine + "}", closed));
  }
}
