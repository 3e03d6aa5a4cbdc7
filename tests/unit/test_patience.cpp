// Users who give up (workload.patience), per-conversation metrics and carbon.
#include <catch2/catch.hpp>

#include <cmath>

#include "metrics/conversations.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"
#include "workload/synthetic_source.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

PatienceSpec fixed_patience(double seconds) {
  PatienceSpec p;
  p.kind = PatienceKind::fixed;
  p.value_s = seconds;
  return p;
}

std::vector<Request> at_once(int n, std::int64_t in, std::int64_t out) {
  std::vector<Request> rs;
  for (int i = 0; i < n; ++i) rs.push_back(make_request(0.0, in, out));
  return rs;
}

}  // namespace

TEST_CASE("fixed patience P: exactly the requests whose first token would come after P give up, each after P",
          "[sim][patience]") {
  // One request at a time (max_num_seqs 1), six arriving at t = 0, 2048-token prompts
  // prefilled in four 512-token chunks. The KV cache holds exactly one request:
  // ceil((2048 + 50 - 1) / 16) = 132 blocks.
  const Scenario base = scenario_from("{kind: vllm, max_num_seqs: 1, max_num_batched_tokens: 512, "
                                      "num_gpu_blocks_override: 132}");
  const int n = 6;
  VectorSource plain(at_once(n, 2048, 50));
  const RunWithCsv before = run_with_csv(base, &plain);
  REQUIRE(before.result.summary.completed == n);
  // Without patience request k's first token comes at ttft_k = k E + T (served in turn):
  // read them from that run, by id.
  std::vector<double> ttft_ms(n);
  for (const RequestResult& r : before.results) ttft_ms[static_cast<std::size_t>(r.id)] = r.ttft_ms;
  const double t_ms = ttft_ms[0];  // T: request 0's four prefill steps, alone
  REQUIRE(ttft_ms[2] - t_ms > ttft_ms[1]);  // request 2's prefill starts after request 1's first token

  // P in the middle of request 2's prefill (ttft_2 - T/2): request 2 is aborted
  // mid-prefill, 3..5 leave the queue; 0 and 1 (first tokens before P) are served.
  const double p_s = (ttft_ms[2] - t_ms / 2) * 1e-3;
  Scenario sc = base;
  sc.workload.patience = fixed_patience(p_s);
  std::vector<Request> rs = at_once(n, 2048, 50);
  // A latecomer at P + 1 s, alone: its first token after T exactly proves request 2's
  // slot and KV blocks were given back (the cache holds one request).
  rs.push_back(make_request(p_s + 1.0, 2048, 50));
  VectorSource source(rs);
  const RunWithCsv after = run_with_csv(sc, &source);
  const RunSummary& s = after.result.summary;

  int abandoned = 0;
  for (const RequestResult& r : after.results) {
    const auto k = static_cast<std::size_t>(r.id);
    if (r.id == n) {  // the latecomer
      CHECK_FALSE(r.failed);
      CHECK(r.ttft_ms == Approx(t_ms).margin(1e-6));
      continue;
    }
    const bool late = ttft_ms[k] > p_s * 1e3;
    CHECK(r.failed == late);
    if (late) {
      ++abandoned;
      CHECK(r.failure == FailureReason::abandoned);
      CHECK(r.e2e_ms == Approx(p_s * 1e3).margin(1e-6));  // waited exactly its patience
    } else {
      CHECK(r.ttft_ms == Approx(ttft_ms[k]).margin(1e-6));  // unaffected by those who left
    }
  }
  CHECK(abandoned == 4);  // requests 2, 3, 4, 5
  CHECK(s.failed == 4);
  CHECK(s.failures[static_cast<std::size_t>(FailureReason::abandoned)] == 4);
  CHECK(s.completed == 3);
  CHECK(s.abandoned_after_start == 1);  // request 2, aborted mid-prefill; 3-5 left from the queue
  REQUIRE(s.abandoned_wait_ms.count == 4);
  CHECK(s.abandoned_wait_ms.mean == Approx(p_s * 1e3));
  CHECK(s.abandoned_wait_ms.p99 == Approx(p_s * 1e3));
  // Goodput (no SLO: every served request counts) excludes them: 3 of 7 offered.
  CHECK(s.slo_attainment == Approx(3.0 / 7.0));
  CHECK(s.goodput_rps == Approx(3.0 / s.duration_s));
  CHECK_FALSE(s.slo_met);
  // requests.csv: the abandoned rows carry the wait in e2e_ms.
  int csv_abandoned = 0;
  for (const CsvRow& row : after.rows)
    if (row.failure == "abandoned") {
      ++csv_abandoned;
      CHECK(row.e2e_ms == Approx(p_s * 1e3).margin(1e-3));
    }
  CHECK(csv_abandoned == 4);
}

TEST_CASE("uniform patience: a request gives up exactly when its own draw is below its wait", "[sim][patience]") {
  // Ten requests at t = 0, one at a time: without patience request k waits ttft_k.
  const Scenario base = scenario_from("{kind: vllm, max_num_seqs: 1, max_num_batched_tokens: 8192}");
  const int n = 10;
  VectorSource plain(at_once(n, 512, 200));
  const RunWithCsv before = run_with_csv(base, &plain);
  std::vector<double> ttft_ms(n);
  for (const RequestResult& r : before.results) ttft_ms[static_cast<std::size_t>(r.id)] = r.ttft_ms;
  // Patience uniform over the span of those waits, so some stay and some leave.
  Scenario sc = base;
  PatienceSpec p;
  p.kind = PatienceKind::uniform;
  p.min_s = ttft_ms[0] * 0.5e-3;
  p.max_s = ttft_ms[n - 1] * 1e-3;
  sc.workload.patience = p;
  const Patience draws(p, sc.workload.seed);
  VectorSource source(at_once(n, 512, 200));
  const RunWithCsv after = run_with_csv(sc, &source);
  // Served in order, a request's first token comes at the end of the service of
  // those before it that stayed; it leaves when its own patience is shorter.
  // Walk the queue: the clock advances by one service time E per request served,
  // and by its prefill step T for one admitted before its deadline that passed
  // during that step (the step runs; its first token comes too late).
  const double e_ms = before.results[0].e2e_ms;  // E: one request's service, alone
  double clock_ms = 0;
  int left = 0;
  for (int k = 0; k < n; ++k) {
    const RequestResult* r = nullptr;
    for (const RequestResult& q : after.results)
      if (q.id == k) r = &q;
    REQUIRE(r != nullptr);
    const double first_token_ms = clock_ms + ttft_ms[0];
    const double patience_ms = draws.seconds(k) * 1e3;
    if (first_token_ms > patience_ms) {
      CHECK(r->failure == FailureReason::abandoned);
      CHECK(r->e2e_ms == Approx(patience_ms).margin(1e-6));
      if (patience_ms > clock_ms) clock_ms += ttft_ms[0];
      ++left;
    } else {
      CHECK_FALSE(r->failed);
      CHECK(r->ttft_ms == Approx(first_token_ms).margin(1e-3));
      clock_ms += e_ms;
    }
  }
  CHECK(left == after.result.summary.failures[static_cast<std::size_t>(FailureReason::abandoned)]);
  CHECK(left > 0);
  CHECK(left < n);
}

TEST_CASE("a patience longer than the run changes no served request", "[sim][patience]") {
  const std::string workload =
      "{seed: 3, requests: 400, arrival: {process: poisson, rate: 12}, input_tokens: {dist: lognormal, mean: 800, "
      "stddev: 400, max: 4096}, output_tokens: {dist: uniform, min: 32, max: 256}}";
  const Scenario base = scenario_from("{kind: vllm, max_num_seqs: 64}", workload);
  Scenario sc = base;
  sc.workload.patience = fixed_patience(86400);
  const RunWithCsv a = run_with_csv(base, nullptr);
  const RunWithCsv b = run_with_csv(sc, nullptr);
  REQUIRE(a.results.size() == b.results.size());
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    CHECK(a.results[i].id == b.results[i].id);
    CHECK(a.results[i].ttft_ms == b.results[i].ttft_ms);
    CHECK(a.results[i].e2e_ms == b.results[i].e2e_ms);
  }
  CHECK(b.result.summary.failed == 0);
  CHECK(b.result.summary.abandoned_wait_ms.count == 0);
}

TEST_CASE("patience draws are a pure function of (seed, id) and follow their distribution", "[patience]") {
  PatienceSpec u;
  u.kind = PatienceKind::uniform;
  u.min_s = 3;
  u.max_s = 5;
  const Patience a(u, 1), b(u, 1), c(u, 2);
  double sum = 0;
  int differ = 0;
  const int n = 20000;
  for (int id = 0; id < n; ++id) {
    const double x = a.seconds(id);
    CHECK(x == b.seconds(id));  // same seed, same id: same patience
    differ += x != c.seconds(id);
    REQUIRE(x >= 3.0);
    REQUIRE(x <= 5.0);
    sum += x;
  }
  CHECK(differ > n - 10);
  // Mean of U(3, 5) is 4; the standard error over 20000 draws is (2 / sqrt(12)) / sqrt(20000) = 0.0041.
  CHECK(sum / n == Approx(4.0).margin(0.02));
  PatienceSpec e;
  e.kind = PatienceKind::exponential;
  e.mean_s = 4;
  const Patience ex(e, 7);
  double esum = 0;
  for (int id = 0; id < n; ++id) esum += ex.seconds(id);
  // Exponential mean 4, stddev 4: standard error 4 / sqrt(20000) = 0.028.
  CHECK(esum / n == Approx(4.0).margin(0.12));
  PatienceSpec ln;
  ln.kind = PatienceKind::lognormal;
  ln.mean_s = 4;
  ln.stddev_s = 2;
  const Patience lg(ln, 7);
  double lsum = 0;
  for (int id = 0; id < n; ++id) lsum += lg.seconds(id);
  // Lognormal with mean 4 and stddev 2: standard error 2 / sqrt(20000) = 0.014.
  CHECK(lsum / n == Approx(4.0).margin(0.06));
}

TEST_CASE("an abandoned turn ends its open-loop conversation: its later turns are never sent", "[workload][patience]") {
  WorkloadSpec w;
  w.requests = 6;
  w.arrival.kind = ArrivalKind::constant;
  w.arrival.rate = 1.0;
  w.input_tokens.value = 100;
  w.output_tokens.value = 10;
  w.multi_turn = MultiTurnSpec{.turns = 3, .think_time_s = 0.1};
  SyntheticSource src(w);
  auto first = src.next();
  REQUIRE(first);
  REQUIRE(first->session == 0);
  src.on_abandon(*first, first->arrival + to_nanos(0.05));
  // Six requests in all: session 0 sent one turn, so sessions 1 and 2 send theirs
  // (3 + 2 more; none of session 0's two later turns).
  int count = 1, session0 = 0;
  while (auto r = src.next()) {
    CHECK_FALSE(src.withdrawn(*r));
    ++count;
    session0 += r->session == 0;
  }
  CHECK(count == 6);
  CHECK(session0 == 0);
  CHECK(src.turns_not_sent() == 2);
}

TEST_CASE("conversation metrics: total wait is the sum of the turns' waits", "[metrics][patience]") {
  ConversationTracker t(3, false);
  auto turn = [&](int session, double arrival_s, double first_token_s, double finish_s, bool abandoned) {
    RequestRecord r;
    r.session = session;
    r.arrival = to_nanos(arrival_s);
    r.first_token = abandoned ? -1 : to_nanos(first_token_s);
    r.finish = to_nanos(finish_s);
    r.failed = abandoned;
    r.failure = abandoned ? FailureReason::abandoned : FailureReason::none;
    t.on_turn(r);
  };
  // Conversation 0: three turns served, TTFTs 1 + 2 + 3 = 6 s, from 0 s to 32 s.
  turn(0, 0, 1, 5, false);
  turn(0, 10, 12, 15, false);
  turn(0, 20, 23, 32, false);
  // Conversation 1: one turn served (TTFT 0.5 s), then its user gives up after 4 s: 4.5 s.
  turn(1, 1, 1.5, 3, false);
  turn(1, 11, 0, 15, true);
  // Conversation 2: one turn served (TTFT 0.5 s), the run ends: cut.
  turn(2, 2, 2.5, 4, false);
  const ConversationSummary s = t.summarize();
  CHECK(s.conversations == 3);
  CHECK(s.completed == 1);
  CHECK(s.abandoned == 1);
  CHECK(s.cut == 1);
  // Waits 6, 4.5 and 0.5 s: mean 11 / 3 s, median 4.5 s.
  CHECK(s.wait_ms.mean == Approx(11000.0 / 3));
  CHECK(s.wait_ms.p50 == Approx(4500.0));
  // Durations 32, 14 and 2 s; turns served 3, 1, 1.
  CHECK(s.duration_s.max == Approx(32.0));
  CHECK(s.duration_s.mean == Approx(16.0));
  CHECK(s.turns_served.mean == Approx(5.0 / 3));
}

TEST_CASE("carbon is the run's kWh times the grid intensity", "[sim][energy]") {
  const std::string workload =
      "{requests: 200, arrival: {process: poisson, rate: 8}, input_tokens: {dist: fixed, value: 512}, "
      "output_tokens: {dist: fixed, value: 128}}";
  Scenario sc = scenario_from("{kind: vllm}", workload);
  sc.grid_g_per_kwh = 400;
  const RunSummary s = simulate(sc).summary;
  REQUIRE(s.energy_j > 0);
  // grams = J / (3.6e6 J/kWh) x 400 g/kWh.
  CHECK(s.carbon_g == Approx(s.energy_j / 3.6e6 * 400));
  CHECK(s.carbon_g_per_output_token == Approx(s.carbon_g / (200.0 * 128)));
  CHECK(s.carbon_g_per_request == Approx(s.carbon_g / 200.0));
}

TEST_CASE("patience and grid intensity keys: values, units and refusals", "[config][patience]") {
  const std::string head =
      "{requests: 10, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: 10}, "
      "output_tokens: {dist: fixed, value: 10}, patience: ";
  const Scenario u = scenario_from("{kind: vllm}", head + "{dist: uniform, min: \"3 s\", max: \"5 s\"}}");
  REQUIRE(u.workload.patience);
  CHECK(u.workload.patience->kind == PatienceKind::uniform);
  CHECK(u.workload.patience->min_s == 3.0);
  CHECK(u.workload.patience->max_s == 5.0);
  const Scenario f = scenario_from("{kind: vllm}", head + "{dist: fixed, value: \"4000 ms\"}}");
  CHECK(f.workload.patience->value_s == Approx(4.0));
  CHECK_THAT(error_of([&] { scenario_from("{kind: vllm}", head + "{dist: uniform, min: \"5 s\", max: \"3 s\"}}"); }),
             Catch::Contains("workload.patience.max") && Catch::Contains("greater than max"));
  CHECK_THAT(error_of([&] { scenario_from("{kind: vllm}", head + "{dist: fixd, value: \"4 s\"}}"); }),
             Catch::Contains("did you mean 'fixed'"));
  CHECK_THAT(error_of([&] { scenario_from("{kind: vllm}", head + "{dist: fixed, mean: \"4 s\"}}"); }),
             Catch::Contains("workload.patience"));
  // The static engine has no way to drop a waiting request: refused, not ignored.
  const Scenario st = scenario_from("{kind: static}", head + "{dist: fixed, value: \"4 s\"}}");
  CHECK_THAT(error_of([&] { simulate(st); }), Catch::Contains("vllm engine only"));
  const Scenario g = parse_scenario(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                                                    "energy: {grid_intensity: \"0.48 kgCO2/MWh\"}\n"),
                                    "test.yaml", false);
  CHECK(g.grid_g_per_kwh == Approx(0.48));
  CHECK_THAT(error_of([&] {
               parse_scenario(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n"
                                              "energy: {grid_intensity: \"400 W\"}\n"),
                              "test.yaml", false);
             }),
             Catch::Contains("energy.grid_intensity"));
}

TEST_CASE("patience on pipelined replicas and closed-loop conversations: every wait within the patience range",
          "[sim][patience]") {
  const std::string patience = "patience: {dist: uniform, min: \"3 s\", max: \"5 s\"}";
  // Open loop, two pipeline stages, offered well beyond what the replica serves.
  const Scenario pp = scenario_from("{kind: vllm, max_num_seqs: 64}",
                                    "{requests: 3000, arrival: {process: poisson, rate: 60}, input_tokens: {dist: "
                                    "fixed, value: 1024}, output_tokens: {dist: fixed, value: 256}, " +
                                        patience + "}",
                                    "llama-3.1-8b", "{tp: 1, pp: 2}");
  // Closed loop: 400 users in conversations of three turns.
  const Scenario cl = scenario_from("{kind: vllm, max_num_seqs: 64}",
                                    "{requests: 3000, arrival: {process: closed_loop, users: 400, think_time: \"1 s\"}, "
                                    "input_tokens: {dist: fixed, value: 1024}, output_tokens: {dist: fixed, value: 256}, "
                                    "multi_turn: {turns: 3, conversation_metrics: true}, " +
                                        patience + "}");
  for (const Scenario* sc : {&pp, &cl}) {
    const RunWithCsv run = run_with_csv(*sc, nullptr);
    const RunSummary& s = run.result.summary;
    const std::int64_t abandoned = s.failures[static_cast<std::size_t>(FailureReason::abandoned)];
    CHECK(abandoned > 0);
    CHECK(s.failed == abandoned);
    CHECK(s.completed + s.failed == s.load.offered);
    // A user waits its own patience, drawn from [3, 5] s, never more or less.
    CHECK(s.abandoned_wait_ms.min >= 3000.0);
    CHECK(s.abandoned_wait_ms.max <= 5000.0);
    for (const RequestResult& r : run.results)
      if (!r.failed) CHECK(r.ttft_ms <= 5000.0);  // nobody is served after giving up
    if (sc == &cl) {
      // Closed loop: a user has one request out, so each abandonment ends a distinct conversation.
      CHECK(s.conversations.abandoned == abandoned);
      CHECK(s.conversations.conversations ==
            s.conversations.completed + s.conversations.abandoned + s.conversations.cut);
    }
  }
}
