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

TEST_CASE("host cost: multi-step scheduling pays the scheduling share once per N decode steps", "[cost][engine][host]") {
  // The vllm-v0 preset: 0.81 ms a step of which 0.287 ms schedules and prepares inputs, 21.3 us
  // per running sequence (schedule + prepare), 21.0 us per sampled token (sampler + outputs).
  const Scenario sc = scenario_from("{framework: vllm-v0, num_scheduler_steps: 10}");
  CHECK(sc.engine.num_scheduler_steps == 10);
  const CpuOverheads cpu = sc.engine.cpu_overheads();
  CHECK(cpu.schedule_every == 10);
  CHECK(cpu.schedule_step == Approx(0.287e-3));
  // A decode step of 1000 sequences and 20 ms of GPU:
  //   without: 20 + 0.81 + 1000 x 0.0213 + 1000 x 0.021 = 63.11 ms;
  //   with N = 10: 20 + (0.81 - 0.287 + 0.0287) + 1000 x 0.00213 + 1000 x 0.021 = 43.6817 ms.
  const Scenario one = scenario_from("{framework: vllm-v0}");
  CHECK(step_wall_seconds(20e-3, one.engine.cpu_overheads(), 1000, 0, 1000, 0) == Approx(63.11e-3).epsilon(1e-9));
  CHECK(step_wall_seconds(20e-3, cpu, 1000, 0, 1000, 0) == Approx(43.6817e-3).epsilon(1e-9));
  // A step that prefills is scheduled on its own: the full 0.81 ms and 21.3 us a sequence.
  CHECK(step_wall_seconds(20e-3, cpu, 1000, 1, 1000, 0) == Approx(63.11e-3).epsilon(1e-9));
  // N = 1 is the formula without it, to the bit.
  const CpuOverheads c1 = one.engine.cpu_overheads();
  CHECK(step_wall_seconds(20e-3, c1, 1000, 0, 1000, 0) ==
        (20e-3 + (c1.per_token * 1000.0 + c1.per_prompt_token * 0.0)) + c1.per_step + c1.per_seq * 1000.0);
  // Other frameworks have no multi-step scheduler: refused, naming the key.
  try {
    scenario_from("{framework: vllm-v1, num_scheduler_steps: 8}");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("engine.num_scheduler_steps: multi-step scheduling is vLLM V0's"));
  }
}
