// CPU KV offload tier (engine.cpu_offload): prefix blocks evicted from the GPU
// cache are reloaded from host memory instead of recomputed, and preempted
// requests are swapped out instead of recomputed when the tier has room.
#include <catch2/catch.hpp>

#include "run/simulation.h"
#include "engine/cpu_tier.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// A request whose prompt is made of `blocks` 16-token blocks with ids first..first+blocks-1.
Request prefixed(double at, std::int64_t blocks, std::uint64_t first, std::int64_t out) {
  Request r = make_request(at, blocks * 16, out);
  r.hash_block_tokens = 16;
  for (std::int64_t i = 0; i < blocks; ++i) r.block_hashes.push_back(first + static_cast<std::uint64_t>(i));
  return r;
}

}  // namespace

TEST_CASE("CPU tier: LRU of evicted blocks plus swap space", "[engine][offload]") {
  CpuKvTier t(4);
  const std::vector<std::uint64_t> h = {10, 11, 12, 13, 14};
  for (auto x : h) t.put(x);  // 5 puts into 4 blocks: 10 (the oldest) leaves
  CHECK(t.cached() == 4);
  CHECK(t.match(h, 0, 5) == 0);  // the run from block 0 is broken
  CHECK(t.match(h, 1, 5) == 4);
  CHECK(t.match(h, 1, 3) == 2);  // limit
  // Swap space takes 3 blocks: the 3 least recently used cached blocks (11, 12, 13) leave.
  REQUIRE(t.reserve(3));
  CHECK(t.cached() == 1);
  CHECK(t.match(h, 4, 5) == 1);
  CHECK_FALSE(t.reserve(2));  // 3 + 2 > 4: refused, nothing changes
  CHECK(t.reserved() == 3);
  t.unreserve(3);
  CHECK(t.reserved() == 0);
}

TEST_CASE("a prefix evicted to CPU is reloaded instead of recomputed (cheaper)", "[engine][offload]") {
  // 100 GPU blocks of 16 tokens. block_size 16, so a request's prompt blocks are
  // exactly its ids' blocks. Three requests, far apart (each runs alone), one
  // output token each (no decode blocks):
  //  A (t = 0):  800 tokens = 50 blocks, ids 1..50. When it finishes its 50 blocks
  //              stay cached (evictable), released last block first, so the tail
  //              is the least recently used.
  //  B (t = 10): 1200 tokens = 75 other blocks. Admitting it leaves 100 - 75 = 25
  //              blocks for the cache: A's tail blocks 25..49 (ids 26..50) are
  //              evicted -> to the CPU tier when there is one.
  //  C (t = 20): A's prompt again. At most (800 - 1) / 16 = 49 blocks may hit (one
  //              token is always computed). GPU hit: blocks 0..24 (25 blocks, 400
  //              tokens). With the CPU tier, blocks 25..48 (24 blocks, 384 tokens)
  //              are reloaded, and the step computes only the last 16 tokens:
  //                TTFT_C = t(SeqWork{16, 784}) + 384 * kv_bytes_per_token / host_bw + host_latency
  //              Without it, the step computes 400 tokens after the 400 cached:
  //                TTFT_C = t(SeqWork{400, 400}).
  // Llama-3.1-8B bf16: kv_bytes_per_token = 32 layers x 8 KV heads x 128 x 2 (K, V)
  // x 2 bytes = 131072 B; 384 tokens = 50.3 MB over 64 GB/s PCIe5 = 0.79 ms + 10 us,
  // against ~6 TFLOP of prefill for 400 tokens (~10 ms on an H100).
  const std::string base = "{kind: vllm, prefix_caching: true, num_gpu_blocks_override: 100, async_scheduling: false";
  const Scenario with = scenario_from(base + ", cpu_offload: 8 GiB}");
  const Scenario without = scenario_from(base + "}");
  const std::vector<Request> reqs = {prefixed(0.0, 50, 1, 1), prefixed(10.0, 75, 1001, 1), prefixed(20.0, 50, 1, 1)};

  const CostModel cost = make_cost_model(with);
  const MemoryPlan mem = plan_memory(cost, with.engine.memory_config());
  REQUIRE(mem.kv_bytes_per_token == Approx(131072.0));
  const double host = 384.0 * mem.kv_bytes_per_token / with.gpu.host.bandwidth + with.gpu.host.latency;
  const BatchSummary reload_batch = batch_of(1, SeqWork{16, 784, true});
  const double reload_s = step_seconds(cost, with.engine, reload_batch) + host;
  const double recompute_s = step_seconds(cost, without.engine, batch_of(1, SeqWork{400, 400, true}));
  INFO("reload " << reload_s * 1e3 << " ms, recompute " << recompute_s * 1e3 << " ms");
  REQUIRE(reload_s < recompute_s);

  for (bool ff : {false, true}) {
    INFO("fast_forward " << ff);
    VectorSource a(reqs), b(reqs);
    const RunWithCsv on = run_with_csv(with, &a, ff);
    const RunWithCsv off = run_with_csv(without, &b, ff);
    REQUIRE(on.rows.size() == 3);
    REQUIRE(off.rows.size() == 3);
    // requests.csv has 3 decimals of ms.
    CHECK(on.rows[2].ttft_ms == Approx(static_cast<double>(to_nanos(reload_s)) * 1e-6).margin(0.001));
    CHECK(off.rows[2].ttft_ms == Approx(static_cast<double>(to_nanos(recompute_s)) * 1e-6).margin(0.001));
    CHECK(on.rows[2].cached_tokens == 400);
    CHECK(off.rows[2].cached_tokens == 400);
    CHECK(on.result.summary.offload_tokens == 384);
    CHECK(off.result.summary.offload_tokens == 0);
    // A and B are unaffected.
    CHECK(on.rows[0].ttft_ms == off.rows[0].ttft_ms);
    CHECK(on.rows[1].ttft_ms == off.rows[1].ttft_ms);
  }
}

TEST_CASE("with CPU room a preemption swaps instead of recomputing", "[engine][offload]") {
  // The preemption boundary of test_sim_closed_form: 4 requests of 100 + 60 tokens
  // need 10 blocks each at their end; with 39 blocks one is preempted once. With
  // a CPU tier its KV (the tokens it has, < 10 blocks) is swapped out and back in:
  // no recompute, so it processes one token when it resumes instead of its prompt
  // and generated tokens again.
  for (bool ff : {false, true}) {
    INFO("fast_forward " << ff);
    const std::string base = "{kind: vllm, block_size: 16, max_num_seqs: 16, num_gpu_blocks_override: 39";
    const Scenario swap = scenario_from(base + ", cpu_offload: 1 GiB}");
    const Scenario recompute = scenario_from(base + "}");
    std::vector<Request> reqs;
    for (int i = 0; i < 4; ++i) reqs.push_back(make_request(0.0, 100, 60));
    VectorSource a(reqs), b(reqs);
    SimulationOptions opt;
    opt.fast_forward = ff;
    const SimulationResult s = simulate(swap, a, opt);
    const SimulationResult r = simulate(recompute, b, opt);
    CHECK(s.summary.completed == 4);
    CHECK(s.summary.preemptions == 1);
    CHECK(s.summary.swapped_preemptions == 1);
    CHECK(r.summary.preemptions == 1);
    CHECK(r.summary.swapped_preemptions == 0);
    // The swapped request skips its recompute: the run is no longer, and the GPU
    // processes fewer prompt tokens (the recompute re-prefills 100 + generated).
    CHECK(s.summary.duration_s <= r.summary.duration_s);
    CHECK(s.summary.e2e_ms.max <= r.summary.e2e_ms.max);
  }
}

TEST_CASE("cpu_offload needs a host link and reports its use only when on", "[engine][offload]") {
  const Scenario sc = scenario_from("{kind: vllm}");
  VectorSource src({make_request(0.0, 100, 10)});
  const SimulationResult r = simulate(sc, src, {});
  CHECK(r.summary.offload_tokens == 0);
  CHECK(r.summary.swapped_preemptions == 0);
}
