// Speculative decoding (engine.speculative, engine/speculative.h): closed forms at
// batch 1 and the configuration's refusals.
//
// One request alone (batch 1), prompt `in`, `out` output tokens, k proposed tokens,
// i.i.d. acceptance alpha. Each speculating step of the target costs
//   t_spec = k t_draft + t_verify(k+1)
// (t_draft: the drafter's GPU time of one decode step; t_verify(k+1): the wall time
// of the target's step feeding k+1 tokens, CPU overheads included) and emits
//   E = (1 - alpha^(k+1)) / (1 - alpha)
// tokens in expectation (deterministically: floor(s E) after s steps), so
//   TPOT_spec = t_spec / E,  TPOT_plain = t_decode,
//   speed-up  = E t_decode / (k t_draft + t_verify(k+1)).
// Step times grow with the context; the closed form takes them at the mean
// context in + out/2 (exact for step times affine in the context); the last step
// may emit up to E - 1 tokens more than asked, under 0.3% of 1000 tokens.
#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "engine/step_pricing.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

constexpr std::int64_t kIn = 2000, kOut = 1001;

double tpot_ms(const Scenario& sc) {
  VectorSource src({make_request(0.0, kIn, kOut)});
  const SimulationResult r = simulate(sc, src, {});
  REQUIRE(r.summary.completed == 1);
  return r.summary.tpot_ms.mean;
}

// The closed-form step times at context ctx (seconds).
struct StepTimes {
  double decode = 0;  // plain decode step, wall
  double draft = 0;   // one drafter decode step, GPU
  double verify = 0;  // the target's k+1-token step, wall
};

StepTimes step_times(const Scenario& sc, std::int64_t k, std::int64_t ctx) {
  const CostModel cost = make_cost_model(sc);
  const std::unique_ptr<CostModel> draft = make_draft_cost_model(sc);
  REQUIRE(draft);
  StepTimes t;
  t.decode = step_seconds(cost, sc.engine, batch_of(1, SeqWork{1, ctx, true}));
  t.draft = draft->totals(batch_of(1, SeqWork{1, ctx, true})).time;
  // Verification: SeqWork{k+1, ctx}, with the LM head on all k+1 positions.
  BatchSummary v = batch_of(1, SeqWork{k + 1, ctx, true});
  v.sampled = k + 1;
  t.verify = step_seconds(cost, sc.engine, v);
  return t;
}

// MTP drafts with the model's own modules: Llama-3.1-8B's shapes with one MTP module
// (a test fixture; the catalog's 8B has none and refuses mtp).
const std::string kMtpModel = std::string(SERVESIM_TEST_FIXTURES) + "/model_files/llama-3.1-8b-mtp.yaml";

Scenario spec_scenario(const std::string& spec) {
  if (spec.find("method: mtp") != std::string::npos)
    return scenario_from("{max_num_seqs: 256, speculative: " + spec + "}", "", kMtpModel);
  return scenario_from("{max_num_seqs: 256, speculative: " + spec + "}");
}
// Llama-3.1-70B on 4 H100s drafted by Llama-3.1-8B (the same tokenizer).
Scenario draft_scenario(const std::string& spec) {
  return scenario_from("{max_num_seqs: 256, speculative: " + spec + "}", "", "llama-3.1-70b", "{tp: 4}");
}
const std::string kDraft70 = "{method: draft_model, draft_model: llama-3.1-8b, num_speculative_tokens: 4, "
                             "acceptance_rate: 0.6}";

}  // namespace

TEST_CASE("speculative decoding: expected tokens per step are (1 - a^(k+1)) / (1 - a)", "[speculative]") {
  SpeculativeConfig c;
  c.method = "eagle";
  c.num_speculative_tokens = 4;
  c.acceptance.assign(4, 0.6);
  CHECK(c.expected_tokens() == Approx((1 - std::pow(0.6, 5)) / (1 - 0.6)));
  c.acceptance.assign(4, 0.0);
  CHECK(c.expected_tokens() == 1.0);
  c.acceptance.assign(4, 1.0);
  CHECK(c.expected_tokens() == 5.0);
  // Per position: 1 + a1 + a1 a2 + a1 a2 a3.
  c.num_speculative_tokens = 3;
  c.acceptance = {0.8, 0.5, 0.25};
  CHECK(c.expected_tokens() == Approx(1 + 0.8 + 0.4 + 0.1));
}

TEST_CASE("speculative decoding at batch 1: the TPOT speed-up is E t_decode / (k t_draft + t_verify)",
          "[speculative][closed_form]") {
  const std::int64_t mid = kIn + kOut / 2;
  for (const auto& [method, k, alpha] : {std::tuple<std::string, std::int64_t, double>{"eagle", 3, 0.7},
                                         {"mtp", 1, 0.85},
                                         {"draft_model", 4, 0.6}}) {
    CAPTURE(method, k, alpha);
    const bool dm = method == "draft_model";
    const double base = tpot_ms(dm ? scenario_from("{max_num_seqs: 256}", "", "llama-3.1-70b", "{tp: 4}")
                                   : scenario_from("{max_num_seqs: 256}"));
    const std::string spec = fmt::format("{{method: {}, num_speculative_tokens: {}, acceptance_rate: {}{}}}", method,
                                         k, alpha, dm ? ", draft_model: llama-3.1-8b" : "");
    const Scenario sc = dm ? draft_scenario(spec) : spec_scenario(spec);
    const StepTimes t = step_times(sc, k, mid);
    const double e = (1 - std::pow(alpha, k + 1)) / (1 - alpha);
    const double want = e * t.decode / (static_cast<double>(k) * t.draft + t.verify);
    const double got = base / tpot_ms(sc);
    CHECK(got == Approx(want).epsilon(0.01));
    CHECK(got > 1.0);  // at batch 1 decoding is memory-bound: speculation pays
  }
}

TEST_CASE("speculative decoding with alpha = 0 is slower than none by the draft's cost",
          "[speculative][closed_form]") {
  // E = 1: every step emits one token, so TPOT = k t_draft + t_verify(k+1) > t_decode.
  const Scenario plain = scenario_from("{max_num_seqs: 256}");
  const std::int64_t k = 3;
  const Scenario sc = spec_scenario("{method: eagle, num_speculative_tokens: 3, acceptance_rate: 0}");
  const StepTimes t = step_times(sc, k, kIn + kOut / 2);
  const double got = tpot_ms(sc);
  CHECK(got == Approx((static_cast<double>(k) * t.draft + t.verify) * 1e3).epsilon(0.01));
  CHECK(got > tpot_ms(plain) + 0.9 * static_cast<double>(k) * t.draft * 1e3);
}

TEST_CASE("speculative decoding: the drafter takes memory", "[speculative]") {
  auto blocks = [](const Scenario& sc) {
    VectorSource src({make_request(0.0, 100, 10)});
    return simulate(sc, src, {}).kv_blocks_per_replica;
  };
  // EAGLE on 8B: one more layer of KV per token (32 -> 33 layers) and one layer of weights.
  const std::int64_t plain8 = blocks(scenario_from("{max_num_seqs: 256}"));
  const std::int64_t eagle8 = blocks(spec_scenario("{method: eagle, num_speculative_tokens: 2, acceptance_rate: 0.5}"));
  CHECK(eagle8 < plain8);
  CHECK(static_cast<double>(eagle8) < 32.0 / 33.0 * static_cast<double>(plain8));
  // 70B drafted by 8B: 80 + 32 layers of KV per token, and the 8B's weights.
  const std::int64_t plain70 = blocks(scenario_from("{max_num_seqs: 256}", "", "llama-3.1-70b", "{tp: 4}"));
  const std::int64_t draft70 = blocks(draft_scenario(kDraft70));
  CHECK(static_cast<double>(draft70) < 80.0 / 112.0 * static_cast<double>(plain70));
}

TEST_CASE("speculative decoding: bad settings are refused with the reason", "[speculative][inputs]") {
  auto refused = [](const std::string& spec, const std::string& what) {
    CAPTURE(spec);
    CHECK_THROWS_WITH(spec_scenario(spec), Catch::Contains(what));
  };
  refused("{method: eagle, num_speculative_tokens: 0, acceptance_rate: 0.5}", "num_speculative_tokens");
  refused("{method: eagle, acceptance_rate: 0.5}", "num_speculative_tokens");
  refused("{method: eagle, num_speculative_tokens: 2, acceptance_rate: 1.5}", "acceptance_rate");
  refused("{method: eagle, num_speculative_tokens: 2, acceptance_rate: -0.1}", "acceptance_rate");
  refused("{method: eagle, num_speculative_tokens: 2}", "acceptance_rate");
  refused("{method: eagle, num_speculative_tokens: 2, acceptance: [0.5]}", "one per proposed position");
  refused("{method: eagle, num_speculative_tokens: 2, acceptance: [0.5, 2]}", "[0, 1]");
  refused("{method: eagle, num_speculative_tokens: 2, acceptance_rate: 0.5, acceptance: [0.5, 0.5]}", "not both");
  refused("{method: medusa, num_speculative_tokens: 2, acceptance_rate: 0.5}", "medusa");
  refused("{method: draft_model, num_speculative_tokens: 2, acceptance_rate: 0.5}", "needs draft_model");
  refused("{method: draft_model, draft_model: no-such-model, num_speculative_tokens: 2, acceptance_rate: 0.5}",
          "unknown model 'no-such-model'");
  refused("{method: eagle, draft_model: llama-3.1-8b, num_speculative_tokens: 2, acceptance_rate: 0.5}",
          "for method draft_model only");
  // A draft model must share the target's vocabulary (Llama 3 has 128256 tokens, the catalog's Mistral 7B 32768).
  refused("{method: draft_model, draft_model: mistral-7b, num_speculative_tokens: 2, acceptance_rate: 0.5}",
          "vocabulary");
  // MTP needs the model's own prediction modules: the catalog's Llama-3.1-8B has none.
  CHECK_THROWS_WITH(scenario_from("{speculative: {method: mtp, num_speculative_tokens: 1, acceptance_rate: 0.8}}"),
                    Catch::Contains("llama-3.1-8b has none"));
  // Engines that cannot speculate.
  CHECK_THROWS_WITH(scenario_from("{kind: static, speculative: {method: eagle, num_speculative_tokens: 2, "
                                  "acceptance_rate: 0.5}}"),
                    Catch::Contains("engine kind vllm"));
  // Per-position acceptance is accepted.
  const Scenario ok = spec_scenario("{method: mtp, num_speculative_tokens: 2, acceptance: [0.9, 0.6]}");
  CHECK(ok.engine.speculative.expected_tokens() == Approx(1 + 0.9 + 0.54));
}

TEST_CASE("speculative decoding: the speed-up shrinks with the batch and turns into a slowdown",
          "[speculative]") {
  // n requests at once (prompt 128, 512 out): at n = 1 decoding is memory-bound and
  // EAGLE (k = 4, alpha = 0.7, E = 2.77) cuts TPOT; at n = 512 every step verifies
  // 512 x 5 tokens, compute-bound, and costs more per emitted token than plain decoding.
  auto tpot = [](const Scenario& sc, int n) {
    std::vector<Request> rs;
    for (int i = 0; i < n; ++i) rs.push_back(make_request(0.0, 128, 512));
    VectorSource src(std::move(rs));
    const SimulationResult r = simulate(sc, src, {});
    REQUIRE(r.summary.completed == n);
    return r.summary.tpot_ms.p50;
  };
  const Scenario plain = scenario_from("{max_num_seqs: 512}");
  const Scenario eagle =
      scenario_from("{max_num_seqs: 512, speculative: {method: eagle, num_speculative_tokens: 4, acceptance_rate: 0.7}}");
  const double low = tpot(plain, 1) / tpot(eagle, 1);
  const double mid = tpot(plain, 64) / tpot(eagle, 64);
  const double high = tpot(plain, 512) / tpot(eagle, 512);
  CAPTURE(low, mid, high);
  CHECK(low > 1.5);
  CHECK(mid < low);
  CHECK(high < 1.0);
}
