// Serving-stack host cost (cost/step_wall_time.h, docs/host-cost.md): the host work of a
// step grows with its sequences, sampled tokens and prompt tokens, and a share of the
// per-token part runs under the GPU step:
//   serial = per_step + per_seq x seqs
//   tokens = per_token x sampled + per_prompt_token x prompt tokens
//   wall   = max(max(GPU, launch floor), overlap x tokens) + serial + (1 - overlap) x tokens
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "cost/step_wall_time.h"
#include "engine/framework_preset.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using namespace servesim::testing;

TEST_CASE("host cost: every term adds in full when none of it overlaps the GPU", "[cost][engine][host]") {
  CpuOverheads cpu;
  cpu.per_step = 0.5e-3;          // 0.5 ms a step
  cpu.per_seq = 5e-6;             // 5 us a running sequence
  cpu.per_token = 10e-6;          // 10 us a sampled token
  cpu.per_prompt_token = 0.1e-6;  // 0.1 us a prompt token
  // 100 sequences, 90 sampling (10 mid-prefill), 2,000 prompt tokens, 8 ms of GPU:
  // host = 0.5 + 100 x 0.005 + 90 x 0.010 + 2000 x 0.0001 = 0.5 + 0.5 + 0.9 + 0.2 = 2.1 ms;
  // wall = 8 + 2.1 = 10.1 ms.
  CHECK(step_wall_seconds(8e-3, cpu, 100, 10, 90, 2000) == Approx(10.1e-3).epsilon(1e-12));
  // A decode step of 64 sequences (each samples one token, no prompt tokens): 5 + 0.5 + 64 x 0.015 = 6.46 ms.
  CHECK(step_wall_seconds(5e-3, cpu, 64, 0, 64, 0) == Approx(6.46e-3).epsilon(1e-12));
}

TEST_CASE("host cost: an overlapped share hides under the GPU step until it outgrows it", "[cost][engine][host]") {
  CpuOverheads cpu;
  cpu.per_step = 1e-3;    // serial: always waited on
  cpu.per_token = 20e-6;  // 20 us a sampled token
  cpu.overlap = 1;        // all of the per-token work planned while the GPU runs (SGLang's overlap scheduler)
  // 100 tokens: 2 ms of token work < GPU 8 ms: 8 + 1 (serial) = 9 ms.
  CHECK(step_wall_seconds(8e-3, cpu, 100, 0, 100, 0) == Approx(9e-3).epsilon(1e-12));
  // 500 tokens: 10 ms > 8 ms: host-bound, 10 + 1 = 11 ms.
  CHECK(step_wall_seconds(8e-3, cpu, 500, 0, 500, 0) == Approx(11e-3).epsilon(1e-12));
  // Half overlapped, 100 tokens: max(8, 0.5 x 2) + 1 + 0.5 x 2 = 10 ms.
  cpu.overlap = 0.5;
  CHECK(step_wall_seconds(8e-3, cpu, 100, 0, 100, 0) == Approx(10e-3).epsilon(1e-12));
  // ... and 1000 tokens (20 ms of token work): max(8, 10) + 1 + 10 = 21 ms.
  CHECK(step_wall_seconds(8e-3, cpu, 1000, 0, 1000, 0) == Approx(21e-3).epsilon(1e-12));
  // The launch floor is GPU-side: the overlapped work hides under it as under GPU time:
  // max(15, 10) + 1 + 10 = 26 ms.
  cpu.launch_floor = 15e-3;
  CHECK(step_wall_seconds(8e-3, cpu, 1000, 0, 1000, 0) == Approx(26e-3).epsilon(1e-12));
  // Without per-token work the formula is the one before these terms, to the bit.
  const CpuOverheads old{0.5e-3, 5e-6};
  CHECK(step_wall_seconds(3e-3, old, 10) == 3e-3 + 0.5e-3 + 10 * 5e-6);
}

TEST_CASE("host cost: the engine keys set the terms, presets give their defaults, bad values are refused",
          "[config][framework][host]") {
  SECTION("each preset's host terms arrive in the engine settings") {
    for (const FrameworkPreset& p : framework_presets()) {
      // No engine.kind: local runtimes (transformers, llama.cpp) set their own.
      const Scenario sc = scenario_from(fmt::format("{{framework: {}}}", p.name));
      INFO(p.name);
      CHECK(sc.engine.per_token_cpu_overhead == p.per_token_cpu_overhead);
      CHECK(sc.engine.prompt_token_cpu_overhead == p.prompt_token_cpu_overhead);
      CHECK(sc.engine.host_overlap == p.host_overlap);
      const CpuOverheads c = sc.engine.cpu_overheads();
      CHECK(c.per_token == p.per_token_cpu_overhead);
      CHECK(c.per_prompt_token == p.prompt_token_cpu_overhead);
      CHECK(c.overlap == p.host_overlap);
    }
    const EngineConfig defaults{};
    CHECK(defaults.per_token_cpu_overhead == default_framework_preset().per_token_cpu_overhead);
    CHECK(defaults.host_overlap == default_framework_preset().host_overlap);
  }
  SECTION("keys written in engine: win") {
    const Scenario sc = scenario_from(
        "{kind: vllm, per_token_cpu_overhead: \"30 us\", prompt_token_cpu_overhead: \"0.5 us\", host_overlap: 0.25}");
    CHECK(sc.engine.per_token_cpu_overhead == Approx(30e-6));
    CHECK(sc.engine.prompt_token_cpu_overhead == Approx(0.5e-6));
    CHECK(sc.engine.host_overlap == 0.25);
  }
  SECTION("an overlap share above 1 is refused at its key") {
    try {
      scenario_from("{kind: vllm, host_overlap: 1.5}");
      FAIL("no error");
    } catch (const Error& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("engine.host_overlap"));
    }
  }
}

TEST_CASE("host cost per token makes a lone decode exactly that much slower per step", "[sim][closed_form][host]") {
  // One request alone: every decode step runs 1 sequence sampling 1 token, so adding
  // 200 us per sampled token (and nothing overlapped) adds exactly 0.2 ms to its TPOT.
  const std::string base = "{kind: vllm, step_cpu_overhead: \"0.5 ms\", per_seq_cpu_overhead: \"5 us\", host_overlap: 0";
  const Scenario a = scenario_from(base + ", per_token_cpu_overhead: \"0 us\"}");
  const Scenario b = scenario_from(base + ", per_token_cpu_overhead: \"200 us\"}");
  SimulationOptions opt;
  opt.fast_forward = false;
  VectorSource sa({make_request(0.0, 100, 50)}), sb({make_request(0.0, 100, 50)});
  const SimulationResult ra = simulate(a, sa, opt), rb = simulate(b, sb, opt);
  REQUIRE(ra.summary.completed == 1);
  REQUIRE(rb.summary.completed == 1);
  // Steps are rounded to the ns: 1e-6 relative on a few ms holds.
  CHECK(rb.summary.tpot_ms.mean - ra.summary.tpot_ms.mean == Approx(0.2).epsilon(1e-3));
}
