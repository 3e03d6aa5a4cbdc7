// Prefix caching against its closed form: N identical prompts arriving one by one.
#include <catch2/catch.hpp>

#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

TEST_CASE("prefix cache: N identical prompts one by one, the first pays the full prefill", "[sim][prefix]") {
  // Prompt of 1000 tokens with one id per 16-token block (hash_block_tokens 16):
  // 1000 / 16 = 62 full blocks (992 tokens) and an 8-token tail. A hit is capped so
  // that at least one prompt token is computed: floor((1000 - 1) / 16) = 62 blocks,
  // so every request after the first reuses 62 * 16 = 992 tokens and computes 8.
  const int n = 10;
  const std::int64_t in = 1000, out = 4;
  std::vector<Request> reqs;
  for (int i = 0; i < n; ++i) {
    Request r = make_request(10.0 * i, in, out);  // 10 s apart: no overlap, no queueing
    r.hash_block_tokens = 16;
    for (int b = 0; b < 62; ++b) r.block_hashes.push_back(1000 + static_cast<std::uint64_t>(b));
    reqs.push_back(r);
  }
  const Scenario sc = scenario_from("{kind: vllm, prefix_caching: true, max_num_batched_tokens: 8192}");
  VectorSource source(reqs);
  const RunWithCsv run = run_with_csv(sc, &source, false);
  REQUIRE(run.rows.size() == static_cast<std::size_t>(n));
  const CostModel cost = make_cost_model(sc);
  // First: a full prefill of 1000 tokens at context 0. Later ones: 8 tokens on 992 cached.
  const double full = step_seconds(cost, sc.engine, batch_of(1, SeqWork{in, 0, true})) * 1e3;
  const double tail = step_seconds(cost, sc.engine, batch_of(1, SeqWork{8, 992, true})) * 1e3;
  for (const auto& r : run.rows) {
    if (r.id == 0) {
      CHECK(r.cached_tokens == 0);
      CHECK(r.ttft_ms == Approx(full).epsilon(1e-4));
    } else {
      CHECK(r.cached_tokens == 992);
      CHECK(r.ttft_ms == Approx(tail).epsilon(1e-4));
    }
  }
  CHECK(tail < 0.5 * full);
  // Hit rate over the shared blocks: (N - 1) of N requests hit all 62 of them.
  const double hit_blocks = (n - 1) * 62.0, shared_blocks = n * 62.0;
  CHECK(hit_blocks / shared_blocks == Approx((n - 1.0) / n));
  CHECK(run.result.summary.cached_tokens == static_cast<std::int64_t>(hit_blocks * 16));
  CHECK(run.result.summary.prefix_hit_rate == Approx(hit_blocks * 16 / (n * static_cast<double>(in))));
}

TEST_CASE("prefix cache: off means every request pays the full prefill", "[sim][prefix]") {
  std::vector<Request> reqs;
  for (int i = 0; i < 3; ++i) {
    Request r = make_request(10.0 * i, 1000, 4);
    r.hash_block_tokens = 16;
    for (int b = 0; b < 62; ++b) r.block_hashes.push_back(1000 + static_cast<std::uint64_t>(b));
    reqs.push_back(r);
  }
  const Scenario sc = scenario_from("{kind: vllm, prefix_caching: false}");
  VectorSource source(reqs);
  const RunWithCsv run = run_with_csv(sc, &source, false);
  for (const auto& r : run.rows) CHECK(r.cached_tokens == 0);
  CHECK(run.rows[1].ttft_ms == Approx(run.rows[0].ttft_ms).epsilon(1e-6));
}
