// Local attention (sliding window, chunked attention): the closed forms of the keys a
// local layer attends to, the attention cost of prefill and decode steps, the KV
// blocks of the hybrid KV cache (local layers' blocks freed past their span), and a
// Gemma 3 run whose KV cache holds more long requests than full attention would.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "config/catalog_reader.h"
#include "cost/kv_size.h"
#include "engine/kv_blocks.h"
#include "run/simulation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {
LocalAttention sliding(std::int64_t w, int layers) {
  return LocalAttention{LocalAttention::Kind::sliding, w, layers};
}
LocalAttention chunked(std::int64_t c, int layers) {
  return LocalAttention{LocalAttention::Kind::chunked, c, layers};
}
const OpCost& op_named(const StepCost& s, const std::string& name) {
  for (const OpCost& o : s.ops)
    if (name == o.name) return o;
  FAIL("no op " << name);
  return s.ops.front();
}
}  // namespace

TEST_CASE("local attention: keys, pairs and keys read in closed form", "[local]") {
  SECTION("sliding window of 4") {
    const LocalAttention l = sliding(4, 1);
    // A query at position p sees min(p, 4) keys.
    CHECK(l.keys(1) == 1);
    CHECK(l.keys(4) == 4);
    CHECK(l.keys(9) == 4);
    // First 10 positions: 1 + 2 + 3 + 4 (= 4 x 5 / 2) then 6 more of 4 each: 10 + 24 = 34.
    CHECK(l.pairs_through(10) == 34.0);
    CHECK(l.pairs_through(3) == 6.0);  // below the window: 3 x 4 / 2, as full attention
    // A chunk of 3 after 6 cached: its first query (position 7) reads from key 4 on,
    // so keys 4..9 = 6 tokens (full attention would read all 9).
    CHECK(l.keys_read(6, 3) == 6);
    CHECK(l.keys_read(0, 3) == 3);
  }
  SECTION("chunks of 4") {
    const LocalAttention l = chunked(4, 1);
    // Position within its chunk: 1 2 3 4 | 1 2 3 4 | 1 2 ...
    CHECK(l.keys(4) == 4);
    CHECK(l.keys(5) == 1);
    CHECK(l.keys(10) == 2);
    // First 10 positions: two whole chunks of 10 pairs, then 1 + 2.
    CHECK(l.pairs_through(10) == 23.0);
    // A chunk of 3 after 6 cached (positions 7..9): its first query's chunk starts at
    // position 5, so keys 5..9 = 5 tokens are read.
    CHECK(l.keys_read(6, 3) == 5);
  }
  SECTION("pairs_through is the sum of keys, term by term") {
    for (const LocalAttention& l : {sliding(7, 1), chunked(5, 1)}) {
      double sum = 0;
      for (std::int64_t p = 1; p <= 40; ++p) {
        sum += static_cast<double>(l.keys(p));
        CHECK(l.pairs_through(p) == sum);
      }
    }
  }
}

TEST_CASE("local attention: catalog models carry their layer pattern", "[local][arch]") {
  const ModelSpec g3 = load_model("gemma-3-12b");
  CHECK(g3.local.kind == LocalAttention::Kind::sliding);
  CHECK(g3.local.span == 1024);
  CHECK(g3.local.layers == 40);  // 48 - 48 / 6
  const ModelSpec g2 = load_model("gemma-2-9b");
  CHECK(g2.local.span == 4096);
  CHECK(g2.local.layers == 21);  // every other of 42
  const ModelSpec scout = load_model("llama-4-scout-17b-16e");
  CHECK(scout.local.kind == LocalAttention::Kind::chunked);
  CHECK(scout.local.span == 8192);
  CHECK(scout.local.layers == 36);  // 48 - 12 NoPE
  const ModelSpec m01 = load_model("mistral-7b-v0.1");
  CHECK(m01.local.layers == 32);  // every layer
  // A window of at least max_context never binds: read as full attention.
  CHECK_FALSE(load_model("mistral-7b").local.enabled());
}

TEST_CASE("local attention: decode and prefill attention cost in closed form", "[local][cost]") {
  const Scenario sc = scenario_from("{kind: vllm}", "", "gemma-3-12b");
  const CostModel cost = make_cost_model(sc);
  const ModelSpec& m = cost.model();
  const double heads = 16, hd = 256, Lg = 8, Ll = 40;
  // Per query-key pair and layer, QK^T and PV: 2 x heads x (d + d) FLOPs; per cached
  // token and layer, K and V of 8 KV heads in bf16: 2 x 8 x 256 x 2 = 8192 bytes.
  const double flops_per_pair_layer = 2.0 * heads * (hd + hd);
  const double kv_bytes_per_token_layer = 2.0 * 8 * hd * 2;
  SECTION("decode: 4 sequences of 32767 cached tokens") {
    BatchSummary b = cost.batch();
    for (int i = 0; i < 4; ++i) b.add(SeqWork{1, 32767, true});
    const StepCost s = cost.breakdown(b);
    const OpCost& a = op_named(s, "attention_decode");
    // Each reads 32768 keys in the 8 global layers and 1024 in the 40 local ones.
    const double keys = 4 * (Lg * 32768 + Ll * 1024);
    CHECK(a.flops == Approx(flops_per_pair_layer * keys).epsilon(1e-12));
    CHECK(a.kv_bytes == Approx(kv_bytes_per_token_layer * keys).epsilon(1e-12));
    // 89% less KV read than full attention over all 48 layers (48 x 32768).
    CHECK(keys / (4 * 48.0 * 32768) == Approx((8 * 32768 + 40 * 1024) / (48.0 * 32768)));
    // Below the window a local layer is a global one: same cost as a full-attention model.
    ModelSpec full = m;
    full.local = LocalAttention{};
    const CostModel fc(cost.gpu(), full, cost.precision(), cost.parallelism());
    BatchSummary shortb = cost.batch(), shortf = fc.batch();
    shortb.add(SeqWork{1, 500, true});
    shortf.add(SeqWork{1, 500, true});
    CHECK(op_named(cost.breakdown(shortb), "attention_decode").flops ==
          Approx(op_named(fc.breakdown(shortf), "attention_decode").flops).epsilon(1e-12));
  }
  SECTION("prefill: one prompt of 4096 tokens") {
    BatchSummary b = cost.batch();
    b.add(SeqWork{4096, 0, true});
    const StepCost step = cost.breakdown(b);  // held: op_named returns a reference into it
    const OpCost& a = op_named(step, "attention_prefill");
    // Global layers: 4096 x 4097 / 2 causal pairs; local: 1024 x 1025 / 2 then
    // (4096 - 1024) x 1024.
    const double global_pairs = 4096.0 * 4097 / 2, local_pairs = 1024.0 * 1025 / 2 + 3072.0 * 1024;
    CHECK(a.flops == Approx(flops_per_pair_layer * (Lg * global_pairs + Ll * local_pairs)).epsilon(1e-12));
    // Keys read: the whole prompt once per layer (the first query's window starts at 0).
    CHECK(a.kv_bytes == Approx(kv_bytes_per_token_layer * 48 * 4096).epsilon(1e-12));
  }
  SECTION("a batch summed without the model's local attention is refused") {
    BatchSummary b;  // not cost.batch()
    b.add(SeqWork{1, 100, true});
    CHECK_THROWS_WITH(cost.totals(b), Catch::Contains("local attention"));
  }
}

TEST_CASE("local attention: KV blocks of the hybrid cache in closed form", "[local][kv]") {
  SECTION("Gemma 3 12B, block 16: a 32768-token request") {
    BlockSize b(16);
    b.global_layers = 8;
    b.local_layers = 40;
    b.local_cap = 1024 / 16 + 1;  // the window's 64 blocks plus the one being filled
    // Global layers: 8 x 2048 blocks; local: 40 x 65. Full attention: 48 x 2048.
    CHECK(b.blocks_for(32768) == 8 * 2048 + 40 * 65);
    CHECK(b.blocks_for(500) == 48 * 32);  // below the cap every layer holds ceil(500/16)
    // Bytes: one layer-block is 16 tokens x 8192 bytes (2 x 8 KV heads x 256 x bf16).
    const double bytes = static_cast<double>(b.blocks_for(32768)) * 16 * 8192;
    CHECK(bytes == (8.0 * 2048 + 40 * 65) * 16 * 8192);  // 2.49 GB vs 12.9 GB full
    // A prefill chunk of 2048 tokens after 4096 computed holds, while it runs, its own
    // 128 blocks plus the cap in each local layer: 40 x (128 + 65) beside 8 x 384.
    CHECK(b.chunk_blocks(4096, 2048) == 8 * 384 + 40 * (128 + 65));
  }
  SECTION("the engine sets it up from the scenario") {
    for (const bool free_window : {true, false}) {
      const Scenario sc = scenario_from(std::string("{kind: vllm, block_size: 16, num_gpu_blocks_override: 1000, "
                                                    "free_window_kv: ") + (free_window ? "true" : "false") + "}",
                                        "", "gemma-3-12b");
      const CostModel cost = make_cost_model(sc);
      EngineContext ctx;
      ctx.cost = &cost;
      ctx.config = sc.engine;
      ctx.kv_blocks = 1000;
      const BlockSize b = hybrid_block_size(ctx);
      CHECK(b.hybrid() == free_window);
      CHECK(b.blocks_for(32768) == (free_window ? 8 * 2048 + 40 * 65 : 2048));
    }
  }
  SECTION("which frameworks free window blocks by default") {
    CHECK(scenario_from("{kind: vllm}", "", "gemma-3-12b").engine.free_window_kv);
    CHECK_FALSE(scenario_from("{kind: vllm, framework: vllm-v0}", "", "gemma-3-12b").engine.free_window_kv);
    CHECK_FALSE(scenario_from("{kind: vllm, framework: trtllm}", "", "gemma-3-12b").engine.free_window_kv);
  }
}

TEST_CASE("local attention: a Gemma 3 KV cache holds more long requests with window blocks freed",
          "[local][sim][kv]") {
  // k requests at t = 0, 16-token prompts, 8193 output tokens: each ends holding
  // 16 + 8192 = 8208 KV tokens = 513 blocks of 16 per layer. 1026 blocks (all layers):
  //  - full KV: 513 blocks each, so 2 run to the end at once; the others are preempted.
  //  - hybrid: 48 x 1026 = 49248 layer-blocks; each request at its end holds 8 x 513
  //    (global) + 40 x 65 (local, capped) = 6704, so 7 fit (46928) and 8 do not (53632).
  const std::int64_t per_request = 8 * 513 + 40 * 65;
  REQUIRE(7 * per_request <= 48 * 1026);
  REQUIRE(8 * per_request > 48 * 1026);
  for (const bool ff : {true, false}) {
    for (const std::int64_t k : {7, 8}) {
      for (const bool free_window : {true, false}) {
        INFO("k=" << k << " free_window_kv=" << free_window << " fast_forward=" << ff);
        const Scenario sc = scenario_from(std::string("{kind: vllm, block_size: 16, max_num_seqs: 64, "
                                                      "num_gpu_blocks_override: 1026, free_window_kv: ") +
                                              (free_window ? "true" : "false") + "}",
                                          "", "gemma-3-12b");
        std::vector<Request> reqs;
        for (std::int64_t i = 0; i < k; ++i) reqs.push_back(make_request(0.0, 16, 8193));
        VectorSource src(reqs);
        SimulationOptions opt;
        opt.fast_forward = ff;
        const SimulationResult r = simulate(sc, src, opt);
        CHECK(r.summary.completed == k);
        if (free_window && k == 7) {
          CHECK(r.summary.preemptions == 0);
          CHECK(r.summary.batch_size_max == 7);  // all seven decode together to the end
        } else {
          CHECK(r.summary.preemptions > 0);  // full KV: 2 fit; hybrid: 8 need 53632 > 49248
        }
      }
    }
  }
}

TEST_CASE("local attention: fused decode runs price the same as step by step", "[local][sim]") {
  // Fast-forward stops each run where a decoder fills its window or reaches its block
  // cap, so within a run the local keys grow linearly, as the trapezoid assumes.
  for (const char* model : {"gemma-3-12b", "llama-4-scout-17b-16e", "mistral-7b-v0.1"}) {
    INFO(model);
    const Scenario sc = scenario_from("{kind: vllm, block_size: 16}", "", model,
                                      std::string(model) == "llama-4-scout-17b-16e" ? "{tp: 8}" : "{tp: 1}");
    double e2e[2] = {0, 0};
    for (const bool ff : {true, false}) {
      std::vector<Request> reqs;
      for (int i = 0; i < 6; ++i) reqs.push_back(make_request(0.01 * i, 100 + 700 * i, 1500 + 400 * i));
      VectorSource src(reqs);
      SimulationOptions opt;
      opt.fast_forward = ff;
      const SimulationResult r = simulate(sc, src, opt);
      CHECK(r.summary.completed == 6);
      e2e[ff ? 0 : 1] = r.summary.e2e_ms.mean;
    }
    // Only the trapezoid's rounding to whole nanoseconds per fused run differs.
    CHECK(e2e[0] == Approx(e2e[1]).epsilon(1e-6));
  }
}

TEST_CASE("local attention: prefix caching and freed window blocks, one left at its default gives way",
          "[local][config]") {
  // Prefix caching over per-layer window blocks is not modelled. vllm-v1 frees window
  // blocks by default (framework_preset.cpp), so a scenario that asks for prefix
  // caching runs with full-context KV (warned); one that asks for both is refused.
  const Scenario asked_prefix = scenario_from("{kind: vllm, prefix_caching: true}", "", "gemma-3-12b");
  CHECK(asked_prefix.engine.prefix_caching);
  CHECK_FALSE(asked_prefix.engine.free_window_kv);
  const Scenario asked_window = scenario_from("{kind: vllm, free_window_kv: true}", "", "gemma-3-12b");
  CHECK_FALSE(asked_window.engine.prefix_caching);  // vllm-v1's own default is off
  CHECK(asked_window.engine.free_window_kv);
  // A model without local attention keeps both as set.
  const Scenario full = scenario_from("{kind: vllm, prefix_caching: true}", "", "llama-3.1-8b");
  CHECK(full.engine.prefix_caching);
  CHECK(full.engine.free_window_kv);
  // Both asked for: refused when the engine is built, naming the way out.
  const Scenario both = scenario_from("{kind: vllm, prefix_caching: true, free_window_kv: true}", "", "gemma-3-12b");
  std::vector<Request> reqs{make_request(0.0, 16, 4)};
  VectorSource src(reqs);
  CHECK_THROWS_WITH(simulate(both, src), Catch::Contains("set engine.free_window_kv: false"));
}
