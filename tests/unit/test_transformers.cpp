// Hugging Face Transformers' generate() as servesim runs it (engine.framework
// transformers): a static batch padded to its longest prompt, decoding until its longest
// request is done and returning every request together.
#include <catch2/catch.hpp>

#include <cmath>

#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;
using Catch::Contains;

namespace {

constexpr double kNsInMs = 1e-6;  // 1 ns in milliseconds

// One step's clock advance, as the static engine charges it (step_wall_time.h, integer ns).
Nanos step_ns(const CostModel& cost, const EngineConfig& cfg, const BatchSummary& b) {
  return std::max<Nanos>(1, to_nanos(step_wall_seconds(cost.totals(b).time, cfg.cpu_overheads(), b.seqs)));
}

}  // namespace

TEST_CASE("transformers: a static batch waits for its longest sequence", "[transformers][sim][closed_form]") {
  // Two requests at t = 0, prompts 100 and 300, outputs 10 and 50, batch_size 2: one
  // generate() call. Padded to the longest prompt, the prefill prices 2 x 300 tokens and
  // decode step d (d = 0 .. 48) 2 sequences of 300 + d tokens of KV:
  //   prefill = t(2 x SeqWork{300, 0}),  batch = prefill + sum_{d=0}^{48} t(2 x SeqWork{1, 300 + d})
  // Both requests get their first token after the prefill and both come back at the batch's
  // end: the 10-token request's E2E is the 50-token one's.
  const Scenario sc = scenario_from("{framework: transformers, transformers: {batch_size: 2}}");
  CHECK(sc.engine.kind == "static");
  CHECK(sc.engine.pad_to_longest);
  CHECK(sc.engine.release_at_batch_end);
  const CostModel cost = make_cost_model(sc);
  const Nanos prefill = step_ns(cost, sc.engine, batch_of(2, SeqWork{300, 0, true}));
  Nanos end = prefill;
  for (std::int64_t d = 0; d <= 48; ++d) end += step_ns(cost, sc.engine, batch_of(2, SeqWork{1, 300 + d, true}));
  VectorSource src({make_request(0.0, 100, 10), make_request(0.0, 300, 50)});
  const RunWithCsv run = run_with_csv(sc, &src);
  REQUIRE(run.rows.size() == 2);
  for (const auto& row : run.rows) {
    INFO("request " << row.id);
    CHECK(row.ttft_ms == Approx(static_cast<double>(prefill) * kNsInMs).margin(0.001));
    CHECK(row.e2e_ms == Approx(static_cast<double>(end) * kNsInMs).margin(0.001));
  }
  // Without padding (the plain static engine) the short prompt would prefill its own 100
  // tokens: padding costs the GPU 200 tokens' more work (the eager launch floor may hide it in
  // the wall time of so small a batch).
  BatchSummary unpadded = cost.batch();
  unpadded.add(SeqWork{100, 0, true});
  unpadded.add(SeqWork{300, 0, true});
  CHECK(cost.totals(batch_of(2, SeqWork{300, 0, true})).time > cost.totals(unpadded).time);
}

TEST_CASE("transformers: eager launches every kernel from Python, static cache + compile replay graphs",
          "[transformers][engine]") {
  const Scenario eager = scenario_from("{framework: transformers}");
  CHECK(eager.engine.kernel_launch_overhead > 0);
  CHECK(eager.engine.launch_floor > 0);
  CHECK(eager.engine.attention == AttentionKernel::flash);  // sdpa by default
  const Scenario graphs =
      scenario_from("{framework: transformers, transformers: {static_cache: true, torch_compile: true}}");
  CHECK(graphs.engine.kernel_launch_overhead == 0);
  CHECK(graphs.engine.launch_floor == 0);
  const Scenario naive = scenario_from("{framework: transformers, transformers: {attn_implementation: eager}}");
  CHECK(naive.engine.attention == AttentionKernel::naive);
  REQUIRE_THROWS_WITH(scenario_from("{framework: transformers, max_num_seqs: 4}"),
                      Contains("engine.transformers.batch_size"));
}
