// KV tiers behind the GPU prefix cache (engine.kv_tiers, engine/kv_tiers.h):
// demotion down the chain, TTL, the reload cost per tier, and the engine's choice
// between reloading and recomputing.
#include <catch2/catch.hpp>

#include <memory>

#include "engine/kv_tiers.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

std::shared_ptr<KvTierLevel> level(const std::string& name, std::int64_t blocks, double bandwidth, double latency,
                                   double ttl = 0) {
  KvTierSpec s;
  s.name = name;
  s.bandwidth = bandwidth;
  s.latency_s = latency;
  s.ttl_s = ttl;
  return std::make_shared<KvTierLevel>(s, blocks);
}

Request prefixed(double at, std::int64_t blocks, std::uint64_t first, std::int64_t out) {
  Request r = make_request(at, blocks * 16, out);
  r.hash_block_tokens = 16;
  for (std::int64_t i = 0; i < blocks; ++i) r.block_hashes.push_back(first + static_cast<std::uint64_t>(i));
  return r;
}

}  // namespace

TEST_CASE("KV tiers: evicted blocks go down the chain, least recently used first", "[engine][kv_tiers]") {
  // host 4 blocks over nvme 8 blocks; 1 MB blocks.
  KvTierChain chain({level("host", 4, 10e9, 1e-5), level("nvme", 8, 2e9, 1e-4)}, 1e6);
  for (std::uint64_t h = 0; h < 10; ++h) chain.put(h);
  // 10 puts into 4 host blocks: 0..5 demoted to nvme, 6..9 stay.
  CHECK(chain.level(0).size() == 4);
  CHECK(chain.level(0).counts.demoted == 6);
  CHECK(chain.level(1).size() == 6);
  CHECK(chain.level(1).counts.stored == 6);
  // 6 more: host demotes 6..9 and 10, 11 (6 blocks) to nvme, which holds 8 of its 12: 0..3 are dropped.
  for (std::uint64_t h = 10; h < 16; ++h) chain.put(h);
  CHECK(chain.level(1).size() == 8);
  CHECK(chain.level(1).counts.demoted == 4);
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t h = 0; h < 16; ++h) hashes.push_back(h);
  std::vector<std::int8_t> tier_of;
  CHECK(chain.match(hashes, 0, 16, tier_of) == 0);  // block 0 was dropped: no run
  REQUIRE(chain.match(hashes, 4, 16, tier_of) == 12);
  // 4..11 on nvme (8 blocks), 12..15 on host (4 blocks).
  CHECK(tier_of.front() == 1);
  CHECK(tier_of.back() == 0);
  // Reloading all 12: 8 MB / 2 GB/s + 100 us + 4 MB / 10 GB/s + 10 us = 4 ms + 0.1 ms + 0.4 ms + 0.01 ms.
  CHECK(chain.reload_seconds(tier_of, 12) == Approx(4.51e-3));
  CHECK(chain.reload_seconds(tier_of, 8) == Approx(4.1e-3));  // the nvme stretch only
}

TEST_CASE("KV tiers: reload or recompute, whichever is cheaper, at a tier's boundary", "[engine][kv_tiers]") {
  KvTierChain chain({level("host", 4, 10e9, 1e-5), level("nvme", 8, 2e9, 1e-4)}, 1e6);
  for (std::uint64_t h = 0; h < 12; ++h) chain.put(h);  // 0..7 on nvme, 8..11 on host
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t h = 0; h < 12; ++h) hashes.push_back(h);
  std::vector<std::int8_t> tier_of;
  REQUIRE(chain.match(hashes, 0, 12, tier_of) == 12);
  // Recomputing a block costs 1 ms: nvme's 0.5 ms per block (+0.1 ms) wins, all 12 reloaded
  // (reload 4.51 ms against 12 ms).
  CHECK(chain.best_reload(tier_of, 12, 1e-3) == 12);
  // 0.3 ms per block: recomputing all (3.6 ms) beats reloading 8 from nvme (4.1 ms) or all 12 (4.51 ms).
  CHECK(chain.best_reload(tier_of, 12, 0.3e-3) == 0);
  // A host-first run: 4 host blocks (0.41 ms) then nvme. At 0.3 ms per block,
  // reload the host stretch (0.41 + 8 x 0.3 = 2.81 ms) rather than nothing (3.6) or all (4.51).
  KvTierChain chain2({level("host", 8, 10e9, 1e-5), level("nvme", 8, 2e9, 1e-4)}, 1e6);
  for (std::uint64_t h = 100; h < 108; ++h) chain2.put(h);  // 100..107 on host
  for (std::uint64_t h = 0; h < 8; ++h) chain2.put(h);      // now 0..7 on host, 100..107 on nvme
  const std::vector<std::uint64_t> run = {0, 1, 2, 3, 100, 101, 102, 103, 104, 105, 106, 107};
  REQUIRE(chain2.match(run, 0, 12, tier_of) == 12);
  CHECK(chain2.best_reload(tier_of, 12, 0.3e-3) == 4);
}

TEST_CASE("KV tiers: a block unused past the ttl is dropped, and swap space pushes blocks down", "[engine][kv_tiers]") {
  KvTierChain chain({level("host", 4, 10e9, 0, /*ttl=*/60), level("nvme", 8, 2e9, 0)}, 1e6);
  chain.set_time(0);
  chain.put(1);
  chain.set_time(to_nanos(30.0));
  chain.put(2);
  std::vector<std::int8_t> tier_of;
  chain.set_time(to_nanos(61.0));  // block 1 idle 61 s > 60: gone; block 2 idle 31 s: kept
  CHECK(chain.match({1}, 0, 1, tier_of) == 0);
  CHECK(chain.match({2}, 0, 1, tier_of) == 1);
  CHECK(chain.level(0).counts.expired == 1);
  // Swap space of 4 blocks in the host tier: block 2 goes down to nvme.
  REQUIRE(chain.swap_out(4));
  CHECK(chain.level(0).size() == 0);
  CHECK(chain.level(1).size() == 1);
  CHECK_FALSE(chain.swap_out(1));  // the host tier is all reserved
  chain.swap_in(4);
  CHECK(chain.level(0).reserved() == 0);
}

TEST_CASE("the engine reloads a prefix from a fast tier and recomputes rather than wait on a slow one",
          "[engine][kv_tiers]") {
  // test_engine_offload's three requests: A (50 blocks), B (75 other blocks, evicting A's
  // blocks 25..49 from the 100-block GPU cache into the tier), C = A's prompt: 25 blocks
  // hit on the GPU, 24 more (384 tokens) can be reloaded. Llama-3.1-8B bf16, one GPU:
  // 131072 B per token, so a 16-token block is 2 MiB and 384 tokens are 50.3 MB.
  //  - host tier at 50 GB/s, 10 us: reload 50.3 MB / 50 GB/s + 10 us = 1.02 ms, then
  //    compute the last 16 tokens: TTFT_C = t(SeqWork{16, 784}) + 1.02 ms;
  //  - the same tier at 10 MB/s: reloading takes 5 s, recomputing 400 tokens ~10 ms:
  //    TTFT_C = t(SeqWork{400, 400}), nothing reloaded;
  //  - a fast tier whose ttl (5 s) lapsed before C (the blocks went in at t = 10, C at t = 20):
  //    recomputed too, and the 25 blocks are counted as expired.
  const std::string base = "{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 100, async_scheduling: false";
  auto tier = [&](const std::string& bw, const std::string& extra) {
    return scenario_from(base + ", kv_tiers: [{name: host, capacity: \"8 GiB\", bandwidth: \"" + bw +
                         "\", latency: \"10 us\"" + extra + "}]}");
  };
  const Scenario fast = tier("50 GB/s", ""), slow = tier("10 MB/s", ""), lapsed = tier("50 GB/s", ", ttl: \"5 s\"");
  const std::vector<Request> reqs = {prefixed(0.0, 50, 1, 1), prefixed(10.0, 75, 1001, 1), prefixed(20.0, 50, 1, 1)};
  const CostModel cost = make_cost_model(fast);
  const double reload_s = step_seconds(cost, fast.engine, batch_of(1, SeqWork{16, 784, true})) +
                          384.0 * 131072.0 / 50e9 + 10e-6;
  const double recompute_s = step_seconds(cost, fast.engine, batch_of(1, SeqWork{400, 400, true}));
  REQUIRE(reload_s < recompute_s);
  auto run = [&](const Scenario& sc) {
    VectorSource src(reqs);
    return run_with_csv(sc, &src);
  };
  const RunWithCsv f = run(fast), s = run(slow), l = run(lapsed);
  CHECK(f.rows[2].ttft_ms == Approx(static_cast<double>(to_nanos(reload_s)) * 1e-6).margin(0.001));
  CHECK(f.result.summary.offload_tokens == 384);
  CHECK(s.rows[2].ttft_ms == Approx(static_cast<double>(to_nanos(recompute_s)) * 1e-6).margin(0.001));
  CHECK(s.result.summary.offload_tokens == 0);
  CHECK(l.rows[2].ttft_ms == Approx(static_cast<double>(to_nanos(recompute_s)) * 1e-6).margin(0.001));
  // Per-tier counts in the summary: 25 of A's blocks stored at B's admission, and 25 of
  // B's at C's (C takes 50 - 25 = 25 GPU blocks, evicting B's least recently used);
  // the fast tier reloaded 24 in one transfer; the lapsed tier dropped A's 25.
  REQUIRE(f.result.summary.kv_tiers.size() == 1);
  CHECK(f.result.summary.kv_tiers[0].name == "host");
  CHECK(f.result.summary.kv_tiers[0].stored == 50);
  CHECK(f.result.summary.kv_tiers[0].reloaded == 24);
  CHECK(f.result.summary.kv_tiers[0].transfers == 1);
  CHECK(l.result.summary.kv_tiers[0].expired == 25);
}

TEST_CASE("a shared tier is one store for every replica: a prefix computed on one is reloaded on another",
          "[engine][kv_tiers]") {
  // Two replicas, round robin, 100 GPU blocks each. A (50 blocks) -> replica 0;
  // B (a small filler) -> replica 1; D (100 other blocks: the whole cache) -> replica 0,
  // evicting all of A's blocks into the tier; C = A's prompt -> replica 1, whose GPU
  // never saw it. With the tier shared, C finds A's 49 leading blocks (its hit limit,
  // (800 - 1) / 16) in the store and reloads them; with a per-replica tier, replica 1's
  // is empty and C recomputes everything.
  const std::string base = "{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 100, async_scheduling: false, "
                           "kv_tiers: [{name: remote, capacity: \"64 GiB\", bandwidth: \"50 GB/s\", latency: \"1 ms\"";
  const std::vector<Request> reqs = {prefixed(0.0, 50, 1, 1), prefixed(5.0, 4, 9001, 1), prefixed(10.0, 100, 5001, 1),
                                     prefixed(20.0, 50, 1, 1)};
  auto run = [&](bool shared) {
    const Scenario sc = scenario_from(base + (shared ? ", shared: true}]}" : "}]}"), "", "llama-3.1-8b",
                                      "{tp: 1, replicas: 2, router: round_robin}");
    VectorSource src(reqs);
    return run_with_csv(sc, &src).result.summary;
  };
  const RunSummary shared = run(true), local = run(false);
  CHECK(shared.offload_tokens == 49 * 16);
  CHECK(local.offload_tokens == 0);
  // The shared store is counted once: A's 50 blocks stored (D's admission), 49 reloaded.
  REQUIRE(shared.kv_tiers.size() == 1);
  CHECK(shared.kv_tiers[0].shared);
  CHECK(shared.kv_tiers[0].stored == 50);
  CHECK(shared.kv_tiers[0].reloaded == 49);
}

TEST_CASE("engine.kv_tiers: bad tier lists are refused at the key", "[engine][kv_tiers][config]") {
  auto err = [&](const std::string& tiers) {
    return error_of([&] { scenario_from("{kind: vllm, kv_tiers: " + tiers + "}"); });
  };
  CHECK_THAT(err("[{name: host, capacity: \"8 GiB\"}]"), Catch::Contains("bandwidth"));
  CHECK_THAT(err("[{name: host, capacity: \"8 GiB\", bandwidth: \"50 GB/s\"}, {name: host, capacity: \"1 TB\", "
                 "bandwidth: \"5 GB/s\"}]"),
             Catch::Contains("a second tier named 'host'"));
  CHECK_THAT(err("[{name: remote, capacity: \"8 TB\", bandwidth: \"5 GB/s\", shared: true}, {name: nvme, capacity: "
                 "\"1 TB\", bandwidth: \"5 GB/s\"}]"),
             Catch::Contains("shared tiers come last"));
  CHECK_THAT(error_of([&] {
               scenario_from("{kind: vllm, cpu_offload: \"8 GiB\", kv_tiers: [{name: host, capacity: \"8 GiB\", "
                             "bandwidth: \"50 GB/s\"}]}");
             }),
             Catch::Contains("cpu_offload"));
}
