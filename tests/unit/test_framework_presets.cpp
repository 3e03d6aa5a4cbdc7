// engine.framework presets: the CPU-side defaults they set, keys that override them,
// and the launch floor of engines without CUDA graphs (cost/step_wall_time.h):
//   wall = max(gpu, kernels_per_step x kernel_launch_overhead) + per_step + per_seq x seqs.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "cost/kernel_count.h"
#include "cost/step_wall_time.h"
#include "engine/framework_preset.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using namespace servesim::testing;

TEST_CASE("step wall time: the launch floor replaces GPU time shorter than it", "[cost][engine][framework]") {
  const CpuOverheads cpu{0.5e-3, 5e-6, 4e-3};  // 0.5 ms per step, 5 us per sequence, 4 ms of launches
  // GPU 3 ms < floor 4 ms: 4 + 0.5 + 10 x 0.005 = 4.55 ms.
  CHECK(step_wall_seconds(3e-3, cpu, 10) == Approx(4.55e-3).epsilon(1e-12));
  // GPU 6 ms > floor: 6 + 0.5 + 0.05 = 6.55 ms (the launches hide under the GPU's work).
  CHECK(step_wall_seconds(6e-3, cpu, 10) == Approx(6.55e-3).epsilon(1e-12));
  // No floor (CUDA graphs): exactly the formula without it.
  CHECK(step_wall_seconds(3e-3, CpuOverheads{0.5e-3, 5e-6}, 10) == 3e-3 + 0.5e-3 + 10 * 5e-6);
}

TEST_CASE("kernels per step: tensor parallelism adds two all-reduces per layer and a logits gather; pipeline stages divide",
          "[cost][framework]") {
  const Scenario tp1 = scenario_from("{kind: vllm}");
  const Scenario tp2 = scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 2}");
  const double k1 = kernels_per_step(make_cost_model(tp1), 1);
  const double k2 = kernels_per_step(make_cost_model(tp2), 1);
  // Llama-3.1-8B has 32 layers; TP adds the all-reduce after attention and after the
  // MLP of each, and one gather of the vocabulary-sharded logits: 2 x 32 + 1 = 65 more
  // launches (the GEMMs shrink, their count does not).
  CHECK(k2 - k1 == Approx(65.0));
  // At least one GEMM per projection (qkv, o, gate+up, down) per layer: > 4 x 32.
  CHECK(k1 > 128.0);
  // Two pipeline stages: each host launches half.
  CHECK(kernels_per_step(make_cost_model(tp1), 2) == Approx(k1 / 2.0));
}

TEST_CASE("engine.framework sets the CPU-side defaults; keys written in engine: override them",
          "[config][framework]") {
  SECTION("the default is vllm-v1, whose values are EngineConfig's") {
    const Scenario sc = scenario_from("{kind: vllm}");
    const FrameworkPreset& v1 = default_framework_preset();
    CHECK(sc.engine.framework == "vllm-v1");
    CHECK(v1.name == "vllm-v1");
    CHECK(sc.engine.step_cpu_overhead == v1.step_cpu_overhead);
    CHECK(sc.engine.per_seq_cpu_overhead == v1.per_seq_cpu_overhead);
    CHECK(sc.engine.async_scheduling == v1.async_scheduling);
    CHECK(sc.engine.prefix_caching == v1.prefix_caching);
    CHECK(sc.engine.kernel_launch_overhead == 0.0);
    CHECK(sc.engine.launch_floor == 0.0);
    const EngineConfig defaults{};
    CHECK(defaults.step_cpu_overhead == v1.step_cpu_overhead);
    CHECK(defaults.per_seq_cpu_overhead == v1.per_seq_cpu_overhead);
    CHECK(defaults.async_scheduling == v1.async_scheduling);
    CHECK(defaults.prefix_caching == v1.prefix_caching);
    CHECK(defaults.frontend_latency == v1.frontend_latency);
  }
  SECTION("each preset's values arrive in the engine settings") {
    for (const FrameworkPreset& p : framework_presets()) {
      const Scenario sc = scenario_from(fmt::format("{{kind: vllm, framework: {}}}", p.name));
      INFO(p.name);
      CHECK(sc.engine.framework == p.name);
      CHECK(sc.engine.step_cpu_overhead == p.step_cpu_overhead);
      CHECK(sc.engine.per_seq_cpu_overhead == p.per_seq_cpu_overhead);
      CHECK(sc.engine.kernel_launch_overhead == p.kernel_launch_overhead);
      CHECK(sc.engine.frontend_latency == p.frontend_latency);
      CHECK(sc.engine.async_scheduling == p.async_scheduling);
      CHECK(sc.engine.prefix_caching == p.prefix_caching);
      // The floor is the launches of one step: kernels x per-kernel CPU time.
      CHECK(sc.engine.launch_floor ==
            Approx(p.kernel_launch_overhead * kernels_per_step(make_cost_model(sc), 1)).epsilon(1e-12));
    }
  }
  SECTION("a key set in the scenario wins over the preset") {
    const Scenario sc = scenario_from(
        "{kind: vllm, framework: vllm-2023-eager, step_cpu_overhead: \"1 ms\", async_scheduling: true, "
        "kernel_launch_overhead: \"0 us\"}");
    CHECK(sc.engine.step_cpu_overhead == Approx(1e-3));
    CHECK(sc.engine.async_scheduling);
    CHECK(sc.engine.launch_floor == 0.0);
    CHECK(sc.engine.per_seq_cpu_overhead == find_framework_preset("vllm-2023-eager")->per_seq_cpu_overhead);
  }
  SECTION("an unknown framework is refused with the valid names and a did-you-mean") {
    try {
      scenario_from("{kind: vllm, framework: vllm-v2}");
      FAIL("no error");
    } catch (const Error& e) {
      const std::string msg = e.what();
      CHECK_THAT(msg, Catch::Contains("engine.framework"));
      CHECK_THAT(msg, Catch::Contains("unknown framework 'vllm-v2'"));
      CHECK_THAT(msg, Catch::Contains("did you mean"));
      CHECK_THAT(msg, Catch::Contains("trtllm"));
    }
  }
}

TEST_CASE("an eager engine whose launches outlast the GPU: TPOT = launch floor + CPU time per step",
          "[sim][closed_form][framework]") {
  // 50 us per launch makes the floor of Llama-3.1-8B (hundreds of kernels) tens of ms,
  // far above its ~5 ms H100 decode step, so every decode step costs exactly
  //   floor + step_cpu_overhead + 1 x per_seq_cpu_overhead.
  const Scenario sc = scenario_from(
      "{kind: vllm, framework: vllm-2023-eager, kernel_launch_overhead: \"50 us\"}");
  const double floor = sc.engine.launch_floor;
  const CostModel cost = make_cost_model(sc);
  REQUIRE(floor == Approx(50e-6 * kernels_per_step(cost, 1)));
  const std::int64_t in = 100, out = 50;
  // The GPU time of the longest decode step (context in + out) stays under the floor.
  REQUIRE(cost.totals(batch_of(1, SeqWork{1, in + out, true})).time < floor);
  VectorSource src({make_request(0.0, in, out)});
  SimulationOptions opt;
  opt.fast_forward = false;
  const SimulationResult r = simulate(sc, src, opt);
  REQUIRE(r.summary.completed == 1);
  const double want_ms = (floor + sc.engine.step_cpu_overhead + sc.engine.per_seq_cpu_overhead) * 1e3;
  // Each step is rounded to the ns: relative error < 1e-9 on tens of ms; 1e-6 holds.
  CHECK(r.summary.tpot_ms.mean == Approx(want_ms).epsilon(1e-6));
}

TEST_CASE("engine.collective_latency replaces the GPU link's per-hop latency when larger", "[config][framework]") {
  const Scenario graphs = scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 2}");
  const double link = graphs.gpu.intra_node.latency;  // the catalog's NVLink latency (h100-sxm.yaml)
  REQUIRE(graphs.engine.collective_latency == 0.0);
  SECTION("larger: the eager value is every hop's latency") {
    const Scenario eager =
        scenario_from("{kind: vllm, collective_latency: \"40 us\"}", "", "llama-3.1-8b", "{tp: 2}");
    REQUIRE(link < 40e-6);
    CHECK(eager.gpu.intra_node.latency == Approx(40e-6));
    // An all-reduce over TP 2 pays 2 x ceil(log2 2) = 2 hops and the logits all-gather 1 hop
    // (cost/collectives.cpp): the 2 x 32 per-layer all-reduces and the gather of a step add
    // (2 x 32 x 2 + 1) = 129 hops of (40 us - link) each.
    const BatchSummary b = batch_of(1, SeqWork{1, 100, true});
    const double grown = make_cost_model(eager).totals(b).time - make_cost_model(graphs).totals(b).time;
    CHECK(grown == Approx((2.0 * 32 * 2.0 + 1.0) * (40e-6 - link)).epsilon(1e-6));
  }
  SECTION("smaller: the link's own latency stays") {
    const Scenario small = scenario_from("{kind: vllm, collective_latency: \"0 us\"}", "", "llama-3.1-8b", "{tp: 2}");
    CHECK(small.gpu.intra_node.latency == link);
  }
}

TEST_CASE("speculative decoding with the prefill-first scheduler is refused, naming both", "[config][framework]") {
  try {
    scenario_from("{kind: vllm, framework: vllm-v0, speculative: {method: eagle, num_speculative_tokens: 3, "
                  "acceptance_rate: 0.7}}");
    FAIL("no error");
  } catch (const Error& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::Contains("engine.speculative"));
    CHECK_THAT(msg, Catch::Contains("vllm_v0_prefill_first"));
    CHECK_THAT(msg, Catch::Contains("engine.scheduler"));
  }
  // The same speculation under vllm-v0's CPU settings with the v1 scheduler is accepted.
  const Scenario ok = scenario_from(
      "{kind: vllm, framework: vllm-v0, scheduler: vllm_v1, speculative: {method: eagle, num_speculative_tokens: 3, "
      "acceptance_rate: 0.7}}");
  CHECK(ok.engine.speculative.enabled());
}
