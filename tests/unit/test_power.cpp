// Load-following board power (hardware/power_model.h, docs/energy.md):
//   per GPU over a step of wall time t with F FLOPs and B bytes,
//   U_c = F / (t * peak FLOP/s), U_m = B / (t * peak bytes/s),
//   P = P_active + (P_tdp - P_active) * min(1, w_c * U_c + w_m * U_m),
// and P_idle between steps. The shipped H100 SXM: P_active 142 W, w_c 2.6, w_m 0.91 (Hopper's
// fit, sim/hardware/power_model.cpp), P_idle 85 W, TDP 700 W. Energy = sum over steps of P * t + idle time * P_idle,
// times the GPUs of a replica.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "config/catalog_reader.h"
#include "hardware/power_model.h"
#include "metrics/collector.h"
#include "planning/economics.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// The closed form of one step's power, from the cost model's totals and the
// engine's wall time (what the collector sees).
struct StepPower {
  double seconds = 0, compute_util = 0, memory_util = 0, watts = 0;
};

StepPower step_power(const Scenario& sc, const CostModel& cost, const BatchSummary& b) {
  StepPower p;
  const StepTotals t = cost.totals(b);
  p.seconds = to_seconds(step_nanos(cost, sc.engine, b));
  p.compute_util = t.flops / (p.seconds * cost.peak_flops());
  p.memory_util = t.bytes / (p.seconds * sc.gpu.memory_bandwidth);
  const double a = std::min(1.0, sc.gpu.power_compute_weight * p.compute_util +
                                     sc.gpu.power_memory_weight * p.memory_util);
  p.watts = sc.gpu.active_watts + (sc.gpu.tdp_watts - sc.gpu.active_watts) * a;
  return p;
}

}  // namespace

TEST_CASE("power model: idle at zero load, capped at TDP, linear in between", "[power]") {
  const PowerModel p{85, 700, 1.8, 0.6};
  CHECK(p.watts(0, 0) == Approx(85));
  // 1.8 * 0.1 + 0.6 * 0.5 = 0.48 of the 615 W span: 85 + 295.2 = 380.2 W.
  CHECK(p.watts(0.1, 0.5) == Approx(380.2));
  // 1.8 * 0.7 = 1.26 > 1: the power limit.
  CHECK(p.watts(0.7, 0.1) == Approx(700));
  CHECK(p.watts(5, 5) == Approx(700));
}

TEST_CASE("power model: a step at zero load draws the active floor, the gaps P_idle", "[power]") {
  // Active floor 142 W: P = 142 + (700 - 142) * min(1, 2.6 U_c + 0.91 U_m).
  const PowerModel p{85, 700, 2.6, 0.91, 142};
  CHECK(p.floor_watts() == Approx(142));
  CHECK(p.watts(0, 0) == Approx(142));
  // 2.6 * 0.01 + 0.91 * 0.6 = 0.572 of the 558 W span: 142 + 319.176 = 461.176 W.
  CHECK(p.watts(0.01, 0.6) == Approx(461.176));
  CHECK(p.watts(0.4, 0.1) == Approx(700));  // 2.6 * 0.4 = 1.04 > 1: the power limit
  // Without an active floor (0) the step floor is P_idle, the model before the floor.
  CHECK(PowerModel{85, 700, 1.8, 0.6}.floor_watts() == Approx(85));

  // The collector: one 1 s step with no work, then 1 s idle: 142 J + 85 J on one GPU.
  Collector c(1e15, 3e12, 1, 1);
  c.set_power_model(p);
  StepRecord st;
  st.start = 0;
  st.end = to_nanos(1.0);
  c.on_step(st);
  RequestRecord r;
  r.arrival = 0;
  r.first_scheduled = 0;
  r.first_token = to_nanos(0.5);
  r.finish = to_nanos(2.0);
  r.input_tokens = 10;
  r.output_tokens = 5;
  c.on_request_done(r);
  const RunSummary s = c.summarize();
  CHECK(s.energy_j == Approx(142 + 85));
  CHECK(s.busy_power_w_per_gpu == Approx(142));
}

namespace {
// A GPU file of this architecture (and extra power keys), written to a temp dir and loaded.
GpuSpec gpu_of_architecture(const std::string& arch, const std::string& power_extra = "") {
  const auto dir = std::filesystem::temp_directory_path() / "servesim_test_power_arch";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / ("gpu-" + arch + "-" + std::to_string(power_extra.size()) + ".yaml")).string();
  std::ofstream(path) << "schema_version: 1\nname: arch-test\narchitecture: " << arch
                      << "\ncompute: {bf16: \"1000 TFLOP/s\"}\nmemory: {capacity: \"80 GiB\", bandwidth: \"4 TB/s\"}\n"
                         "interconnect: {intra_node: {bandwidth: \"450 GB/s\"}}\npower: {tdp: \"1000 W\", idle: \"100 W\""
                      << power_extra << "}\n";
  return load_gpu(path);
}
}  // namespace

TEST_CASE("power: a GPU file without power weights takes its architecture's fit", "[power]") {
  // sim/hardware/power_model.cpp: hopper 0.203 / 2.6 / 0.91, blackwell 0.203 / 2.0 / 1.2 (active share
  // of the TDP / w_c / w_m); an architecture without measurements takes Hopper's, said so.
  const GpuSpec b = gpu_of_architecture("blackwell");
  CHECK(b.active_watts == Approx(203));  // 0.203 x 1000 W
  CHECK(b.power_compute_weight == Approx(2.0));
  CHECK(b.power_memory_weight == Approx(1.2));
  const GpuSpec h = gpu_of_architecture("hopper");
  CHECK(h.power_compute_weight == Approx(2.6));
  CHECK(h.power_memory_weight == Approx(0.91));
  CHECK(architecture_power_measured("hopper"));
  CHECK(architecture_power_measured("blackwell"));
  CHECK_FALSE(architecture_power_measured("cdna3"));
  const GpuSpec u = gpu_of_architecture("cdna3");
  CHECK(u.power_compute_weight == Approx(2.6));
  CHECK(u.active_watts == Approx(203));
  CHECK(architecture_power("cdna3").source.find("fallback") != std::string_view::npos);
  // The file's own keys win; the active floor is clamped to at least idle.
  const GpuSpec o = gpu_of_architecture("blackwell", ", active: \"250 W\", compute_weight: 1.5, memory_weight: 0.7");
  CHECK(o.active_watts == Approx(250));
  CHECK(o.power_compute_weight == Approx(1.5));
  CHECK(o.power_memory_weight == Approx(0.7));
  REQUIRE_THROWS_WITH(gpu_of_architecture("hopper", ", active: \"50 W\""), Catch::Contains("active"));
}

TEST_CASE("power: the shipped H100 SXM reads its power keys", "[power]") {
  const Scenario sc = scenario_from("{kind: vllm}");
  CHECK(sc.gpu.tdp_watts == Approx(700));
  CHECK(sc.gpu.idle_watts == Approx(85));  // hardware/h100-sxm.yaml, nvidia-smi idle reading
  CHECK(sc.gpu.active_watts == Approx(142));  // clocks up at 0% utilisation (wilicc/gpu-burn #114)
  CHECK(sc.gpu.power_compute_weight == Approx(2.6));  // Hopper's fit (power_model.cpp)
  CHECK(sc.gpu.power_memory_weight == Approx(0.91));
}

TEST_CASE("power: an idle GPU draws P_idle", "[power]") {
  // One request, arriving at 0 and finishing at 10 s, with no step at all: the
  // whole run is idle time, 10 s * 85 W = 850 J per GPU; two GPUs per replica.
  Collector c(1e15, 3e12, 2, 1);
  c.set_power_model(PowerModel{85, 700, 1.8, 0.6});
  RequestRecord r;
  r.arrival = 0;
  r.first_scheduled = 0;
  r.first_token = to_nanos(1.0);
  r.finish = to_nanos(10.0);
  r.input_tokens = 10;
  r.output_tokens = 5;
  c.on_request_done(r);
  const RunSummary s = c.summarize();
  CHECK(s.power_w_per_gpu == Approx(85));
  CHECK(s.energy_j == Approx(2 * 850));
  CHECK(s.joules_per_output_token == Approx(1700.0 / 5));
  CHECK(s.joules_per_request == Approx(1700));

  // A step that does nothing (no FLOPs, no bytes) also draws P_idle.
  Collector d(1e15, 3e12, 1, 1);
  d.set_power_model(PowerModel{85, 700, 1.8, 0.6});
  StepRecord st;
  st.start = 0;
  st.end = to_nanos(2.0);
  d.on_step(st);
  d.on_request_done(r);
  CHECK(d.summarize().power_w_per_gpu == Approx(85));
  CHECK(d.summarize().busy_power_w_per_gpu == Approx(85));
}

TEST_CASE("power: a saturated compute-bound prefill step draws the TDP", "[power]") {
  const Scenario sc = scenario_from("{kind: vllm, max_num_batched_tokens: 8192}");
  const CostModel cost = make_cost_model(sc);
  // 8192 prompt tokens of Llama-3.1-8B: ~2 * 8e9 * 8192 = 1.3e14 FLOP, compute-bound
  // on an H100; the cost model's MFU is well above 1/w_c = 1/2.6 = 38%, so the
  // activity 2.6 * U_c + 0.91 * U_m exceeds 1 and the board sits at its limit.
  const StepPower p = step_power(sc, cost, batch_of(1, SeqWork{8192, 0, true}));
  INFO("U_c " << p.compute_util << ", U_m " << p.memory_util);
  CHECK(p.compute_util > 1.0 / 2.6);
  CHECK(p.watts == Approx(700));
  CHECK(PowerModel::of(sc.gpu).watts(p.compute_util, p.memory_util) == Approx(700));
}

TEST_CASE("power: single-user decode on an H100 draws well below the TDP", "[power]") {
  const Scenario sc = scenario_from("{kind: vllm}");
  const CostModel cost = make_cost_model(sc);
  // One sequence at 1000 tokens of context: ~16 GB of weights streamed per step,
  // ~16 GFLOP; U_c ~ 0.003-0.01, U_m ~ 0.4-0.9, so
  // P = 142 + 558 * (2.6 U_c + 0.91 U_m) ~ 142 + 558 * 0.37-0.85 = 350-620 W, below the TDP.
  const StepPower p = step_power(sc, cost, batch_of(1, SeqWork{1, 1000, true}));
  INFO("U_c " << p.compute_util << ", U_m " << p.memory_util << ", " << p.watts << " W");
  CHECK(p.compute_util < 0.02);
  CHECK(p.memory_util > 0.4);
  CHECK(p.watts == Approx(142 + 558 * (2.6 * p.compute_util + 0.91 * p.memory_util)));
  CHECK(p.watts < 700);
  CHECK(p.watts > 350);

  // The simulated run reports that power while it steps: one request, step by step.
  const std::int64_t in = 1000, out = 200;
  VectorSource src({make_request(0.0, in, out)});
  SimulationOptions opt;
  opt.fast_forward = false;
  const SimulationResult r = simulate(sc, src, opt);
  REQUIRE(r.summary.completed == 1);
  // Energy closed form: the prefill step, then out-1 decode steps at growing context;
  // they run back to back from the arrival, so there is no idle time.
  double joules = 0, seconds = 0;
  const StepPower pre = step_power(sc, cost, batch_of(1, SeqWork{in, 0, true}));
  joules += pre.watts * pre.seconds;
  seconds += pre.seconds;
  for (std::int64_t j = 1; j <= out - 1; ++j) {
    const StepPower d = step_power(sc, cost, batch_of(1, SeqWork{1, in + j - 1, true}));
    joules += d.watts * d.seconds;
    seconds += d.seconds;
  }
  CHECK(r.summary.duration_s == Approx(seconds).epsilon(1e-9));
  CHECK(r.summary.energy_j == Approx(joules).epsilon(1e-9));
  // J/token = average W x time / tokens (concurrency 1, one GPU).
  CHECK(r.summary.joules_per_output_token ==
        Approx(r.summary.power_w_per_gpu * r.summary.duration_s / static_cast<double>(out)).epsilon(1e-12));
  CHECK(r.summary.joules_per_output_token == Approx(joules / out).epsilon(1e-9));
  CHECK(r.summary.joules_per_request == Approx(joules).epsilon(1e-9));
  CHECK(r.summary.power_w_per_gpu < 700);
  // Plan/sweep economics use the same average power.
  const planning::Economics e = planning::economics(sc.gpu, r.summary);
  CHECK(e.power_watts == Approx(r.summary.power_w_per_gpu));
  CHECK(e.joules_per_output_token == Approx(r.summary.joules_per_output_token).epsilon(1e-9));
}

TEST_CASE("power: idle gaps between requests are charged at P_idle", "[power]") {
  const Scenario sc = scenario_from("{kind: vllm}");
  // Two short requests 100 s apart: the run lasts ~100 s and is idle nearly all of it,
  // so the average power is within a few W of P_idle and the energy is about
  // busy J + (duration - busy) * 85 W.
  VectorSource src({make_request(0.0, 100, 10), make_request(100.0, 100, 10)});
  SimulationOptions opt;
  opt.fast_forward = false;
  const SimulationResult r = simulate(sc, src, opt);
  REQUIRE(r.summary.completed == 2);
  const double busy_s = r.summary.busy_fraction * r.summary.duration_s;
  CHECK(r.summary.energy_j ==
        Approx(r.summary.busy_power_w_per_gpu * busy_s + 85 * (r.summary.duration_s - busy_s)).epsilon(1e-9));
  CHECK(r.summary.power_w_per_gpu == Approx(85).epsilon(0.02));
  CHECK(r.summary.busy_power_w_per_gpu > 85);
}

TEST_CASE("power: a saturated batch draws more than single-user decode, so J/token falls by more than the time",
          "[power]") {
  // J/token = P / (tokens/s): from 1 to 64 closed-loop users the token rate grows
  // and so does the board power; J/token falls by the throughput ratio divided by
  // the power ratio, not by the throughput ratio alone.
  auto run = [](int users) {
    Scenario sc = scenario_from(
        "{kind: vllm, max_num_seqs: 64}",
        "{seed: 3, requests: " + std::to_string(std::max(20, 4 * users)) +
            ", arrival: {process: closed_loop, users: " + std::to_string(users) +
            "}, input_tokens: {dist: fixed, value: 512}, output_tokens: {dist: fixed, value: 128}}");
    return simulate(sc, {}).summary;
  };
  const RunSummary one = run(1), many = run(64);
  INFO("1 user: " << one.power_w_per_gpu << " W, " << one.joules_per_output_token << " J/tok; 64 users: "
                  << many.power_w_per_gpu << " W, " << many.joules_per_output_token << " J/tok");
  CHECK(many.power_w_per_gpu > 1.2 * one.power_w_per_gpu);
  // Single-user decode is memory-bound: ~142 + 558 x (2.6 x 0.01 + 0.91 x 0.6) = 461 W, well below the
  // 700 W limit (the ML.ENERGY H100 Llama-3.1-8B run at a batch cap of 8 reads 486 W).
  CHECK(one.power_w_per_gpu < 0.75 * 700);
  const double speedup = many.output_tokens_per_s / one.output_tokens_per_s;
  CHECK(one.joules_per_output_token / many.joules_per_output_token ==
        Approx(speedup * one.power_w_per_gpu / many.power_w_per_gpu).epsilon(1e-9));
}
