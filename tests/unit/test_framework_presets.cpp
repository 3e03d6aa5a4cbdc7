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
#include "validation/static_batch.h"

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

TEST_CASE("kernels per step: tensor parallelism adds two all-reduces per layer and a logits gather, pipeline stages divide",
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

TEST_CASE("engine.framework sets the CPU-side defaults, keys written in engine: override them",
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
      // A local runtime picks its own engine kind (engine/local_runtime.h).
      const Scenario sc = scenario_from(p.runtime.empty() ? fmt::format("{{kind: vllm, framework: {}}}", p.name)
                                                          : fmt::format("{{framework: {}}}", p.name));
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

TEST_CASE("step wall time: the prefill cost is paid once by a step that prefills, never by a decode step",
          "[cost][engine][framework]") {
  CpuOverheads cpu{0.5e-3, 5e-6};
  cpu.per_prefill_step = 14e-3;  // e.g. 32 layers x 437.5 us
  // Decode only (no sequence with more than one new token): 3 + 0.5 + 10 x 0.005 = 3.55 ms.
  CHECK(step_wall_seconds(3e-3, cpu, 10, 0) == Approx(3.55e-3).epsilon(1e-12));
  // Any number of prefills: + 14 ms once, 3.55 + 14 = 17.55 ms.
  CHECK(step_wall_seconds(3e-3, cpu, 10, 1) == Approx(17.55e-3).epsilon(1e-12));
  CHECK(step_wall_seconds(3e-3, cpu, 10, 7) == Approx(17.55e-3).epsilon(1e-12));
  // Without a prefill cost the sum is bit for bit the old formula.
  CHECK(step_wall_seconds(3e-3, CpuOverheads{0.5e-3, 5e-6}, 10, 3) == 3e-3 + 0.5e-3 + 10 * 5e-6);
}

TEST_CASE("engine.gemm_compute_ratio scales the GPU's gemm_compute, prefill_layer_overhead is per layer of a stage",
          "[config][framework]") {
  const Scenario base = scenario_from("{kind: vllm}");  // llama-3.1-8b on h100-sxm: 32 layers
  REQUIRE(base.engine.gemm_compute_ratio == 1.0);
  REQUIRE(base.engine.prefill_step_overhead == 0.0);
  const double g = base.gpu.efficiency.gemm_compute;
  SECTION("the ratio multiplies the profile's fraction of peak") {
    const Scenario sc = scenario_from("{kind: vllm, gemm_compute_ratio: 1.2}");
    CHECK(sc.gpu.efficiency.gemm_compute == Approx(g * 1.2).epsilon(1e-12));
    // A compute-bound prefill GEMM takes 1/1.2 of its time; the 4096-token prefill of an
    // 8B model is compute-bound on an H100, so the step shrinks, by at most 1/1.2.
    const BatchSummary b = batch_of(1, SeqWork{4096, 0, true});
    const double t0 = make_cost_model(base).totals(b).time, t1 = make_cost_model(sc).totals(b).time;
    CHECK(t1 < t0);
    CHECK(t1 > t0 / 1.2);
  }
  SECTION("the per-layer prefill cost: 32 layers x 400 us = 12.8 ms a prefill step; 2 stages: 16 layers each") {
    const Scenario sc = scenario_from("{kind: vllm, prefill_layer_overhead: \"400 us\"}");
    CHECK(sc.engine.prefill_step_overhead == Approx(32 * 400e-6).epsilon(1e-12));
    CHECK(sc.engine.cpu_overheads().per_prefill_step == sc.engine.prefill_step_overhead);
    const Scenario pp2 = scenario_from("{kind: vllm, prefill_layer_overhead: \"400 us\"}", "", "llama-3.1-8b", "{pp: 2}");
    CHECK(pp2.engine.prefill_step_overhead == Approx(16 * 400e-6).epsilon(1e-12));
  }
  SECTION("lmdeploy-turbomind sets both; a key in the scenario overrides them") {
    const FrameworkPreset& p = *find_framework_preset("lmdeploy-turbomind");
    const Scenario sc = scenario_from("{kind: vllm, framework: lmdeploy-turbomind}");
    CHECK(sc.engine.gemm_compute_ratio == p.gemm_compute_ratio);
    CHECK(sc.gpu.efficiency.gemm_compute == Approx(g * p.gemm_compute_ratio).epsilon(1e-12));
    CHECK(sc.engine.prefill_step_overhead == Approx(32 * p.prefill_layer_overhead).epsilon(1e-12));
    const Scenario off =
        scenario_from("{kind: vllm, framework: lmdeploy-turbomind, gemm_compute_ratio: 1, prefill_layer_overhead: 0 us}");
    CHECK(off.gpu.efficiency.gemm_compute == g);
    CHECK(off.engine.prefill_step_overhead == 0.0);
  }
  SECTION("a ratio that would take gemm_compute past the peak is refused, naming the key") {
    try {
      scenario_from("{kind: vllm, gemm_compute_ratio: 1.9}");  // 0.7 x 1.9 = 1.33 of peak
      FAIL("no error");
    } catch (const Error& e) {
      const std::string msg = e.what();
      CHECK_THAT(msg, Catch::Contains("engine.gemm_compute_ratio"));
      CHECK_THAT(msg, Catch::Contains("more than the peak"));
    }
  }
}

TEST_CASE("a static-batch prefill pays the per-layer prefill cost once, a 1-token prompt (a decode) does not",
          "[validation][framework]") {
  // TurboMind runs a sequence whose input is one token as a decode (LlamaBatch.cc v0.1.0:
  // prefill only where input_length > 1), as servesim's BatchSummary counts it.
  const Scenario with = scenario_from("{kind: vllm, prefill_layer_overhead: \"500 us\"}");
  const Scenario without = scenario_from("{kind: vllm}");
  const StaticBatchPredictor a(with), b(without);
  // 128-token prompt: + 32 x 0.5 ms = 16 ms, whether 1 or 8 prompts share the step.
  CHECK(a.prefill(1, 128) - b.prefill(1, 128) == Approx(16e-3).epsilon(1e-9));
  CHECK(a.prefill(8, 128) - b.prefill(8, 128) == Approx(16e-3).epsilon(1e-9));
  CHECK(a.prefill(1, 1) == b.prefill(1, 1));
  CHECK(a.decode(8, 500) == b.decode(8, 500));
}

TEST_CASE("the engine charges the prefill cost to the step that prefills: TTFT grows by it, TPOT does not",
          "[sim][closed_form][framework]") {
  // One 100-token request on an idle engine: its prompt is prefilled in one step (100 <
  // max_num_batched_tokens), then 49 decode steps. 400 us a layer x 32 layers = 12.8 ms
  // lands on the first token only.
  const Scenario plain = scenario_from("{kind: vllm}");
  const Scenario with = scenario_from("{kind: vllm, prefill_layer_overhead: \"400 us\"}");
  REQUIRE(with.engine.prefill_step_overhead == Approx(12.8e-3).epsilon(1e-12));
  SimulationOptions opt;
  opt.fast_forward = false;
  VectorSource a({make_request(0.0, 100, 50)}), b({make_request(0.0, 100, 50)});
  const SimulationResult r0 = simulate(plain, a, opt), r1 = simulate(with, b, opt);
  REQUIRE(r0.summary.completed == 1);
  REQUIRE(r1.summary.completed == 1);
  // Steps are rounded to the ns: the difference is 12.8 ms within a few ns.
  CHECK(r1.summary.ttft_ms.mean - r0.summary.ttft_ms.mean == Approx(12.8).margin(1e-5));
  CHECK(r1.summary.tpot_ms.mean == Approx(r0.summary.tpot_ms.mean).margin(1e-6));
}

TEST_CASE("engine.attention_memory_ratio scales the GPU's attention_memory, and trtllm's fitted 1.14 arrives there",
          "[config][framework]") {
  const Scenario base = scenario_from("{kind: vllm}");  // llama-3.1-8b bf16 on h100-sxm
  REQUIRE(base.engine.attention_memory_ratio == 1.0);
  const double a = base.gpu.efficiency.attention_memory;
  SECTION("the decode attention's KV reads take 1/ratio of their time; GEMMs do not move") {
    const Scenario sc = scenario_from("{kind: vllm, attention_memory_ratio: 1.25}");
    CHECK(sc.gpu.efficiency.attention_memory == Approx(a * 1.25).epsilon(1e-12));
    CHECK(sc.gpu.efficiency.gemm_compute == base.gpu.efficiency.gemm_compute);
    // 64 sequences decoding at 4,096 tokens of context: attention reads 64 x 4,096 tokens of
    // KV a layer and is memory-bound, so its memory time is bytes / (HBM x attention_memory):
    // with 1.25 x the fraction it is exactly 1/1.25 of the base; the bytes are the same.
    const BatchSummary b = batch_of(64, SeqWork{1, 4096, true});
    auto attention = [&](const Scenario& s) {
      for (const OpCost& op : make_cost_model(s).breakdown(b).ops)
        if (op.kind == OpKind::attention) return op;
      FAIL("no attention op");
      return OpCost{};
    };
    const OpCost o0 = attention(base), o1 = attention(sc);
    CHECK(o1.bytes() == o0.bytes());
    CHECK(o1.memory_time == Approx(o0.memory_time / 1.25).epsilon(1e-12));
    CHECK(o0.bound == Bound::memory);
  }
  SECTION("trtllm sets it (0.70 x 1.14 = 0.798 of HBM bandwidth on the catalog's profiles); a key overrides it") {
    const FrameworkPreset& p = *find_framework_preset("trtllm");
    CHECK(p.attention_memory_ratio == 1.14);
    CHECK(p.gemm_compute_ratio == 1.0);
    CHECK(p.prefill_layer_overhead == 0.0);
    const Scenario sc = scenario_from("{kind: vllm, framework: trtllm}");
    CHECK(sc.engine.attention_memory_ratio == 1.14);
    CHECK(sc.gpu.efficiency.attention_memory == Approx(a * 1.14).epsilon(1e-12));
    CHECK(a == 0.70);  // the catalog's H100 profile: no attention_memory of its own
    CHECK(sc.gpu.efficiency.attention_memory == Approx(0.798).epsilon(1e-12));
    const Scenario off = scenario_from("{kind: vllm, framework: trtllm, attention_memory_ratio: 1}");
    CHECK(off.gpu.efficiency.attention_memory == a);
  }
  SECTION("every other preset keeps the catalog's attention kernels") {
    for (const FrameworkPreset& p : framework_presets()) {
      if (p.name == "trtllm") continue;
      INFO(p.name);
      CHECK(p.attention_memory_ratio == 1.0);
      // A local runtime picks its own engine kind (engine/local_runtime.h).
      const std::string engine = p.runtime.empty() ? fmt::format("{{kind: vllm, framework: {}}}", p.name)
                                                   : fmt::format("{{framework: {}}}", p.name);
      CHECK(scenario_from(engine).gpu.efficiency.attention_memory == a);
    }
  }
  SECTION("a ratio that would take attention_memory past the HBM bandwidth is refused, naming the key") {
    try {
      scenario_from("{kind: vllm, attention_memory_ratio: 1.5}");  // 0.7 x 1.5 = 1.05 of HBM
      FAIL("no error");
    } catch (const Error& e) {
      const std::string msg = e.what();
      CHECK_THAT(msg, Catch::Contains("engine.attention_memory_ratio"));
      CHECK_THAT(msg, Catch::Contains("more than the bandwidth"));
    }
  }
}
