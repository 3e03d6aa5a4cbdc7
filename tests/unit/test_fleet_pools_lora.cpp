// LoRA adapters (workload.lora, engine.lora) on a heterogeneous fleet (`pools:`):
// each pool's slots out of its own GPUs' KV cache, its own cold-load time over its
// own host link, lora_affinity across pools, the per-pool report adding up to the
// run's, the refusals naming the pool, determinism.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <map>
#include <set>

#include "config/yaml_text.h"
#include "cost/lora_shape.h"
#include "engine/lora_slots.h"
#include "metrics/lora_json.h"
#include "metrics/summary_json.h"
#include "run/simulation.h"
#include "lora_test_helpers.h"
#include "test_sim_helpers.h"
#include "workload/lora_adapters.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// Llama-3.1-8B (models/llama-3.1-8b.yaml), rank 16: 16 x 81,920 x 32 layers x 2 B = 80 MiB
// (test_lora.cpp derives it). With tp = 2 each GPU holds 16 x (29,696 + 25,600) x 32 x 2 B.
constexpr double kAdapterR16 = 83'886'080;
constexpr double kAdapterR16Tp2 = 56'623'104;
constexpr double kNsInMs = 1e-6;

// Llama-3.1-8B bf16, vllm, front-end latency 0; `engine_lora` the engine.lora mapping
// ("" for none), `pools` the list, `workload` a flow mapping.
Scenario fleet(const std::string& pools, const std::string& engine_lora, const std::string& workload,
               const std::string& router = "round_robin", const std::string& extra = "") {
  std::string text = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b, weights: bf16}\nparallelism: {tp: 1, "
                     "router: " + router + "}\nengine: {kind: vllm" +
                     (engine_lora.empty() ? std::string() : ", lora: " + engine_lora) + "}\nworkload: " + workload +
                     "\npools: " + pools + "\n" + extra;
  ConfigNode doc = parse_yaml_text(text);
  set_number(doc, "engine.frontend_latency", 0.0);
  return parse_scenario(doc, "test.yaml", true);
}

const std::string kTwoAdapters =
    "{requests: 16, arrival: {process: constant, rate: 0.1}, input_tokens: {dist: fixed, value: 512}, output_tokens: "
    "{dist: fixed, value: 4}, lora: {adapters: 2, rank: 16, popularity: uniform}}";

// The pool's setup without engine.lora: its memory plan before any slot.
MemoryPlan plan_without_lora(Setup s) {
  s.engine.lora.enabled = false;
  return plan_setup_memory(s, make_cost_model(s));
}

void check_tallies_add_up(const LoraReport& l) {
  LoraTally sum;
  for (const LoraPoolReport& p : l.pools) {
    sum.admissions += p.admissions;
    sum.gpu_loads += p.gpu_loads;
    sum.disk_loads += p.disk_loads;
    sum.gpu_load_s += p.gpu_load_s;
    sum.disk_load_s += p.disk_load_s;
    sum.delayed_requests += p.delayed_requests;
    sum.skips += p.skips;
  }
  CHECK(sum.admissions == l.admissions);
  CHECK(sum.gpu_loads == l.gpu_loads);
  CHECK(sum.disk_loads == l.disk_loads);
  CHECK(sum.gpu_load_s == Approx(l.gpu_load_s).epsilon(1e-12));
  CHECK(sum.disk_load_s == Approx(l.disk_load_s).epsilon(1e-12));
  CHECK(sum.delayed_requests == l.delayed_requests);
  CHECK(sum.skips == l.skips);
}

}  // namespace

TEST_CASE("pools + LoRA: each pool's slots come out of its own GPUs' KV cache, max_loras per pool",
          "[pools][lora][memory][closed_form]") {
  const Scenario sc = fleet(
      "[{name: h100, replicas: 1}, {name: a100, gpu: a100-sxm4-80gb, tp: 2, replicas: 1, max_loras: 8, "
      "max_cpu_loras: 32}]",
      "{max_loras: 16, max_cpu_loras: 64, max_lora_rank: 16}", kTwoAdapters);
  REQUIRE(sc.pools.size() == 2);
  const Setup& h = sc.pools[0].setup;
  const Setup& a = sc.pools[1].setup;
  CHECK(h.engine.lora.max_loras == 16);  // the scenario's engine.lora
  CHECK(h.engine.lora.cpu_loras() == 64);
  CHECK(a.engine.lora.max_loras == 8);  // the pool's own
  CHECK(a.engine.lora.cpu_loras() == 32);
  const MemoryPlan ph = plan_setup_memory(h, make_cost_model(h));
  const MemoryPlan pa = plan_setup_memory(a, make_cost_model(a));
  // H100, tp 1: 16 slots x 83,886,080 B (the whole adapter at max_lora_rank 16) = 1,342,177,280 B.
  CHECK(ph.lora_slots == 16 * kAdapterR16);
  // A100, tp 2: 8 slots x each GPU's shard, 56,623,104 B = 452,984,832 B per GPU.
  CHECK(pa.lora_slots == 8 * kAdapterR16Tp2);
  // Each comes out of that pool's own KV cache, byte for byte.
  CHECK(plan_without_lora(h).kv_bytes - ph.kv_bytes == Approx(16 * kAdapterR16).epsilon(1e-12));
  CHECK(plan_without_lora(a).kv_bytes - pa.kv_bytes == Approx(8 * kAdapterR16Tp2).epsilon(1e-12));

  SECTION("the run reports each pool's slots: 1 x 16 + 1 x 8 = 24 in all") {
    const SimulationResult r = simulate(sc);
    REQUIRE(r.summary.lora);
    const LoraReport& l = *r.summary.lora;
    REQUIRE(l.pools.size() == 2);
    CHECK(l.gpu_slots == 24);
    CHECK(l.pools[0].name == "h100");
    CHECK(l.pools[0].max_loras == 16);
    CHECK(l.pools[0].slot_bytes_per_gpu == 16 * kAdapterR16);
    CHECK(l.pools[1].name == "a100");
    CHECK(l.pools[1].tp == 2);
    CHECK(l.pools[1].max_loras == 8);
    CHECK(l.pools[1].max_cpu_loras == 32);
    CHECK(l.pools[1].adapter_bytes_per_gpu == kAdapterR16Tp2);
    CHECK(l.pools[1].slot_bytes_per_gpu == 8 * kAdapterR16Tp2);
    CHECK(l.adapter_bytes == kAdapterR16);  // what a host holds and a disk read moves, in every pool
    CHECK(r.summary.pools[1].hardware.kv_blocks_per_instance == pa.kv_blocks);
  }
}

TEST_CASE("pools + LoRA: a cold load takes that pool's shard over that pool's host link, in TTFT exactly",
          "[pools][lora][sim][closed_form]") {
  // Requests 10 s apart alternate between an H100 replica (tp 1) and an A100 replica
  // (tp 2) by round robin; each meets an idle replica. max_loras 1, max_cpu_loras 2, two
  // adapters drawn uniformly: a request's first step waits for nothing when its adapter
  // is in its replica's slot, for the host -> GPU copy when that replica's host cache
  // holds it, for the disk read and the copy otherwise.
  const Scenario sc = fleet("[{name: h100, replicas: 1}, {name: a100, gpu: a100-sxm4-80gb, tp: 2, replicas: 1}]",
                            "{max_loras: 1, max_cpu_loras: 2}", kTwoAdapters);
  // H100: 83,886,080 B / 64 GB/s (PCIe 5 per direction) + 10 us = 1.3207 ms.
  // A100: each GPU copies its 56,623,104 B shard / 32 GB/s (PCIe 4) + 10 us = 1.7795 ms.
  // Disk (either pool): the whole 83,886,080 B / 6.5 GB/s = 12.905 ms.
  const double copy_s[2] = {kAdapterR16 / 64e9 + 10e-6, kAdapterR16Tp2 / 32e9 + 10e-6};
  const double disk_s = kAdapterR16 / 6.5e9;
  for (int p = 0; p < 2; ++p) {
    const Setup& s = sc.pools[static_cast<std::size_t>(p)].setup;
    const LoraLoadTimes t = lora_load_times(s.engine.lora, make_cost_model(s), 16);
    CHECK(t.gpu_s == Approx(copy_s[p]).epsilon(1e-12));
    CHECK(t.disk_s == Approx(disk_s).epsilon(1e-12));
  }
  const RunWithCsv run = run_with_csv(sc, nullptr);
  REQUIRE(run.result.summary.completed == 16);
  const LoraAssignment assign(*sc.workload.lora, sc.workload.seed);
  // The prefill step of one 512-token prompt on one adapter (rank 16), priced by each pool's cost model.
  double step_s[2];
  for (int p = 0; p < 2; ++p) {
    const Setup& s = sc.pools[static_cast<std::size_t>(p)].setup;
    BatchSummary b = batch_of(1, SeqWork{512, 0, true});
    b.lora = LoraLoad{512, 1, 16};
    step_s[p] = step_seconds(make_cost_model(s), s.engine, b);
  }
  CHECK(step_s[1] > step_s[0]);  // the A100 pair prefills slower
  std::int32_t in_slot[2] = {-1, -1};
  std::set<std::int32_t> seen[2];
  std::int64_t gpu_loads[2] = {0, 0}, disk_loads[2] = {0, 0};
  for (const RequestResult& r : run.results) {
    const int p = r.replica;  // replica 0 is the h100 pool's, 1 the a100 pool's
    CHECK(p == r.id % 2);
    const std::int32_t a = assign.adapter(r.id);
    double load = 0;
    if (a != in_slot[p]) {
      ++gpu_loads[p];
      load = copy_s[p];
      if (!seen[p].count(a)) {
        ++disk_loads[p];
        load += disk_s;
      }
    }
    CHECK(r.ttft_ms == Approx(static_cast<double>(to_nanos(step_s[p] + load)) * kNsInMs).margin(kNsInMs));
    in_slot[p] = a;
    seen[p].insert(a);
  }
  const LoraReport& l = *run.result.summary.lora;
  REQUIRE(l.pools.size() == 2);
  for (int p = 0; p < 2; ++p) {
    const LoraPoolReport& q = l.pools[static_cast<std::size_t>(p)];
    CAPTURE(p);
    CHECK(q.load_s == Approx(copy_s[p]).epsilon(1e-12));
    CHECK(q.disk_read_s == Approx(disk_s).epsilon(1e-12));
    CHECK(q.admissions == 8);
    CHECK(q.gpu_loads == gpu_loads[p]);
    CHECK(q.disk_loads == disk_loads[p]);
    CHECK(q.gpu_load_s == Approx(copy_s[p] * static_cast<double>(gpu_loads[p])).epsilon(1e-12));
    CHECK(q.disk_load_s == Approx(disk_s * static_cast<double>(disk_loads[p])).epsilon(1e-12));
    CHECK(q.slot_hit_rate() == Approx(1.0 - static_cast<double>(gpu_loads[p]) / 8.0));
  }
  CHECK(disk_loads[0] + disk_loads[1] <= 4);  // each adapter read from disk at most once per replica
  // Some load found its adapter in host memory (else the copy-only path is untested).
  CHECK(gpu_loads[0] + gpu_loads[1] > disk_loads[0] + disk_loads[1]);
  check_tallies_add_up(l);
}

TEST_CASE("pools + LoRA: a pool's own max_lora_rank sizes its slots, its lora_load_bandwidth times its loads",
          "[pools][lora][memory][closed_form]") {
  // Two H100 pools; the second's slots are rank 32 and its nodes copy adapters at 16 GB/s
  // (say a PCIe 4.0 x8 host link) instead of the H100's PCIe 5 x16 (64 GB/s).
  const Scenario sc = fleet("[{name: fast, replicas: 1}, {name: slow, replicas: 1, max_lora_rank: 32, "
                            "lora_load_bandwidth: \"16 GB/s\"}]",
                            "{max_loras: 2, max_cpu_loras: 2, max_lora_rank: 16}", kTwoAdapters);
  REQUIRE(sc.pools.size() == 2);
  const Setup& fast = sc.pools[0].setup;
  const Setup& slow = sc.pools[1].setup;
  CHECK(fast.engine.lora.max_lora_rank == 16);  // the scenario's engine.lora
  CHECK(slow.engine.lora.max_lora_rank == 32);  // the pool's own
  CHECK(fast.engine.lora.load_bandwidth == 0);  // 0: the GPU's host link
  CHECK(slow.engine.lora.load_bandwidth == 16e9);
  // Slot memory is linear in the rank: 2 slots x 83,886,080 B at rank 16; x 2 again at 32.
  CHECK(plan_setup_memory(fast, make_cost_model(fast)).lora_slots == 2 * kAdapterR16);
  CHECK(plan_setup_memory(slow, make_cost_model(slow)).lora_slots == 2 * 2 * kAdapterR16);
  // A load copies the adapter at its own rank (16): 83,886,080 B / 64 GB/s + 10 us = 1.3207 ms
  // on `fast`, / 16 GB/s + 10 us = 5.2529 ms on `slow`.
  const double copy_s[2] = {kAdapterR16 / 64e9 + 10e-6, kAdapterR16 / 16e9 + 10e-6};
  const SimulationResult r = simulate(sc);
  REQUIRE(r.summary.completed == 16);
  REQUIRE(r.summary.lora);
  const LoraReport& l = *r.summary.lora;
  REQUIRE(l.pools.size() == 2);
  CHECK(l.pools[0].load_s == Approx(copy_s[0]).epsilon(1e-12));
  CHECK(l.pools[1].load_s == Approx(copy_s[1]).epsilon(1e-12));
  CHECK(l.pools[1].slot_bytes_per_gpu == 2 * 2 * kAdapterR16);
  CHECK(l.pools[0].max_lora_rank == 16);
  CHECK(l.pools[1].max_lora_rank == 32);
  CHECK(l.max_lora_rank == 16);  // engine.lora's
  // The text names the pool's own rank, not the other's.
  const std::string text = lora_text(l);
  CHECK_THAT(text, Catch::Contains("slow     1 x 2 slots of rank 32 ("));
  CHECK_THAT(text, Catch::Contains("fast     1 x 2 slots ("));
  CHECK(lora_json(l)["pools"][1]["max_lora_rank"] == 32);
  CHECK(l.pools[1].gpu_load_s == Approx(copy_s[1] * static_cast<double>(l.pools[1].gpu_loads)).epsilon(1e-12));
  check_tallies_add_up(l);
  SECTION("a pool's max_lora_rank below the adapters' rank is refused with its path") {
    const std::string e = error_of([&] {
      fleet("[{name: fast, replicas: 1}, {name: slow, replicas: 1, max_lora_rank: 8}]", "{max_loras: 2}",
            kTwoAdapters);
    });
    CHECK_THAT(e, Catch::Contains("pools[1]"));
    CHECK_THAT(e, Catch::Contains("max_lora_rank"));
  }
  SECTION("a pool's LoRA keys without engine.lora are refused") {
    const std::string e = error_of([&] {
      fleet("[{name: fast, replicas: 1, lora_load_bandwidth: 16 GB/s}]", "",
            "{requests: 4, arrival: {process: constant, rate: 1}, input_tokens: {dist: fixed, value: 100}, "
            "output_tokens: {dist: fixed, value: 10}}");
    });
    CHECK_THAT(e, Catch::Contains("pools[0].lora_load_bandwidth"));
    CHECK_THAT(e, Catch::Contains("add engine.lora"));
  }
}

TEST_CASE("pools + LoRA: a fleet run serves every request, its pools' reports add up to the run's, and it is "
          "deterministic",
          "[pools][lora][sim][determinism]") {
  const std::string workload =
      "{seed: 3, requests: 1500, arrival: {process: poisson, rate: 12}, input_tokens: {dist: lognormal, mean: 800, "
      "stddev: 300, max: 4000}, output_tokens: {dist: uniform, min: 20, max: 300}, lora: {adapters: 200, rank: 16, "
      "popularity: zipf, zipf_s: 1.0}}";
  const std::string pools =
      "[{name: h100, replicas: 2}, {name: a100, gpu: a100-sxm4-80gb, replicas: 2, max_loras: 4, max_cpu_loras: 16}]";
  const Scenario sc = fleet(pools, "{max_loras: 8, max_cpu_loras: 32}", workload, "lora_affinity");
  const RunWithCsv a = run_with_csv(sc, nullptr);
  const RunSummary& s = a.result.summary;
  CHECK(s.completed == 1500);
  CHECK(s.failed == 0);
  REQUIRE(s.lora);
  const LoraReport& l = *s.lora;
  REQUIRE(l.pools.size() == 2);
  CHECK(l.gpu_slots == 2 * 8 + 2 * 4);
  check_tallies_add_up(l);
  // Every request carries an adapter (share 1): each was admitted at least once, on the
  // pool that served it (more than once only if preempted).
  for (std::size_t p = 0; p < 2; ++p) CHECK(l.pools[p].admissions >= s.pools[p].completed);
  CHECK(l.admissions == 1500 + s.preemptions);
  CHECK(l.pools[0].gpu_loads > 0);
  CHECK(l.pools[1].gpu_loads > 0);
  // The A100 pool's fewer slots miss more often than the H100's.
  CHECK(l.pools[1].slot_hit_rate() < l.pools[0].slot_hit_rate());
  // JSON: the per-pool entries and the run's; text: a line per pool and the total.
  const nlohmann::json j = summary_json(s);
  REQUIRE(j["lora"]["pools"].size() == 2);
  CHECK(j["lora"]["pools"][1]["max_loras"] == 4);
  CHECK(j["lora"]["gpu_loads"] == l.gpu_loads);
  CHECK_FALSE(j["lora"].contains("max_loras"));  // a fleet's slots are per pool
  const std::string text = summary_table(s);
  CHECK_THAT(text, Catch::Contains("24 GPU slots over 2 pools"));
  CHECK_THAT(text, Catch::Contains("  a100     2 x 4 slots"));
  CHECK_THAT(text, Catch::Contains("  all      "));
  // Same seed, same bytes.
  const RunWithCsv b = run_with_csv(sc, nullptr);
  CHECK(b.csv == a.csv);
  CHECK(summary_json(b.result.summary).dump() == j.dump());
}

TEST_CASE("pools + LoRA: lora_affinity keeps each adapter on one replica across pools", "[pools][lora][router]") {
  // An H100 and an A100 replica, 4 adapters drawn uniformly, 2 slots each, one request a
  // second (each done in about 1-2 s): affinity keeps an adapter where it was first sent,
  // round robin spreads every adapter over both and reloads them.
  const std::string workload =
      "{requests: 200, arrival: {process: constant, rate: 1}, input_tokens: {dist: fixed, value: 500}, "
      "output_tokens: {dist: fixed, value: 100}, lora: {adapters: 4, rank: 16, popularity: uniform}}";
  const std::string pools = "[{name: h100, replicas: 1}, {name: a100, gpu: a100-sxm4-80gb, replicas: 1}]";
  auto run = [&](const std::string& router) {
    return run_with_csv(fleet(pools, "{max_loras: 2, max_cpu_loras: 4}", workload, router), nullptr);
  };
  const RunWithCsv affinity = run("lora_affinity");
  const RunWithCsv spread = run("round_robin");
  REQUIRE(affinity.result.summary.completed == 200);
  const Scenario sc = fleet(pools, "{max_loras: 2, max_cpu_loras: 4}", workload);
  const LoraAssignment assign(*sc.workload.lora, sc.workload.seed);
  // The share of requests served on their adapter's usual replica.
  auto kept = [&](const RunWithCsv& r) { return servesim::testing::share_on_usual_replica(r.results, assign); };
  const LoraReport& la = *affinity.result.summary.lora;
  const LoraReport& ls = *spread.result.summary.lora;
  CAPTURE(kept(affinity), kept(spread), la.gpu_loads, ls.gpu_loads);
  CHECK(kept(affinity) == 1.0);
  CHECK(kept(spread) < 0.75);
  CHECK(la.gpu_loads < ls.gpu_loads / 2);
  // Both pools serve (the adapters are split between them).
  CHECK(la.pools[0].admissions > 0);
  CHECK(la.pools[1].admissions > 0);
}

TEST_CASE("pools + LoRA: an autoscaled fleet serves adapters from the replicas it starts", "[pools][lora][autoscale]") {
  const std::string workload =
      "{seed: 2, arrival: {process: multi_stage, stages: [{process: poisson, rate: 2, duration: \"120 s\"}, "
      "{process: poisson, rate: 25, duration: \"120 s\"}, {process: poisson, rate: 1, duration: \"240 s\"}]}, "
      "input_tokens: {dist: fixed, value: 1000}, output_tokens: {dist: fixed, value: 200}, lora: {adapters: 50, "
      "rank: 16}}";
  const Scenario sc = fleet("[{name: a100, gpu: a100-sxm4-80gb, replicas: 2, max_loras: 4}, {name: h100, replicas: 2}]",
                            "{max_loras: 8, max_cpu_loras: 32}", workload, "lora_affinity",
                            "autoscale: {min_replicas: 1, interval: \"15 s\", target_queue: 2, provision: \"30 s\", "
                            "scale_down_window: \"60 s\"}\n");
  const RunSummary s = simulate(sc).summary;
  REQUIRE(s.autoscale);
  REQUIRE(s.lora);
  CHECK(s.failed == 0);
  CHECK(s.autoscale->max_serving >= 3);  // the H100 pool was started at the peak
  CHECK(s.lora->pools[1].admissions > 0);
  check_tallies_add_up(*s.lora);
  CHECK(s.lora->admissions == s.completed + s.preemptions);
}

TEST_CASE("pools + LoRA: what cannot be modelled is refused with the pool's key path", "[pools][lora][config]") {
  const std::string pools_small = "[{name: h100, replicas: 1}, {name: a100, gpu: a100-sxm4-80gb, replicas: 1, "
                                  "max_loras: 4}]";
  SECTION("a pool's max_loras without engine.lora") {
    const std::string e = error_of([&] {
      fleet(pools_small, "", "{requests: 4, arrival: {process: constant, rate: 1}, input_tokens: {dist: fixed, "
                             "value: 100}, output_tokens: {dist: fixed, value: 10}}");
    });
    CHECK_THAT(e, Catch::Contains("pools[1].max_loras"));
    CHECK_THAT(e, Catch::Contains("add engine.lora"));
  }
  SECTION("a pool's max_loras above its host cache (vLLM refuses it)") {
    const std::string e = error_of([&] { fleet(pools_small, "{max_loras: 2, max_cpu_loras: 3}", kTwoAdapters); });
    CHECK_THAT(e, Catch::Contains("max_cpu_loras (3) must be >= max_loras (4)"));
    CHECK_THAT(e, Catch::Contains("pools[1]"));
  }
  SECTION("a pool whose GPUs cannot hold the fleet's slots: named, with the slots that would fit") {
    // 24 slots at max_lora_rank 256 = 24 x 16 x 83,886,080 B = 32.2 GB per GPU: the H100 holds them,
    // the L40S (46,068 MiB) does not beside 16 GB of weights.
    const Scenario sc = fleet("[{name: h100, replicas: 1}, {name: l40s, gpu: l40s, replicas: 1}]",
                              "{max_loras: 24, max_cpu_loras: 32, max_lora_rank: 256}", kTwoAdapters);
    const Setup& l40s = sc.pools[1].setup;
    const MemoryPlan bare = plan_without_lora(l40s);
    REQUIRE(bare.fits);
    // n slots fit while n x slot + one KV block (16 tokens x 131,072 B) <= what the plan without them leaves.
    const double slot = 16 * kAdapterR16;
    const auto n = static_cast<std::int64_t>((bare.kv_bytes - 16 * bare.kv_bytes_per_token) / slot);
    REQUIRE(n > 0);
    REQUIRE(n < 24);
    const MemoryPlan with = plan_setup_memory(l40s, make_cost_model(l40s));
    CHECK_FALSE(with.fits);
    CHECK(with.lora_slots_fit == n);
    const std::string e = error_of([&] { simulate(sc); });
    CHECK_THAT(e, Catch::Contains("pools[1] (l40s): does not fit: engine.lora's 24 adapter slots at max_lora_rank 256"));
    CHECK_THAT(e, Catch::Contains(fmt::format("at most {} slots fit", n)));
    CHECK_THAT(e, Catch::Contains(fmt::format("pools[1].max_loras: {} (or fewer)", n)));
    // Given that many, the pool runs.
    const Scenario fixed = fleet(
        fmt::format("[{{name: h100, replicas: 1}}, {{name: l40s, gpu: l40s, replicas: 1, max_loras: {}}}]", n),
        "{max_loras: 24, max_cpu_loras: 32, max_lora_rank: 256}", kTwoAdapters);
    CHECK(simulate(fixed).summary.completed == 16);
  }
  SECTION("a pool whose GPUs cannot hold a single slot: named, and told that no max_loras would do") {
    // An L4 (23,034 MiB) holds Llama-3.1-8B's 16 GB of weights with max_num_batched_tokens
    // 16384's activations, but not one slot at max_lora_rank 512 (32 x 83,886,080 B = 2.68 GB).
    const std::string text =
        "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b, weights: bf16}\nparallelism: {tp: 1}\n"
        "engine: {kind: vllm, max_num_batched_tokens: 16384, lora: {max_loras: 2, max_lora_rank: 512}}\n"
        "workload: " + kTwoAdapters + "\npools: [{name: h100, replicas: 1}, {name: l4, gpu: l4, replicas: 1}]\n";
    const Scenario sc = parse_scenario(parse_yaml_text(text), "test.yaml", true);
    const Setup& l4 = sc.pools[1].setup;
    const MemoryPlan bare = plan_without_lora(l4);
    REQUIRE(bare.fits);
    REQUIRE(bare.kv_bytes < 32 * kAdapterR16);
    CHECK(plan_setup_memory(l4, make_cost_model(l4)).lora_slots_fit == 0);
    const std::string e = error_of([&] { simulate(sc); });
    CHECK_THAT(e, Catch::Contains("pools[1] (l4): does not fit"));
    CHECK_THAT(e, Catch::Contains("not one slot fits beside one KV block"));
    CHECK_THAT(e, Catch::Contains("not even pools[1].max_loras: 1 fits"));
  }
}
