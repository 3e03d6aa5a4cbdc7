// The current model families read from their published config.json files
// (tests/fixtures/hf_configs_2026/, PROVENANCE.md there): every one loads, and each total
// and active parameter count is within 2% of the figure its publisher gives (cited per
// case). Publishers round to two or three significant figures and define "active" their
// own way (model_spec.h ActiveCount: both embedding tables, only the LM head, or neither),
// which the importer sets per family and each case names.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "cost/batch.h"
#include "cost/kv_size.h"
#include "cost/memory_plan.h"
#include "cost/parallelism.h"
#include "cost/precision.h"
#include "cost/step_cost.h"
#include "model/hf_json.h"
#include "hf_fixtures.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using servesim::testing::error_of;
using Catch::Contains;

using namespace servesim::testing::hf;

namespace {
double billions(std::int64_t n) { return static_cast<double>(n) / 1e9; }

// A config edited in memory, loaded from a scratch folder as `servesim inspect --model` would.
ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) { return servesim::testing::hf::load_edited(j, "servesim-models2026-", tag); }
ShardShape shard(const ModelSpec& m, int tp) {
  Parallelism p;
  p.tp = tp;
  return shard_shape(p, m);
}
// The op `name` of a one-sequence decode step whose new token sits at position ctx.
OpCost decode_op_at(const CostModel& cost, std::int64_t ctx, const char* name) {
  BatchSummary b = cost.batch();
  b.add(SeqWork{1, ctx - 1, true});
  for (const OpCost& o : cost.breakdown(b).ops)
    if (std::string(o.name) == name) return o;
  FAIL("no op " << name);
  return OpCost{};
}

}  // namespace

TEST_CASE("models 2026: every collected config.json of a known family loads", "[hf][models2026]") {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixture(""))) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    INFO(name);
    ModelSpec m;
    REQUIRE_NOTHROW(m = load_model(entry.path().string()));
    CHECK(m.total_params() > 0);
    CHECK(m.active_params() <= m.total_params());
    ++loaded;
  }
  CHECK(loaded >= 40);
}

TEST_CASE("models 2026: an unknown architecture is refused naming what is supported", "[hf][models2026]") {
  const nlohmann::json j = {{"architectures", {"DeepseekV5ForCausalLM"}}, {"model_type", "deepseek_v5"}};
  const std::string e = error_of([&] { load_edited(j, "unknown"); });
  CHECK_THAT(e, Contains("is not supported: servesim has no description of its layers"));
  CHECK_THAT(e, Contains("'DeepseekV5ForCausalLM' (model_type 'deepseek_v5')"));
  CHECK_THAT(e, Contains("Supported:"));
  CHECK_THAT(e, Contains("DeepseekV4ForCausalLM"));
  CHECK_THAT(e, Contains("Step3p7FlashForCausalLM"));
  CHECK_THAT(e, Contains("MiMoV2FlashForCausalLM"));
}

TEST_CASE("models 2026: DeepSeek-V4-Flash", "[hf][models2026][deepseek-v4]") {
  // DeepSeek, DeepSeek-V4-Flash model card (huggingface.co/deepseek-ai/DeepSeek-V4-Flash): "284B
  // total parameters", "13B activated". Shapes from its config.json and inference/model.py
  // (layer_kinds.h CompressedAttention, hf_families.cpp read_deepseek_v4).
  const ModelSpec m = load("deepseek-v4-flash");
  const CompressedAttention& c = m.compressed;
  REQUIRE(c.enabled());
  CHECK(m.attention_layers() == 0);  // every layer's attention is the compressed kind
  CHECK(c.layers() == 43);
  // compress_ratios [0, 0, 4, 128, 4, ..., 128, 4 | 0]: layers 0-1 the window only, the even
  // layers 2..42 ratio 4 (21), the odd 3..41 ratio 128 (20); entry 43 is the MTP block's.
  CHECK(c.window_layers == 2);
  CHECK(c.indexed_layers == 21);
  CHECK(c.dense_layers == 20);
  CHECK(c.window == 128);
  CHECK(c.head_dim == 512);
  CHECK(c.indexer.heads == 64);
  CHECK(c.indexer.head_dim == 128);
  CHECK(c.indexer.topk == 512);
  CHECK(m.moe.hash_layers == 3);
  CHECK(m.moe_layers() == 43);
  CHECK(m.hc_mult == 4);
  CHECK(m.mtp_layers == 1);
  CHECK(!m.local.enabled());

  // Per layer (hidden 4096, 64 heads of 512, q_lora 1024, 8 groups x o_lora 1024):
  //   wq_a 4096 x 1024 = 4,194,304; q_norm 1,024; wq_b 1024 x 32768 = 33,554,432; wkv 4096 x 512
  //   = 2,097,152; kv_norm 512; sinks 64; wo_a 32768 x 1024 = 33,554,432; wo_b 8192 x 4096 =
  //   33,554,432: 106,956,352.
  CHECK(c.base_params(m.hidden, m.heads) == 106956352);
  //   Compressor, ratio 4 (overlapping: 2 x 512 wide): wkv + wgate 2 x 4096 x 1024 = 8,388,608,
  //   ape 4 x 1024 = 4,096, norm 512: 8,393,216. Ratio 128: 2 x 4096 x 512 = 4,194,304, ape
  //   128 x 512 = 65,536, norm 512: 4,260,352. Indexer: wq_b 1024 x 8192 = 8,388,608,
  //   weights_proj 4096 x 64 = 262,144, its compressor (ratio 4, 128 wide) 2 x 4096 x 256 +
  //   4 x 256 + 128 = 2,098,304: 10,749,056.
  CHECK(c.compressor_params(m.hidden, 4, 512) == 8393216);
  CHECK(c.compressor_params(m.hidden, 128, 512) == 4260352);
  CHECK(c.indexer_params(m.hidden) == 10749056);
  // Attention: 43 x 106,956,352 + 21 x (8,393,216 + 10,749,056) + 20 x 4,260,352 = 5,086,317,888.
  CHECK(m.attention_params() == 5086317888);
  // MoE per layer: gate 256 x 4096 = 1,048,576 and 257 experts (256 routed + 1 shared) of
  // 3 x 4096 x 2048 = 25,165,824: 6,468,665,344; x 43 = 278,152,609,792.
  CHECK(m.moe_params_per_layer() == 6468665344);
  // Hyper-connections: per layer 2 x (24 x 16384 + 24 + 3) = 786,486, x 43 = 33,818,898, the
  // head's 4 x 16384 + 4 + 1 = 65,541: 33,884,439. Hash tables 3 x 129,280 x 6 = 2,327,040.
  CHECK(m.hc_params() == 33884439);
  CHECK(m.hash_table_params() == 2327040);
  // Norms (attn_norm, ffn_norm per layer, the final one): 87 x 4096 = 356,352; tables 2 x
  // 129,280 x 4096 = 1,059,061,760. Total: 284,334,557,271 = 284.33B (+0.12%).
  CHECK(m.norm_params() == 356352);
  CHECK(m.total_params() == 284334557271);
  CHECK(within(billions(m.total_params()), 284.0, 0.02));
  // Active, the LM head counted and the embedding not (as DeepSeek counts V3), with the
  // hyper-connection weights every token uses: attention 5,086,317,888 + 43 x (1,048,576 +
  // 7 x 25,165,824) = 7,620,001,792 + norms 356,352 + the head 529,530,880 + hyper-connections
  // 33,884,439 = 13,270,091,351 (13.27B). The published "13B activated" is rounded to the
  // billion: 13.27B is +2.1% of it and rounds to it.
  CHECK(m.active_count == ModelSpec::ActiveCount::lm_head_only);
  CHECK(m.active_params() == 13270091351);
  CHECK(std::llround(billions(m.active_params())) == 13);
  // The MTP block (ratio 0: 106,956,352 attention, 6,468,665,344 MoE, 786,486 + 65,541
  // hyper-connections, e_proj + h_proj 2 x 4096^2 = 33,554,432, five norms 20,480), sharing the
  // tables: 6,610,048,635.
  CHECK(m.mtp_params() == 6610048635);

  // Precision: fp8 blocks of 128 x 128 (1 + 4 / 16384 B a weight), routed experts MXFP4
  // (expert_dtype fp4: 0.5 + 1 / 32 B), the shared expert fp8 with the rest.
  CHECK(m.native_dtype == DType::fp8);
  CHECK(m.weight_element_bytes(DType::fp8) == 1.0 + 4.0 / 16384);
  CHECK(m.weight_element_bytes(DType::fp8, TensorGroup::experts) == 0.53125);
  CHECK(m.weight_element_bytes(DType::fp8, TensorGroup::shared_experts) == 1.0 + 4.0 / 16384);
  CHECK(m.weight_element_bytes(DType::fp8, TensorGroup::attention) == 1.0 + 4.0 / 16384);
  CHECK(m.checkpoint.has_activations);
  CHECK(m.checkpoint.activations == DType::fp8);
  CHECK_THAT(m.checkpoint.source, Contains("expert_dtype fp4"));
}

TEST_CASE("models 2026: DeepSeek-V4-Pro and the re-quantized V4 checkpoints", "[hf][models2026][deepseek-v4]") {
  // DeepSeek-V4 report (arXiv:2606.19348) and model cards: V4-Pro "1.6T parameters (49B
  // activated)". Its config: 61 layers, hidden 7168, 128 heads of 512, q_lora 1536, 16 output
  // groups of 1024, 384 experts (top 6) of 3072 + 1 shared, compress_ratios [128, 128, 4, 128,
  // ..., 4 | 0]: no window-only layer, 30 indexed (even layers 2..60), 31 dense (0, 1 and the odd
  // 3..59), indexer top 1024.
  const ModelSpec p = load("deepseek-v4-pro");
  CHECK(p.compressed.window_layers == 0);
  CHECK(p.compressed.indexed_layers == 30);
  CHECK(p.compressed.dense_layers == 31);
  CHECK(p.compressed.indexer.topk == 1024);
  // Per layer: wq_a 7168 x 1536 + q_norm 1536 + wq_b 1536 x 65536 + wkv 7168 x 512 + kv_norm 512
  // + sinks 128 + wo_a 65536 x 1024 + wo_b 16384 x 7168 = 11,010,048 + 1,536 + 100,663,296 +
  // 3,670,016 + 512 + 128 + 67,108,864 + 117,440,512 = 299,894,912.
  CHECK(p.compressed.base_params(p.hidden, p.heads) == 299894912);
  // Experts: 385 x 3 x 7168 x 3072 = 25,434,259,456 a layer.
  CHECK(p.moe_params_per_layer() == 384LL * 7168 + 385LL * 3 * 7168 * 3072);
  CHECK(within(billions(p.total_params()), 1600.0, 0.02));   // 1573.00B (-1.7%)
  CHECK(within(billions(p.active_params()), 49.0, 0.02));    // 48.85B (-0.3%), hyper-connections' 84M included
  CHECK(p.weight_element_bytes(DType::fp8, TensorGroup::experts) == 0.53125);

  // SGLang's FP8 re-export (sgl-project/DeepSeek-V4-*-FP8: model_type deepseek_ref, no
  // expert_dtype): the same shapes, every weight fp8 blocks.
  for (const char* name : {"deepseek-v4-flash-fp8-sglang", "deepseek-v4-pro-fp8-sglang"}) {
    INFO(name);
    const ModelSpec f = load(name);
    CHECK(f.compressed.enabled());
    CHECK(f.weight_element_bytes(DType::fp8, TensorGroup::experts) == 1.0 + 4.0 / 16384);
  }
  CHECK(load("deepseek-v4-flash-fp8-sglang").total_params() == load("deepseek-v4-flash").total_params());
  CHECK(load("deepseek-v4-pro-fp8-sglang").total_params() == p.total_params());

  // NVIDIA's NVFP4 re-exports (ModelOpt: quantization_config with quant_method fp8 and
  // quantized_layers "layers.N.ffn.experts" NVFP4 in groups of 16 on every layer): routed
  // experts at 0.5 + 1 / 16 B (an fp8 scale per 16), not expert_dtype's MXFP4; the rest fp8.
  for (const char* name : {"deepseek-v4-flash-nvfp4", "deepseek-v4-pro-nvfp4"}) {
    INFO(name);
    const ModelSpec n = load(name);
    CHECK(n.weight_element_bytes(DType::fp8, TensorGroup::experts) == 0.5625);
    CHECK(n.weight_element_bytes(DType::fp8, TensorGroup::attention) == 1.0 + 4.0 / 16384);
    CHECK_THAT(n.checkpoint.group_note[static_cast<int>(TensorGroup::experts)], Contains("nvfp4 (quantized_layers)"));
  }
}

TEST_CASE("models 2026: DeepSeek-V4's KV per sequence, closed forms per compress ratio", "[hf][models2026][deepseek-v4]") {
  // One layer of each kind, 512-wide entries in bf16 (1,024 B), a 128-token window, the
  // indexer's keys 128 fp8 + one fp32 scale = 132 B per 4 tokens.
  CompressedAttention c;
  c.window = 128;
  c.head_dim = 512;
  c.indexer.heads = 64;
  c.indexer.head_dim = 128;
  c.indexer.topk = 512;
  SECTION("ratio 0: the window only") {
    c.window_layers = 1;
    CHECK(c.kv_bytes_per_sequence(100, 2.0) == 100.0 * 1024);  // below the window: every token
    CHECK(c.kv_bytes_per_sequence(8192, 2.0) == 128.0 * 1024);
    CHECK(c.kv_bytes_per_sequence(131072, 2.0) == 128.0 * 1024);
    CHECK(c.compressed_bytes_per_token(2.0) == 0.0);
  }
  SECTION("ratio 4: window + one entry and one indexer key per 4 tokens") {
    c.indexed_layers = 1;
    CHECK(c.kv_bytes_per_sequence(100, 2.0) == 100.0 * 1024 + 25.0 * (1024 + 132));
    CHECK(c.kv_bytes_per_sequence(8192, 2.0) == 128.0 * 1024 + 2048.0 * 1156);        // 2,498,560
    CHECK(c.kv_bytes_per_sequence(131072, 2.0) == 128.0 * 1024 + 32768.0 * 1156);     // 38,010,880
    CHECK(c.kv_bytes_per_sequence(131075, 2.0) == c.kv_bytes_per_sequence(131072, 2.0));  // floor(ctx / 4)
    CHECK(c.compressed_bytes_per_token(2.0) == 1156.0 / 4);
    CHECK(c.kv_bytes_per_sequence(8192, 1.0) == 128.0 * 512 + 2048.0 * (512 + 132));  // fp8 KV: the key stays 132
  }
  SECTION("ratio 128: window + one entry per 128 tokens") {
    c.dense_layers = 1;
    CHECK(c.kv_bytes_per_sequence(100, 2.0) == 100.0 * 1024);
    CHECK(c.kv_bytes_per_sequence(8192, 2.0) == 128.0 * 1024 + 64.0 * 1024);
    CHECK(c.kv_bytes_per_sequence(131072, 2.0) == 128.0 * 1024 + 1024.0 * 1024);
    CHECK(c.compressed_bytes_per_token(2.0) == 1024.0 / 128);
  }
}

TEST_CASE("models 2026: DeepSeek-V4-Flash's KV per token and the memory plan", "[hf][models2026][deepseek-v4][cost]") {
  const ModelSpec m = load("deepseek-v4-flash");
  // bf16 KV, all 43 layers: at 8k, windows 43 x 128 x 1024 = 5,636,096 + indexed 21 x 2048 x
  // 1156 = 49,717,248 + dense 20 x 64 x 1024 = 1,310,720: 56,664,064 B (6,917 B a token); at
  // 128k, 5,636,096 + 21 x 32768 x 1156 = 795,475,968 + 20 x 1024 x 1024 = 20,971,520:
  // 822,083,584 B (6,272 B a token). (DeepSeek-V3.2: 61 x (576 x 2 + 132) = 78,324 B a token.)
  CHECK(m.compressed.kv_bytes_per_sequence(8192, 2.0) == 56664064.0);
  CHECK(m.compressed.kv_bytes_per_sequence(131072, 2.0) == 822083584.0);
  // What KV blocks hold per token: 21 x 1156 / 4 + 20 x 1024 / 128 = 6,069 + 160 = 6,229 B,
  // on every GPU (one KV head, held whole, as MLA's latent) whatever tp.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 6229.0);
  CHECK(gpu_kv_bytes_per_token(m, shard(m, 1), DType::bf16) == 6229.0);
  CHECK(gpu_kv_bytes_per_token(m, shard(m, 8), DType::bf16) == 6229.0);
  // Per sequence whatever its length: the windows (5,636,096 B) and the compressors' fp32 state
  // (2 x (coff r) x (coff width) x 4 B: ratio 4, 2 x 8 x 1024 x 4 = 65,536, its indexer's 2 x 8 x
  // 256 x 4 = 16,384, x 21; ratio 128, 2 x 128 x 512 x 4 = 524,288, x 20): 12,206,080 B.
  CHECK(m.compressed.compressor_state_bytes_per_sequence() == 12206080.0);
  CHECK(m.fixed_kv_bytes_per_sequence(DType::bf16) == 5636096.0 + 12206080.0);

  // The memory plan on 8 H200s (tp 8, checkpoint precision, bf16 KV): a slot of 17,842,176 B
  // for each of 256 sequences, then 6,229 B a token in blocks of 16; sequences of 128k tokens
  // fit kv_tokens / 131,072 times (each also holding its slot: sized above).
  const GpuSpec gpu = load_gpu("h200-sxm");
  PrecisionSpec p;
  p.weights = DType::fp8;
  p.activations = DType::fp8;
  p.kv_cache = DType::bf16;
  Parallelism par;
  par.tp = 8;
  const CostModel cost(gpu, m, resolve_precision(p, gpu), par);
  const MemoryConfig cfg;
  const MemoryPlan plan = plan_memory(cost, cfg);
  REQUIRE(plan.fits);
  CHECK(plan.kv_bytes_per_token == 6229.0);
  CHECK(plan.state_bytes_per_sequence == 17842176.0);
  CHECK(plan.state_bytes == 256.0 * 17842176.0);
  // The slots come out of the KV budget before the blocks are cut.
  CHECK(plan.kv_bytes == Approx(plan.budget - plan.weights - plan.activations - plan.runtime_overhead -
                                256.0 * 17842176.0)
                             .epsilon(1e-12));
  CHECK(plan.kv_blocks == static_cast<std::int64_t>(std::floor(plan.kv_bytes / (6229.0 * 16))));
  // 128k-token sequences: 131,072 / 16 = 8,192 blocks each.
  CHECK(plan.kv_blocks / 8192 == static_cast<std::int64_t>(std::floor(plan.kv_bytes / (6229.0 * 131072))));
}

TEST_CASE("models 2026: DeepSeek-V4-Flash's decode attention follows the indexer's top-k", "[hf][models2026][deepseek-v4][cost]") {
  const ModelSpec m = load("deepseek-v4-flash");
  ResolvedPrecision bf16;
  const CostModel cost(load_gpu("h200-sxm"), m, bf16, Parallelism{});
  auto decode_op = [&](std::int64_t ctx, const char* name) { return decode_op_at(cost, ctx, name); };
  // One query, 64 heads, 512-wide scores and values: 2 x 64 x 1024 FLOPs per entry read.
  // At position p (a multiple of 128 past 4 x 512): 43 layers read the 128-entry window, 21 the
  // indexer's 512 picks, 20 all p / 128 entries.
  const double per_entry = 2.0 * 64 * 1024;
  for (const std::int64_t p : {std::int64_t{8192}, std::int64_t{65536}, std::int64_t{131072}}) {
    INFO(p);
    const OpCost a = decode_op(p, "v4_attention_decode");
    const double entries = 43.0 * 128 + 21.0 * 512 + 20.0 * (p / 128);
    CHECK(a.flops == Approx(per_entry * entries).epsilon(1e-12));
    CHECK(a.kv_bytes == Approx(entries * 1024).epsilon(1e-12));
    // The indexer scores every compressed key: 2 x 64 x 128 fp8 FLOPs each, p / 4 keys of 132 B, 21 layers.
    const OpCost ix = decode_op(p, "v4_indexer_decode");
    CHECK(ix.flops == Approx(2.0 * 64 * 128 * (p / 4) * 21).epsilon(1e-12));
    CHECK(ix.kv_bytes == Approx(132.0 * (p / 4) * 21).epsilon(1e-12));
  }
  // From 64k to 128k the attention reads only the dense layers' 512 more entries each (the
  // indexed layers stay at the top 512): 20 x 512 x 1024 B more, not the 16x of full attention.
  const double grow = decode_op(131072, "v4_attention_decode").kv_bytes - decode_op(65536, "v4_attention_decode").kv_bytes;
  CHECK(grow == Approx(20.0 * 512 * 1024).epsilon(1e-12));
  // Below 4 x 512 tokens the indexer's pick is every compressed entry: at p = 1024, 256 of them.
  const OpCost shortc = decode_op(1024, "v4_attention_decode");
  CHECK(shortc.flops == Approx(per_entry * (43.0 * 128 + 21.0 * 256 + 20.0 * 8)).epsilon(1e-12));
}

TEST_CASE("models 2026: DeepSeek-V4-Flash's prefill work, closed forms", "[hf][models2026][deepseek-v4][cost]") {
  const ModelSpec m = load("deepseek-v4-flash");
  const CompressedAttention& c = m.compressed;
  // A 4,096-token prompt from nothing, per layer of each kind: window pairs 128 x 129 / 2 +
  // (4096 - 128) x 128 = 516,160; indexed, sum of min(512, floor(q / 4)): below q = 2048,
  // 4 x 511 x 510 / 2 + 511 x 4 = 523,264, then 2,049 x 512 = 1,049,088: 1,572,352; dense,
  // sum of floor(q / 128): j = 1..31 128 times each, 128 x 31 x 32 / 2 = 63,488, and 32 once:
  // 63,520; scored, sum of floor(q / 4): 4 x 1023 x 1024 / 2 + 1024 = 2,096,128.
  CHECK(c.window_pairs_through(4096) == 516160.0);
  CHECK(c.indexed_pairs_through(4096) == 1572352.0);
  CHECK(CompressedAttention::compressed_pairs_through(4096, 128) == 63520.0);
  CHECK(CompressedAttention::compressed_pairs_through(4096, 4) == 2096128.0);
  BatchSummary b;
  b.add(SeqWork{4096, 0, true});
  const CompressedWork w = compressed_work(c, b, true);
  CHECK(w.window_pairs == 516160.0);
  CHECK(w.indexed_pairs == 1572352.0);
  CHECK(w.dense_pairs == 63520.0);
  CHECK(w.scored_pairs == 2096128.0);
  CHECK(w.window_read == 4096.0);  // the chunk reads its own keys
  CHECK(w.indexed_read == 1024.0);
  CHECK(w.dense_read == 32.0);
  // A second chunk of 1,024 after those 4,096: window 1024 x 128 = 131,072 pairs, indexed
  // 1024 x 512 = 524,288 (past the top-k), read from the window start: 1,024 + 127 keys, and
  // all 5120 / 4 = 1,280 indexed and 40 dense entries.
  BatchSummary b2;
  b2.add(SeqWork{1024, 4096, false});
  const CompressedWork w2 = compressed_work(c, b2, true);
  CHECK(w2.window_pairs == 131072.0);
  CHECK(w2.indexed_pairs == 524288.0);
  CHECK(w2.window_read == 1151.0);
  CHECK(w2.indexed_read == 1280.0);
  CHECK(w2.dense_read == 40.0);
  // The step's prefill attention: 2 x 64 x 1024 FLOPs per pair over 43 x 516,160 + 21 x
  // 1,572,352 + 20 x 63,520 pairs.
  ResolvedPrecision bf16;
  const CostModel cost(load_gpu("h200-sxm"), m, bf16, Parallelism{});
  double flops = -1;
  for (const OpCost& o : cost.breakdown(b).ops)
    if (std::string(o.name) == "v4_attention_prefill") flops = o.flops;
  CHECK(flops == Approx(2.0 * 64 * 1024 * (43.0 * 516160 + 21.0 * 1572352 + 20.0 * 63520)).epsilon(1e-12));
  // The fast path (attention_part) gives the breakdown's total.
  CHECK(cost.totals(b).time == Approx(cost.breakdown(b).time).epsilon(1e-12));
}

TEST_CASE("models 2026: DeepSeek-V4 shapes servesim cannot price are refused", "[hf][models2026][deepseek-v4]") {
  nlohmann::json j = read_hf_json_file(fixture("deepseek-v4-flash/config.json"));
  auto refusal = [&](const nlohmann::json& edited) {
    return error_of([&] { load_edited(edited, "v4-refusals"); });
  };
  SECTION("an unknown compress ratio") {
    j["compress_ratios"][5] = 8;
    CHECK_THAT(refusal(j), Contains("compress_ratios[5] is 8: servesim models DeepSeek-V4's ratios 0"));
  }
  SECTION("too few ratios") {
    j["compress_ratios"] = {0, 4, 128};
    CHECK_THAT(refusal(j), Contains("compress_ratios lists 3 layers, fewer than num_hidden_layers 43"));
  }
  SECTION("a compressed MTP layer") {
    j["compress_ratios"][43] = 4;
    CHECK_THAT(refusal(j), Contains("compress_ratios[43] (an MTP layer's) is 4"));
  }
  SECTION("more than one KV head") {
    j["num_key_value_heads"] = 8;
    CHECK_THAT(refusal(j), Contains("one KV head (num_key_value_heads 1); got 8"));
  }
  SECTION("heads not in whole output groups") {
    j["o_groups"] = 7;
    CHECK_THAT(refusal(j), Contains("num_attention_heads 64 is not a multiple of o_groups 7"));
  }
  SECTION("hash layers beyond the model") {
    j["num_hash_layers"] = 44;
    CHECK_THAT(refusal(j), Contains("num_hash_layers 44 must be in 0..43"));
  }
}

TEST_CASE("models 2026: DeepSeek-V4's expert_dtype", "[hf][models2026][deepseek-v4]") {
  nlohmann::json j = read_hf_json_file(fixture("deepseek-v4-flash/config.json"));
  auto load_with = [&](const nlohmann::json& edited) { return load_edited(edited, "v4-expert-dtype"); };
  SECTION("fp8: the experts at the checkpoint's fp8 blocks") {
    j["expert_dtype"] = "fp8";
    CHECK(load_with(j).weight_element_bytes(DType::fp8, TensorGroup::experts) == 1.0 + 4.0 / 16384);
  }
  SECTION("an unknown one is refused") {
    j["expert_dtype"] = "int3";
    CHECK_THAT(error_of([&] { load_with(j); }), Contains("expert_dtype 'int3' is not one servesim reads"));
  }
  SECTION("fp4 without a quantization_config is refused") {
    j.erase("quantization_config");
    CHECK_THAT(error_of([&] { load_with(j); }), Contains("expert_dtype fp4 needs a quantization_config"));
  }
}

TEST_CASE("models 2026: Step-3.7-Flash", "[hf][models2026]") {
  // StepFun, Step 3.7 Flash model card (github.com/stepfun-ai/Step-3.7-Flash README; the
  // huggingface.co/stepfun-ai/Step-3.7-Flash card): "a 196B-parameter language backbone" (198B
  // with its 1.8B vision encoder, which this text config does not describe), "activates
  // approximately 11B parameters per token". Which tables the 11B counts is not said; with
  // Step-3.5-Flash's full shape (its sliding layers' 96 heads, test_hf_layer_heads.cpp) only the
  // count without either table fits it, and the reader counts so.
  const ModelSpec m = load("step-3.7-flash");
  CHECK(m.layers == 45);
  CHECK(m.local.kind == LocalAttention::Kind::sliding);
  CHECK(m.local.span == 512);
  CHECK(m.local.layers == 33);  // layer_types: full on layers 0, 4, ..., 44 (12), sliding on 33
  CHECK(m.global_attention_layers() == 12);
  CHECK(m.moe.num_experts == 288);
  CHECK(m.moe.experts_per_token == 8);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.moe.shared_expert_ffn == 1280);
  CHECK(m.moe_layers() == 42);  // first_k_dense_replace 3
  CHECK(m.dense_mlp_layers() == 3);
  CHECK(m.mtp_layers == 0);  // num_nextn_predict_layers 3: shapes not given, not counted
  CHECK(m.native_dtype == DType::bf16);
  CHECK_FALSE(m.checkpoint.present);  // no quantization_config: a bf16 checkpoint

  // One attention layer (full and sliding alike): q 4096 x 64 x 128, k and v 4096 x 8 x 128 each,
  // o 64 x 128 x 4096: 4096 x (8192 + 2 x 1024) + 8192 x 4096 = 75,497,472.
  const std::int64_t attention = 4096LL * (8192 + 2 * 1024) + 8192LL * 4096;
  CHECK(m.attention_params_of(true) == attention);
  CHECK(m.attention_params_of(false) == attention);
  // A dense layer: 3 x 4096 x 11264. One expert (and the shared one): 3 x 4096 x 1280; the
  // router 4096 x 288.
  const std::int64_t dense = 3LL * 4096 * 11264, expert = 3LL * 4096 * 1280, router = 4096LL * 288;
  CHECK(m.moe_params_per_layer() == router + 288 * expert + expert);
  const std::int64_t tables = 2LL * 128896 * 4096, norms = (2LL * 45 + 1) * 4096;
  const std::int64_t total = 45 * attention + 3 * dense + 42 * (router + 289 * expert) + tables + norms;
  const std::int64_t active = 45 * attention + 3 * dense + 42 * (router + 9 * expert) + tables + norms;
  CHECK(m.total_params() == total);  // 195,832,688,640
  CHECK(m.active_params_all_tables() == active);  // 10,863,882,240
  CHECK(m.active_params() == active - tables);     // 9,807,966,208: neither table
  CHECK(within(billions(m.total_params()), 196.0, 0.02));
  // AIConfigurator's copy leaves out attention_other_setting (PROVENANCE.md), so its sliding
  // layers read 64 query heads instead of the published model's 96: 1.1B of q_proj and o_proj
  // weights short, and its active figure -10.8% against the 11B. The published config
  // (step-3.5-flash, the same decoder) reads -0.8%.
  CHECK_FALSE(within(billions(m.active_params()), 11.0, 0.02));
  CHECK(m.active_count == ModelSpec::ActiveCount::no_tables);

  // KV per token: every layer caches 2 x 8 x 128 (bf16: 2 B): 45 x 2,048 x 2 = 184,320 B; the
  // 33 sliding layers' blocks past 512 tokens are freed by the engine, not counted here.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 45.0 * 2 * 8 * 128 * 2);
}

TEST_CASE("models 2026: Step-3.7-Flash: sliding layers of another shape take their own heads", "[hf][models2026]") {
  // Step-3.5-Flash's full config gives its sliding layers 96 query heads (attention_other_setting)
  // against 64 on the full ones: the 33 sliding layers' q_proj and o_proj grow by 32 heads each.
  nlohmann::json j = read_hf_json_file(fixture("step-3.7-flash/config.json"));
  j["attention_other_setting"] = {{"attention_type", "sliding_attention"}, {"num_attention_heads", 96},
                                  {"num_attention_groups", 8}, {"head_dim", 128}};
  const auto dir = std::filesystem::temp_directory_path() / "servesim-models2026" / "step-96";
  std::filesystem::create_directories(dir);
  std::ofstream((dir / "config.json").string()) << j.dump(2) << "\n";
  const ModelSpec wide = load_model(dir.string());
  CHECK(wide.heads_of(false) == 96);
  CHECK(wide.heads_of(true) == 64);
  CHECK(wide.total_params() - load("step-3.7-flash").total_params() == 33LL * 2 * 4096 * 32 * 128);
  // The same shape as the full layers is read as it is.
  j["attention_other_setting"]["num_attention_heads"] = 64;
  std::ofstream((dir / "config.json").string()) << j.dump(2) << "\n";
  CHECK(load_model(dir.string()).total_params() == load("step-3.7-flash").total_params());
  CHECK(load_model(dir.string()).global_heads == 0);
}

TEST_CASE("models 2026: MiMo-V2-Flash", "[hf][models2026]") {
  // Xiaomi, MiMo-V2-Flash model card (huggingface.co/XiaomiMiMo/MiMo-V2-Flash,
  // github.com/XiaomiMiMo/MiMo-V2-Flash README) and "MiMo-V2-Flash Technical Report"
  // (arXiv:2601.02780, 2026): "309B total parameters and 15B active parameters".
  const ModelSpec m = load("mimo-v2-flash");
  // hybrid_layer_pattern: 9 full-attention layers (0, 5, 11, 17, ..., 47), 39 sliding (window 128).
  CHECK(m.local.kind == LocalAttention::Kind::sliding);
  CHECK(m.local.span == 128);
  CHECK(m.local.layers == 39);
  CHECK(m.global_attention_layers() == 9);
  // Sliding layers: 8 KV heads; full layers: 4 (num_key_value_heads); q/k heads of 192, values of 128.
  CHECK(m.kv_heads_of(false) == 8);
  CHECK(m.kv_heads_of(true) == 4);
  CHECK(m.head_dim_of(true) == 192);
  CHECK(m.head_dim_of(false) == 192);
  CHECK(m.value_dim_of(true) == 128);
  CHECK(m.value_dim_of(false) == 128);
  CHECK(m.attention_sinks);  // add_swa_attention_sink_bias
  CHECK(m.moe.num_experts == 256);
  CHECK(m.moe.experts_per_token == 8);
  CHECK(m.moe.shared_experts == 0);  // n_shared_experts: null
  CHECK(m.moe_layers() == 47);       // moe_layer_freq: layer 0 dense
  CHECK(m.dense_mlp_layers() == 1);
  // quantization_config fp8, blocks of 128 x 128, activation_scheme dynamic: W8A8 fp8, KV not stated.
  CHECK(m.native_dtype == DType::fp8);
  CHECK(m.checkpoint.present);
  CHECK(m.checkpoint.has_activations);
  CHECK(m.checkpoint.activations == DType::fp8);
  CHECK_FALSE(m.checkpoint.has_kv_cache);

  // A full layer: q 4096 x 64 x 192, k 4096 x 4 x 192, v 4096 x 4 x 128, o 64 x 128 x 4096, 64 sinks:
  // 4096 x (12288 + 768 + 512) + 8192 x 4096 + 64 = 89,128,960 + 64.
  const std::int64_t full = 4096LL * (12288 + 768 + 512) + 8192LL * 4096 + 64;
  // A sliding layer: k 4096 x 8 x 192, v 4096 x 8 x 128: 4096 x (12288 + 1536 + 1024) + 8192 x 4096 + 64.
  const std::int64_t sliding = 4096LL * (12288 + 1536 + 1024) + 8192LL * 4096 + 64;
  CHECK(m.attention_params_of(true) == full);
  CHECK(m.attention_params_of(false) == sliding);
  // The dense layer 3 x 4096 x 16384; an expert 3 x 4096 x 2048; the router 4096 x 256.
  const std::int64_t dense = 3LL * 4096 * 16384, expert = 3LL * 4096 * 2048, router = 4096LL * 256;
  CHECK(m.moe_params_per_layer() == router + 256 * expert);
  const std::int64_t table = 152576LL * 4096, norms = (2LL * 48 + 1) * 4096;
  const std::int64_t layers_total = 9 * full + 39 * sliding + dense + 47 * (router + 256 * expert);
  const std::int64_t layers_active = 9 * full + 39 * sliding + dense + 47 * (router + 8 * expert);
  CHECK(m.total_params() == layers_total + 2 * table + norms);  // 308,778,769,408
  CHECK(m.active_params() == layers_active + table + norms);    // 14,820,973,568: the LM head, not the embedding
  CHECK(m.active_params_all_tables() == layers_active + 2 * table + norms);  // 15,445,924,864
  CHECK(within(billions(m.total_params()), 309.0, 0.02));
  CHECK(within(billions(m.active_params()), 15.0, 0.02));
  // For the record: both tables counted 15.45B (+3.0%), neither 14.20B (-5.4%): the published 15B
  // fits the LM head counted and not the embedding, as DeepSeek's figures do.
  CHECK(m.active_count == ModelSpec::ActiveCount::lm_head_only);

  // KV per token: a layer caches kv_heads x (192 + 128): full 4 x 320 = 1,280, sliding 8 x 320 =
  // 2,560; 9 x 1,280 + 39 x 2,560 = 111,360 elements; bf16 222,720 B, fp8 111,360 B.
  CHECK(m.kv_elements_of(true) == 4 * (192 + 128));
  CHECK(m.kv_elements_of(false) == 8 * (192 + 128));
  CHECK(m.kv_bytes_per_token(DType::bf16) == (9.0 * 1280 + 39.0 * 2560) * 2);
  CHECK(m.kv_bytes_per_token(DType::fp8) == 9.0 * 1280 + 39.0 * 2560);
}

TEST_CASE("models 2026: MiMo-V2-Flash's attention fields, other shapes and bad ones", "[hf][models2026]") {
  const nlohmann::json published = read_hf_json_file(fixture("mimo-v2-flash/config.json"));
  const auto dir = std::filesystem::temp_directory_path() / "servesim-models2026" / "mimo";
  std::filesystem::create_directories(dir);
  auto load_with = [&](const nlohmann::json& patch) {
    nlohmann::json j = published;
    j.merge_patch(patch);
    std::ofstream((dir / "config.json").string()) << j.dump(2) << "\n";
    return load_model(dir.string());
  };
  // Sliding layers with q/k heads of 128 (full ones 192), values of 128 in both: the full layers
  // keep 192 (global_head_dim), the values stay 128 everywhere.
  const ModelSpec m = load_with({{"swa_head_dim", 128}});
  CHECK(m.head_dim_of(true) == 192);
  CHECK(m.head_dim_of(false) == 128);
  CHECK(m.value_dim_of(true) == 128);
  CHECK(m.value_dim_of(false) == 128);
  // KV elements per token and layer: full 4 x (192 + 128), sliding 8 x (128 + 128).
  CHECK(m.kv_elements_of(true) == 4 * 320);
  CHECK(m.kv_elements_of(false) == 8 * 256);
  // Refused, naming the field: value widths that differ by kind, query heads that differ by kind,
  // a pattern or MoE list of the wrong length, entries other than 0 and 1.
  CHECK_THAT(error_of([&] { load_with({{"swa_v_head_dim", 192}}); }),
             Contains("value heads of 128 (v_head_dim) and 192 (swa_v_head_dim)"));
  CHECK_THAT(error_of([&] { load_with({{"swa_num_attention_heads", 32}}); }),
             Contains("swa_num_attention_heads 32 differs from num_attention_heads 64"));
  CHECK_THAT(error_of([&] { load_with({{"hybrid_layer_pattern", {0, 1, 1}}}); }),
             Contains("hybrid_layer_pattern lists 3 layers, num_hidden_layers is 48"));
  CHECK_THAT(error_of([&] { load_with({{"moe_layer_freq", {1, 1}}}); }),
             Contains("moe_layer_freq lists 2 layers, num_hidden_layers is 48"));
  nlohmann::json twos = published["moe_layer_freq"];
  twos[3] = 2;
  CHECK_THAT(error_of([&] { load_with({{"moe_layer_freq", twos}}); }),
             Contains("moe_layer_freq entries must be 0 (dense) or 1 (MoE), got 2"));
  CHECK_THAT(error_of([&] { load_with({{"moe_layer_freq", nullptr}}); }),
             Contains("moe_layer_freq must list 0 (dense) or 1 (MoE) for each of the 48 layers"));
  // MoE on every layer but some in the middle: counted, not taken as leading dense layers.
  nlohmann::json middle = published["moe_layer_freq"];
  middle[0] = 1;
  middle[10] = 0;
  middle[20] = 0;
  const ModelSpec mid = load_with({{"moe_layer_freq", middle}});
  CHECK(mid.moe_layers() == 46);
  CHECK(mid.dense_mlp_layers() == 2);
}

TEST_CASE("models 2026: MiMo-V2-Flash's narrower values in the cost model", "[hf][models2026][cost]") {
  const ModelSpec m = load("mimo-v2-flash");
  // One GPU caches the closed form above; at tp=8 each GPU holds one of the 8 sliding KV heads
  // and one of the 4 full-layer ones (replicated): 48 x 1 x 320 x 2 B = 30,720 B.
  CHECK(gpu_kv_bytes_per_token(m, shard(m, 1), DType::bf16) == (9.0 * 1280 + 39.0 * 2560) * 2);
  CHECK(gpu_kv_bytes_per_token(m, shard(m, 8), DType::bf16) == 48.0 * 320 * 2);
  // bf16 weights (overriding the fp8 checkpoint) on one GPU: 2 B x every parameter.
  ResolvedPrecision bf16;
  CHECK(weight_bytes_per_gpu(m, bf16, Parallelism{}) == Approx(2.0 * static_cast<double>(m.total_params())).epsilon(1e-12));
  // The step's attention GEMMs and attention: qkv_proj reads every layer's q, k and v weights,
  // 4096 x (9 x (12288 + 768 + 512) + 39 x (12288 + 1536 + 1024)) x 2 B; o_proj 48 x 8192 x 4096 x 2 B.
  const CostModel cost(load_gpu("h200-sxm"), m, bf16, Parallelism{});
  BatchSummary b = cost.batch();
  b.add(SeqWork{100, 0, true});  // a 100-token prompt: within the 128-token window, every layer sees all keys
  const StepCost s = cost.breakdown(b);
  auto op = [&](const char* name) -> const OpCost& {
    for (const auto& o : s.ops)
      if (std::string(o.name) == name) return o;
    FAIL("no op " << name);
    return s.ops.front();
  };
  CHECK(op("qkv_proj").weight_bytes == Approx(4096.0 * (9 * 13568 + 39 * 14848) * 2).epsilon(1e-12));
  CHECK(op("o_proj").weight_bytes == Approx(48.0 * 8192 * 4096 * 2).epsilon(1e-12));
  // Attention FLOPs: 2 x 64 heads x (192 score + 128 value) per query-key pair and layer, over
  // 100 x 101 / 2 = 5,050 causal pairs and 48 layers.
  CHECK(op("attention_prefill").flops == Approx(2.0 * 64 * (192 + 128) * 5050 * 48).epsilon(1e-12));
}


TEST_CASE("models 2026: gpt-oss", "[hf][models2026]") {
  // OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card" (2025), table 1: total 116.83B / 20.91B;
  // active 5.13B / 3.61B, counting the unembedding and not the embedding.
  const ModelSpec big = load("gpt-oss-120b"), small = load("gpt-oss-20b");
  CHECK(big.attention_sinks);
  CHECK(big.local.kind == LocalAttention::Kind::sliding);
  CHECK(big.local.span == 128);
  CHECK(big.local.layers == 18);  // layer_types: sliding on the even layers
  CHECK(big.active_count == ModelSpec::ActiveCount::lm_head_only);
  CHECK(within(billions(big.total_params()), 116.83, 0.005));
  CHECK(within(billions(big.active_params()), 5.13, 0.01));
  CHECK(within(billions(small.total_params()), 20.91, 0.005));
  CHECK(within(billions(small.active_params()), 3.61, 0.01));
  // One layer of gpt-oss-20b by hand: attention 2880 x (4096 + 2 x 512) + its biases (4096 +
  // 1024 + 2880) + o_proj 4096 x 2880 + 64 sinks = 26,550,336; 32 experts of 3 x 2880 x 2880
  // plus biases 2 x 2880 + 2880 = 24,891,840 each, the router 2880 x 32 + 32.
  CHECK(small.attention_params_per_layer() == 2880LL * 5120 + 4096 + 1024 + 2880 + 4096LL * 2880 + 64);
  CHECK(small.moe_params_per_layer() == 32LL * (3LL * 2880 * 2880 + 3 * 2880) + 2880 * 32 + 32);
}

TEST_CASE("models 2026: DeepSeek-V3.2 and the Kimi-K2 family", "[hf][models2026]") {
  // DeepSeek-V3 technical report: 671B total, 37B activated; V3.2 adds the indexer (0.85B).
  const ModelSpec v32 = load("deepseek-v3.2");
  CHECK(v32.indexer.enabled());
  CHECK(v32.local.kind == LocalAttention::Kind::topk);
  CHECK(v32.local.span == 2048);
  CHECK(v32.local.layers == 61);
  CHECK(within(billions(v32.total_params()), 671.0, 0.02));
  CHECK(within(billions(v32.active_params()), 37.0, 0.02));
  // Kimi K2 report ("Kimi K2: Open Agentic Intelligence", 2025): 1.04T total, 32B activated. Its
  // K2.5 wraps the same text model (text_config: DeepseekV3ForCausalLM) beside a vision encoder.
  for (const char* name : {"kimi-k2-instruct", "kimi-k2-thinking", "kimi-k2.5"}) {
    INFO(name);
    const ModelSpec k = load(name);
    CHECK(k.moe.num_experts == 384);
    CHECK(within(billions(k.total_params()), 1040.0, 0.02));
    CHECK(within(billions(k.active_params()), 32.0, 0.02));
  }
  CHECK(load("kimi-k2.5").vision_params_estimate > 0);  // said to be left out
}

TEST_CASE("models 2026: Qwen3 MoE, Qwen3-Next and Qwen3.5 totals", "[hf][models2026]") {
  // Model cards: Qwen3-235B-A22B 235B / 22B; Qwen3-30B-A3B 30.5B / 3.3B (both tables counted);
  // Qwen3-Next-80B-A3B 80B total; Qwen3.5-397B-A17B 397B, 122B-A10B 122B, 27B 27B (their active
  // figures are the names' rounded "A3B", "A17B": see the report for the error against them).
  CHECK(within(billions(load("qwen3-235b-a22b").total_params()), 235.0, 0.02));
  CHECK(within(billions(load("qwen3-235b-a22b").active_params()), 22.0, 0.02));
  CHECK(within(billions(load("qwen3-30b-a3b").total_params()), 30.5, 0.02));
  CHECK(within(billions(load("qwen3-30b-a3b").active_params()), 3.3, 0.02));
  const ModelSpec next = load("qwen3-next-80b-a3b-thinking");
  CHECK(next.state.kind == StateLayers::Kind::gated_delta);
  CHECK(next.state.layers == 36);  // full_attention_interval 4: 12 of 48 layers attend
  CHECK(next.attention_layers() == 12);
  CHECK(next.attention_output_gate);
  CHECK(within(billions(next.total_params()), 80.0, 0.02));
  CHECK(within(billions(load("qwen3.5-397b-a17b").total_params()), 397.0, 0.02));
  CHECK(within(billions(load("qwen3.5-122b-a10b").total_params()), 122.0, 0.02));
  CHECK(within(billions(load("qwen3.5-27b").total_params()), 27.0, 0.02));
  const ModelSpec q35 = load("qwen3.5-397b-a17b");
  CHECK(q35.state.state_dtype == DType::fp32);  // mamba_ssm_dtype float32
  CHECK(q35.state.layers == 45);               // layer_types: 45 linear, 15 full
  CHECK(q35.mtp_layers == 1);
}

TEST_CASE("models 2026: GLM, MiniMax, Nemotron and Jamba", "[hf][models2026]") {
  // GLM-4.5 model card (GLM-4.7's architecture): 355B total, 32B active, neither table counted.
  const ModelSpec glm = load("glm-4.7-fp8-trimmed");
  CHECK(within(billions(glm.total_params()), 355.0, 0.02));
  CHECK(within(billions(glm.active_params()), 32.0, 0.02));
  // MiniMax-M2 model card: 230B total, 10B active (M2.5 has the M2's shapes).
  const ModelSpec mm = load("minimax-m2.5");
  CHECK(within(billions(mm.total_params()), 230.0, 0.02));
  CHECK(within(billions(mm.active_params()), 10.0, 0.02));
  // NVIDIA Nemotron 3 Nano model card: 31.6B total, 3.2B active (3.6B with embeddings).
  const ModelSpec nano = load("nemotron-3-nano-30b-a3b");
  CHECK(nano.state.kind == StateLayers::Kind::mamba2);
  CHECK(nano.state.layers == 23);
  CHECK(nano.attention_layers() == 6);
  CHECK(nano.moe_layers() == 23);
  CHECK(nano.dense_mlp_layers() == 0);
  CHECK(within(billions(nano.total_params()), 31.6, 0.02));
  CHECK(within(billions(nano.active_params()), 3.2, 0.02));
  CHECK(within(billions(nano.active_params_all_tables()), 3.6, 0.02));
  // Nemotron 3 Super 120B-A12B (its name): latent MoE of 512 experts, top-22.
  const ModelSpec super = load("nemotron-3-super-120b-a12b-fp8");
  CHECK(super.moe.latent == 1024);
  CHECK(within(billions(super.total_params()), 120.0, 0.02));
  CHECK(within(billions(super.active_params()), 12.0, 0.02));
  // Nemotron-H-56B (its name; "Nemotron-H" report, 2025): 54 Mamba-2, 10 attention, 54 MLP blocks.
  const ModelSpec h56 = load("nemotron-h-56b-base-8k");
  CHECK(h56.attention_layers() == 10);
  CHECK(within(billions(h56.total_params()), 56.0, 0.02));
  // Jamba (transformers' Jamba docs, model card): 52B total, 12B active; attention on 4 of 32
  // layers (i % 8 == 4), MoE on 16 (i % 2 == 1).
  const ModelSpec jamba = load("jamba-v0.1");
  CHECK(jamba.state.kind == StateLayers::Kind::mamba1);
  CHECK(jamba.attention_layers() == 4);
  CHECK(jamba.moe_layers() == 16);
  CHECK(within(billions(jamba.total_params()), 52.0, 0.02));
  CHECK(within(billions(jamba.active_params()), 12.0, 0.02));
}

TEST_CASE("models 2026: JSON as Hugging Face writes it", "[hf][models2026]") {
  // Python's json writes non-finite floats bare; they become strings, and strings stay as they are.
  CHECK(quote_nonfinite_json_tokens(R"({"a": [0.0, Infinity], "b": -Infinity, "c": NaN})") ==
        R"({"a": [0.0, "Infinity"], "b": "-Infinity", "c": "NaN"})");
  CHECK(quote_nonfinite_json_tokens(R"({"s": "Infinity \" NaN", "InfinityX": 1})") ==
        R"({"s": "Infinity \" NaN", "InfinityX": 1})");
  // Nemotron-H-56B's config.json holds "time_step_limit": [0.0, Infinity].
  CHECK_NOTHROW(load("nemotron-h-56b-base-8k"));
}

TEST_CASE("models 2026: wrappers and hybrids built from their documented fields", "[hf][models2026]") {
  // Configs written here from the fields the families document (no published file among the
  // fixtures): a Mistral 3 wrapper around a "ministral3" text model, and a Granite 4.0-H hybrid.
  const auto dir = std::filesystem::temp_directory_path() / "servesim-models2026";
  auto write = [&](const std::string& name, const nlohmann::json& j) {
    std::filesystem::create_directories(dir / name);
    std::ofstream((dir / name / "config.json").string()) << j.dump(2) << "\n";
    return (dir / name).string();
  };
  SECTION("Mistral3ForConditionalGeneration reads its text_config by model_type") {
    // Ministral 3 8B's text shapes (34 layers of 4096, 32 heads, 8 KV heads of 128).
    const nlohmann::json j = {
        {"architectures", {"Mistral3ForConditionalGeneration"}},
        {"model_type", "mistral3"},
        {"torch_dtype", "bfloat16"},
        {"text_config",
         {{"model_type", "ministral3"}, {"hidden_size", 4096}, {"num_hidden_layers", 34}, {"num_attention_heads", 32},
          {"num_key_value_heads", 8}, {"head_dim", 128}, {"intermediate_size", 14336}, {"vocab_size", 131072},
          {"max_position_embeddings", 262144}, {"hidden_act", "silu"}, {"tie_word_embeddings", false}}},
        {"vision_config", {{"hidden_size", 1024}, {"num_hidden_layers", 24}, {"intermediate_size", 4096},
                           {"patch_size", 14}}}};
    const ModelSpec m = load_model(write("ministral3", j));
    CHECK(m.layers == 34);
    CHECK(!m.moe.enabled());
    // 34 x (4096 x (4096 + 2 x 1024) + 4096 x 4096 + 3 x 4096 x 14336) + 2 x 131072 x 4096 + norms.
    CHECK(m.total_params() ==
          34LL * (4096LL * 6144 + 4096LL * 4096 + 3LL * 4096 * 14336) + 2LL * 131072 * 4096 + (2LL * 34 + 1) * 4096);
    // The vision encoder, estimated and left out: 24 x (4 x 1024^2 + 2 x 1024 x 4096) + 3 x 14^2 x 1024.
    CHECK(m.vision_params_estimate == 24LL * (4LL * 1024 * 1024 + 2LL * 1024 * 4096) + 3LL * 14 * 14 * 1024);
  }
  SECTION("GraniteMoeHybrid: Mamba-2 layers from layer_types, a shared MLP") {
    // Granite 4.0-H-Micro's fields: 40 layers, attention on 4 (5, 15, 25, 35), 64 Mamba-2 heads of
    // 64, d_state 128, one group, conv 4; a shared MLP of 8192, no routed experts.
    nlohmann::json types = nlohmann::json::array();
    for (int i = 0; i < 40; ++i) types.push_back(i % 10 == 5 ? "attention" : "mamba");
    const nlohmann::json j = {{"architectures", {"GraniteMoeHybridForCausalLM"}},
                              {"model_type", "granitemoehybrid"},
                              {"hidden_size", 2048},
                              {"num_hidden_layers", 40},
                              {"num_attention_heads", 32},
                              {"num_key_value_heads", 8},
                              {"intermediate_size", 8192},
                              {"shared_intermediate_size", 8192},
                              {"num_local_experts", 0},
                              {"layer_types", types},
                              {"mamba_n_heads", 64},
                              {"mamba_d_head", 64},
                              {"mamba_d_state", 128},
                              {"mamba_n_groups", 1},
                              {"mamba_d_conv", 4},
                              {"vocab_size", 100352},
                              {"max_position_embeddings", 131072},
                              {"tie_word_embeddings", true}};
    const ModelSpec m = load_model(write("granite-h", j));
    CHECK(m.state.kind == StateLayers::Kind::mamba2);
    CHECK(m.state.layers == 36);
    CHECK(m.attention_layers() == 4);
    CHECK(m.ffn == 8192);
    // State per sequence (bf16): 36 x (64 x 64 x 128 x 2 + (64 x 64 + 2 x 128) x 3 x 2).
    CHECK(m.state_bytes_per_sequence(DType::bf16) == 36.0 * (64.0 * 64 * 128 * 2 + (64.0 * 64 + 2 * 128) * 3 * 2));
    // KV only in the 4 attention layers: 4 x 2 x 8 x 64 x 2 bytes a token.
    CHECK(m.kv_bytes_per_token(DType::bf16) == 4.0 * 2 * 8 * 64 * 2);
  }
}

TEST_CASE("models 2026: Kimi K3", "[hf][models2026][kimi-linear]") {
  // moonshotai/Kimi-K3 (KimiK3ForConditionalGeneration): a KimiLinearForCausalLM text model
  // beside a ViT. Shapes as vLLM builds them (read_kimi_linear, layer_kinds.cpp's KDA).
  // Published: "2.8 trillion parameters" (Moonshot's model description, as on the Hugging Face
  // hub and API providers' model pages); "104 billion activated" (quoted from Kimi's model
  // docs, kimi.com/code/docs, by third parties; not read at the source). Which tables the
  // 104B counts is not said; the LM head without the embedding fits (Kimi K2's convention).
  const ModelSpec m = load("kimi-k3");
  CHECK(m.architecture == "KimiK3ForConditionalGeneration");
  CHECK(m.layers == 93);
  CHECK(m.hidden == 7168);
  CHECK(m.state.kind == StateLayers::Kind::kda);
  CHECK(m.state.layers == 69);  // kda_layers
  CHECK(m.attention_layers() == 24);  // full_attn_layers: MLA
  CHECK(m.state.heads == 96);
  CHECK(m.state.head_dim == 128);
  CHECK(m.state.conv_kernel == 4);
  CHECK(m.state.full_rank_gate);
  CHECK(m.mla.q_lora_rank == 1536);
  CHECK(m.mla.kv_lora_rank == 512);
  CHECK(m.attention_output_gate);  // mla_use_output_gate
  CHECK(m.gated_mlp);              // hidden_act situ: SituAndMul, gated
  CHECK(m.moe.num_experts == 896);
  CHECK(m.moe.experts_per_token == 16);
  CHECK(m.moe.shared_experts == 2);
  CHECK(m.moe.latent == 3584);
  CHECK(m.moe.latent_norm);
  CHECK(m.moe_layers() == 92);
  CHECK(m.dense_mlp_layers() == 1);
  CHECK(m.ffn == 33792);
  CHECK(m.attn_res_block_size == 12);
  CHECK(m.mtp_layers == 0);
  CHECK_FALSE(m.tied_embeddings);

  // One KDA layer, P = 96 x 128 = 12,288: q, k, v and the full-rank gate 4 x 7168 x P, f_a 7168 x
  // 128, b 7168 x 96; f_b 128 x P; convs 3 x P x 4; dt_bias P, A_log 96, o_norm 128; o_proj P x 7168:
  // 7168 x (49,152 + 128 + 96) + 1,572,864 + 147,456 + 12,512 + 88,080,384 = 443,740,384.
  const std::int64_t P = 96LL * 128;
  const std::int64_t kda = 7168LL * (4 * P + 128 + 96) + 128LL * P + 3LL * P * 4 + (P + 96 + 128) + P * 7168;
  CHECK(kda == 443740384);
  CHECK(m.state.params_per_layer(m.hidden) == kda);
  // One MLA layer: q_a 7168 x 1536 + norm 1536 + q_b 1536 x 96 x 192; kv_a 7168 x 576 + norm 512;
  // kv_b 512 x 96 x 256; o 96 x 128 x 7168; g_proj 7168 x 96 x 128: 232,196,096.
  const std::int64_t mla = 7168LL * 1536 + 1536 + 1536LL * 96 * 192 + 7168LL * 576 + 512 + 512LL * 96 * 256 +
                           96LL * 128 * 7168 + 7168LL * 96 * 128;
  CHECK(mla == 232196096);
  CHECK(m.attention_params_per_layer() == mla);
  // An MoE layer: router 7168 x 896; 896 experts of 3 x 3584 x 3072 (at the latent width); the
  // latent projections 2 x 7168 x 3584 and norm 3584; two shared experts of 3 x 7168 x 3072.
  const std::int64_t expert = 3LL * 3584 * 3072, router = 7168LL * 896;
  const std::int64_t latent = 2LL * 7168 * 3584 + 3584, shared = 2LL * 3 * 7168 * 3072;
  CHECK(m.moe_params_per_layer() == router + 896 * expert + latent + shared);
  CHECK(m.moe_active_params_per_layer() == router + 16 * expert + latent + shared);
  // The dense layer 3 x 7168 x 33792; tables 2 x 163840 x 7168; norms (2 x 93 + 1) x 7168;
  // attention residuals (4 x 93 + 2) x 7168.
  const std::int64_t dense = 3LL * 7168 * 33792, tables = 2LL * 163840 * 7168;
  const std::int64_t norms = (2LL * 93 + 1) * 7168, attn_res = (4LL * 93 + 2) * 7168;
  CHECK(m.attn_res_params() == attn_res);
  const std::int64_t rest = 69 * kda + 24 * mla + dense + tables + norms + attn_res;
  const std::int64_t total = rest + 92 * (router + 896 * expert + latent + shared);
  const std::int64_t active = rest + 92 * (router + 16 * expert + latent + shared) - 163840LL * 7168;
  CHECK(m.total_params() == total);    // 2,779,484,393,568 (the routed experts 2.72T of it)
  CHECK(m.active_params() == active);  // 104,189,530,208: the LM head counted, the embedding not
  CHECK(m.active_count == ModelSpec::ActiveCount::lm_head_only);
  CHECK(within(billions(m.total_params()), 2800.0, 0.02));  // -0.73%
  CHECK(within(billions(m.active_params()), 104.0, 0.02));  // +0.18% (both tables: 105.36B; neither: 103.02B)

  // KV per token: 24 MLA layers of 512 + 64 (bf16): 24 x 576 x 2 = 27,648 B. State per sequence:
  // 69 KDA layers of 96 heads x 128 x 128 fp32 (6,291,456 B) and three conv windows of P x 3 at
  // the activations' bf16 (221,184 B): 69 x 6,512,640 = 449,372,160 B, whatever the context.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 24.0 * 576 * 2);
  CHECK(m.state.state_dtype == DType::fp32);
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 69.0 * (96.0 * 128 * 128 * 4 + 3.0 * P * 3 * 2));

  // The checkpoint: compressed-tensors MXFP4 (4-bit floats, groups of 32 with a one-byte scale)
  // on every Linear but those ignored: self_attn (MLA and KDA), shared experts, dense MLPs, the
  // head and the vision tower. The routed experts alone are MXFP4.
  CHECK(m.checkpoint.present);
  CHECK(m.native_dtype == DType::fp4);
  CHECK(m.weight_element_bytes(m.native_dtype, TensorGroup::experts) == 0.5 + 1.0 / 32);
  for (const TensorGroup g : {TensorGroup::attention, TensorGroup::state_layers, TensorGroup::shared_experts,
                              TensorGroup::dense_mlp}) {
    INFO(tensor_group_name(g));
    CHECK(m.weight_element_bytes(m.native_dtype, g) == 2.0);
  }
  // The vision tower (27 blocks of 1024, MLP 4096, patches of 14), estimated and left out as for
  // Kimi-K2.5: 27 x (4 x 1024^2 + 2 x 1024 x 4096) + 3 x 14^2 x 1024 = 340,340,736.
  CHECK(m.vision_params_estimate == 340340736);
}

TEST_CASE("models 2026: Kimi-Linear-48B-A3B, a bare Kimi Linear config, and bad layer lists",
          "[hf][models2026][kimi-linear]") {
  // moonshotai/Kimi-Linear-48B-A3B-Instruct's config.json fields, as reproduced with its
  // safetensors listing in a public model-info report (no vendored copy of the file was found
  // for a fixture). Kimi Linear's options: the low-rank output gate (no use_full_rank_gate),
  // queries from hidden (q_lora_rank null), no latent MoE, plain residuals, silu.
  // Published: 48B total, 3B activated (Kimi Team, "Kimi Linear: An Expressive, Efficient
  // Attention Architecture", arXiv 2510.26692); the report's safetensors hold 49,122,681,728.
  std::vector<int> kda_layers;
  for (int i = 1; i <= 26; ++i)
    if (i % 4 != 0) kda_layers.push_back(i);
  nlohmann::json j = {
      {"architectures", {"KimiLinearForCausalLM"}}, {"model_type", "kimi_linear"}, {"dtype", "bfloat16"},
      {"first_k_dense_replace", 1}, {"head_dim", 72}, {"hidden_act", "silu"}, {"hidden_size", 2304},
      {"intermediate_size", 9216}, {"kv_lora_rank", 512},
      {"linear_attn_config",
       {{"full_attn_layers", {4, 8, 12, 16, 20, 24, 27}}, {"head_dim", 128}, {"kda_layers", kda_layers},
        {"num_heads", 32}, {"short_conv_kernel_size", 4}}},
      {"mla_use_nope", true}, {"model_max_length", 1048576}, {"moe_intermediate_size", 1024},
      {"moe_layer_freq", 1}, {"num_attention_heads", 32}, {"num_experts", 256}, {"num_experts_per_token", 8},
      {"num_hidden_layers", 27}, {"num_key_value_heads", 32}, {"num_nextn_predict_layers", 0},
      {"num_shared_experts", 1}, {"q_lora_rank", nullptr}, {"qk_nope_head_dim", 128}, {"qk_rope_head_dim", 64},
      {"tie_word_embeddings", false}, {"v_head_dim", 128}, {"vocab_size", 163840}};
  const ModelSpec m = load_edited(j, "kimi-linear");
  CHECK(m.architecture == "KimiLinearForCausalLM");
  CHECK(m.state.kind == StateLayers::Kind::kda);
  CHECK(m.state.layers == 20);
  CHECK(m.attention_layers() == 7);
  CHECK_FALSE(m.state.full_rank_gate);
  CHECK_FALSE(m.attention_output_gate);
  CHECK(m.moe.latent == 0);
  CHECK(m.attn_res_params() == 0);
  // A KDA layer, P = 32 x 128 = 4,096: q, k, v 3 x 2304 x P, f_a and g_a 2 x 2304 x 128, b 2304 x
  // 32; f_b and g_b 2 x 128 x P; convs 3 x P x 4; dt_bias P, A_log 32, o_norm 128; o_proj P x 2304
  // (the report's tensors of layer 0: the same 39,514,272).
  const std::int64_t P = 4096;
  const std::int64_t kda = 2304LL * (3 * P + 128 + 32 + 128) + 2LL * 128 * P + 3 * P * 4 + (P + 32 + 128) + P * 2304;
  CHECK(kda == 39514272);
  CHECK(m.state.params_per_layer(m.hidden) == kda);
  // An MLA layer: q_proj 2304 x 32 x 192; kv_a 2304 x 576 + norm 512; kv_b 512 x 32 x 256; o 32 x
  // 128 x 2304.
  const std::int64_t mla = 2304LL * 32 * 192 + 2304LL * 576 + 512 + 512LL * 32 * 256 + 32LL * 128 * 2304;
  CHECK(m.attention_params_per_layer() == mla);
  // MoE on layers 1..26: router 2304 x 256, 256 experts and the shared one of 3 x 2304 x 1024; the
  // dense layer 3 x 2304 x 9216; tables 2 x 163840 x 2304; norms (2 x 27 + 1) x 2304.
  const std::int64_t expert = 3LL * 2304 * 1024, router = 2304LL * 256;
  const std::int64_t rest = 20 * kda + 7 * mla + 3LL * 2304 * 9216 + 2LL * 163840 * 2304 + 55LL * 2304;
  CHECK(m.total_params() == rest + 26 * (router + 257 * expert));  // 49,122,675,072
  // The checkpoint's 49,122,681,728 less the routers' e_score_correction_bias (26 x 256), which
  // servesim does not count (as for DeepSeek-V3's).
  CHECK(m.total_params() == 49122681728LL - 26 * 256);
  CHECK(m.active_params() == rest + 26 * (router + 9 * expert) - 163840LL * 2304);  // 3,106,965,888
  // Against the paper's rounded 48B / 3B: +2.3% and +3.6% (both tables 3.48B, neither 2.73B): the
  // names round down; not asserted within 2%.
  CHECK(within(billions(m.total_params()), 48.0, 0.03));
  CHECK(within(billions(m.active_params()), 3.0, 0.04));
  // KV per token: 7 MLA layers x 576 x 2 B = 8,064 B; state per sequence: 20 x (32 x 128 x 128 x 4 +
  // 3 x P x 3 x 2) = 43,417,600 B (fp32 recurrent state, bf16 conv windows).
  CHECK(m.kv_bytes_per_token(DType::bf16) == 7.0 * 576 * 2);
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 20.0 * (32.0 * 128 * 128 * 4 + 3.0 * P * 3 * 2));

  SECTION("without linear_attn_config every layer is MLA") {
    j.erase("linear_attn_config");
    const ModelSpec all = load_edited(j, "kimi-linear-mla");
    CHECK_FALSE(all.state.enabled());
    CHECK(all.attention_layers() == 27);
  }
  SECTION("a layer listed twice, missing or out of range is refused") {
    j["linear_attn_config"]["full_attn_layers"] = {3, 4, 8, 12, 16, 20, 24, 27};
    CHECK_THAT(error_of([&] { load_edited(j, "kimi-linear-dup"); }), Contains("each listed once"));
    j["linear_attn_config"]["full_attn_layers"] = {4, 8, 12, 16, 20, 24};
    CHECK_THAT(error_of([&] { load_edited(j, "kimi-linear-missing"); }), Contains("which mixer the others have"));
    j["linear_attn_config"]["full_attn_layers"] = {4, 8, 12, 16, 20, 24, 28};
    CHECK_THAT(error_of([&] { load_edited(j, "kimi-linear-range"); }), Contains("numbered 1..27"));
  }
  SECTION("an MTP module is refused, its shapes not being in the config") {
    j["num_nextn_predict_layers"] = 1;
    CHECK_THAT(error_of([&] { load_edited(j, "kimi-linear-mtp"); }), Contains("MTP"));
  }
  SECTION("an activation servesim does not read is refused") {
    j["hidden_act"] = "gelu";
    CHECK_THAT(error_of([&] { load_edited(j, "kimi-linear-act"); }), Contains("hidden_act 'gelu'"));
  }
}

TEST_CASE("models 2026: Kimi K3's weights per GPU", "[hf][models2026][kimi-linear][cost]") {
  // tp 16 at the checkpoint's precision: MLA on its 24 attention layers only (not on every
  // layer, as for DeepSeek), the 69 KDA layers, the dense layer (bf16, all split over tp), the
  // 92 MoE layers at the experts' MXFP4 0.53125 B a weight, the tables split over tp (bf16), the
  // norms and attention-residual weights whole (bf16). Of the MoE layer, the shared experts and
  // the router are stored bf16 and charged so; the latent projections, bf16 too, are charged at
  // the experts' bytes (an underestimate of 92 x 6.4M x (2 - 0.53125) B = 0.87 GB over the model,
  // 54 MB per GPU at tp 16).
  const ModelSpec m = load("kimi-k3");
  PrecisionSpec p;
  p.weights = DType::fp4;
  p.activations = DType::bf16;
  p.kv_cache = DType::bf16;
  Parallelism par;
  par.tp = 16;
  const GpuSpec gpu = load_gpu("b200");
  const CostModel cost(gpu, m, resolve_precision(p, gpu), par);
  const double tp = 16.0;
  const double expected = 24.0 * static_cast<double>(m.attention_params_per_layer()) / tp * 2.0 +
                          69.0 * static_cast<double>(m.state.params_per_layer(m.hidden)) / tp * 2.0 +
                          3.0 * 7168 * 33792 / tp * 2.0 +
                          92.0 *
                              (static_cast<double>(m.moe_params_per_layer() - m.shared_expert_params_per_layer() -
                                                   m.router_params_per_layer()) *
                                   (0.5 + 1.0 / 32) +
                               static_cast<double>(m.shared_expert_params_per_layer() + m.router_params_per_layer()) *
                                   2.0) /
                              tp +
                          2.0 * 163840 * 7168 / tp * 2.0 + (2.0 * 93 + 1) * 7168 * 2.0 + (4.0 * 93 + 2) * 7168 * 2.0;
  CHECK(weight_bytes_per_gpu(m, cost.precision(), par) == Approx(expected).epsilon(1e-12));  // about 97.1 GB
}

TEST_CASE("models 2026: MiniMax-M3", "[hf][models2026][minimax-m3]") {
  // MiniMax, MiniMax-M3 model card (huggingface.co/MiniMaxAI/MiniMax-M3, "Model Details"): "Total
  // Parameters ~428B", "Activated Parameters ~23B", "Experts 128 (4 active per token)", "Layers 60".
  // The card's model is the multimodal checkpoint (its vision tower and projector are not in
  // this text config); MiniMax's active figures count neither table (its M2's, model_spec.h).
  const ModelSpec m = load("minimax-m3");
  CHECK(m.layers == 60);
  CHECK(m.heads == 64);
  CHECK(m.kv_heads == 4);
  CHECK(m.head_dim == 128);
  CHECK(m.gated_mlp);  // swigluoai: a clamped SwiGLU with gate, up and down projections
  CHECK_FALSE(m.qkv_bias);
  CHECK_FALSE(m.tied_embeddings);
  // MSA on the 57 layers sparse_attention_freq marks (3-59): 16 blocks of 128 tokens = 2,048 keys.
  CHECK(m.local.kind == LocalAttention::Kind::topk);
  CHECK(m.local.span == 2048);
  CHECK(m.local.layers == 57);
  CHECK(m.global_attention_layers() == 3);
  CHECK(m.indexer.heads == 4);
  CHECK(m.indexer.head_dim == 128);
  CHECK(m.indexer.block == 128);
  CHECK(m.indexer.selected() == 16);
  CHECK_FALSE(m.indexer.head_weights);
  CHECK_FALSE(m.indexer.key_fp8);
  CHECK(m.indexer_layers() == 57);
  // moe_layer_freq: 3 dense layers of dense_intermediate_size 12288, then 57 MoE layers.
  CHECK(m.ffn == 12288);
  CHECK(m.moe.num_experts == 128);
  CHECK(m.moe.experts_per_token == 4);
  CHECK(m.moe.expert_ffn == 3072);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.moe.shared_expert_ffn == 3072);
  CHECK(m.moe.dense_layers == 3);
  CHECK(m.moe_layers() == 57);
  CHECK(m.dense_mlp_layers() == 3);
  CHECK(m.mtp_layers == 0);  // num_mtp_modules 7, num_nextn_predict_layers 1: shapes not given, not counted
  CHECK_FALSE(m.checkpoint.present);  // no quantization_config: a bf16 checkpoint

  // An attention layer: q 6144 x 64 x 128, k and v 6144 x 4 x 128 each, o 64 x 128 x 6144:
  // 6144 x (8192 + 512 + 512) + 8192 x 6144 = 106,954,752.
  const std::int64_t attention = 6144LL * (8192 + 512 + 512) + 8192LL * 6144;
  CHECK(m.attention_params_of(true) == attention);
  CHECK(m.attention_params_of(false) == attention);
  // The index branch of a sparse layer: index_q_proj 6144 x 4 x 128, index_k_proj 6144 x 128 and
  // two RMSNorms of 128, no head weights: 3,145,728 + 786,432 + 256 = 3,932,416.
  const std::int64_t index = 6144LL * 512 + 6144LL * 128 + 2 * 128;
  CHECK(m.indexer.params_per_layer(m.hidden, m.mla.q_lora_rank) == index);
  CHECK(m.attention_params() == 60 * attention + 57 * index);  // 6,641,432,832
  // A dense layer 3 x 6144 x 12288; an expert (and the shared one) 3 x 6144 x 3072; the router 6144 x 128.
  const std::int64_t dense = 3LL * 6144 * 12288, expert = 3LL * 6144 * 3072, router = 6144LL * 128;
  CHECK(m.moe_params_per_layer() == router + 128 * expert + expert);  // 7,305,166,848
  const std::int64_t tables = 2LL * 200064 * 6144, norms = (2LL * 60 + 1) * 6144;
  const std::int64_t layers = 60 * attention + 57 * index + 3 * dense;
  CHECK(m.total_params() == layers + 57 * (router + 129 * expert) + tables + norms);  // 426,174,550,272
  CHECK(m.active_params() == layers + 57 * (router + 5 * expert) + norms);            // 23,504,064,768
  CHECK(m.active_params_all_tables() == m.active_params() + tables);                   // 25,962,451,200
  CHECK(m.active_count == ModelSpec::ActiveCount::no_tables);
  // 426.17B against "~428B": -0.43% (the card's checkpoint also holds the vision tower, about
  // 0.6B by vision_config's shapes, which this text config leaves out).
  CHECK(within(billions(m.total_params()), 428.0, 0.02));
  // 23.50B against "~23B": +2.2%. The card rounds to the billion ("~"), and no finer split is
  // published; the LM head counted would give 24.73B (+7.5%), both tables 25.96B (+12.9%), so
  // the no-tables count is the one that fits. Checked at 3%, not made to fit 2%.
  CHECK(within(billions(m.active_params()), 23.0, 0.03));

  // KV per token: every layer caches 4 x (128 + 128) (bf16: 2 B): 60 x 1,024 x 2 = 122,880 B;
  // each sparse layer also caches one 128-wide index key at 16 bits: 57 x 256 = 14,592 B, at any
  // KV precision. bf16 137,472 B; fp8 61,440 + 14,592 = 76,032 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 60.0 * 1024 * 2 + 57.0 * 256);
  CHECK(m.kv_bytes_per_token(DType::fp8) == 60.0 * 1024 + 57.0 * 256);
}

TEST_CASE("models 2026: MiniMax-M3's block-sparse attention in the cost model", "[hf][models2026][minimax-m3][cost]") {
  const ModelSpec m = load("minimax-m3");
  ResolvedPrecision bf16;
  const CostModel cost(load_gpu("h200-sxm"), m, bf16, Parallelism{});
  auto decode_op = [&](std::int64_t ctx, const char* name) { return decode_op_at(cost, ctx, name); };
  for (const std::int64_t p : {std::int64_t{8192}, std::int64_t{131072}}) {
    INFO(p);
    // The index scores every earlier key on the 57 sparse layers: 2 x 4 heads x 128 FLOPs a key
    // (16-bit, not fp8), p keys of 256 B read.
    const OpCost ix = decode_op(p, "dsa_indexer_decode");
    CHECK_FALSE(ix.fp8_math);
    CHECK(ix.flops == Approx(2.0 * 4 * 128 * p * 57).epsilon(1e-12));
    CHECK(ix.kv_bytes == Approx(256.0 * p * 57).epsilon(1e-12));
    // Sixteen indices (4 B each) written, not 2,048, beside the 4 x 128 query: (512 x 2 + 64) B a layer.
    CHECK(ix.activation_bytes == Approx((4.0 * 128 * 2 + 4.0 * 16) * 57).epsilon(1e-12));
    // The attention: the 3 full layers read all p keys, the 57 sparse ones 16 x 128 = 2,048;
    // 2 x 64 heads x (128 + 128) FLOPs a key.
    const OpCost a = decode_op(p, "attention_decode");
    CHECK(a.flops == Approx(2.0 * 64 * 256 * (3.0 * p + 57.0 * 2048)).epsilon(1e-12));
  }
}

TEST_CASE("models 2026: MiniMax-M3 shapes servesim cannot price are refused", "[hf][models2026][minimax-m3]") {
  const nlohmann::json base = read_hf_json_file(fixture("minimax-m3/config.json"));
  {
    nlohmann::json j = base;
    j["sparse_attention_config"]["sparse_disable_index_value"][10] = 0;
    const std::string e = error_of([&] { load_edited(j, "m3-index-value"); });
    CHECK_THAT(e, Contains("sparse layer 10 keeps the index value branch"));
  }
  {
    nlohmann::json j = base;
    j["sparse_attention_config"]["sparse_init_block"] = 1;
    CHECK_THAT(error_of([&] { load_edited(j, "m3-init-block"); }), Contains("sparse_init_block 1"));
  }
  {
    nlohmann::json j = base;
    j["attention_output_gate"] = true;
    CHECK_THAT(error_of([&] { load_edited(j, "m3-gate"); }), Contains("attention_output_gate true"));
  }
  {
    nlohmann::json j = base;
    j["moe_intermediate_size"] = 1536;
    CHECK_THAT(error_of([&] { load_edited(j, "m3-moe-ffn"); }), Contains("moe_intermediate_size 1536 differs"));
  }
  {
    nlohmann::json j = base;
    j["first_k_dense_replace"] = 4;
    CHECK_THAT(error_of([&] { load_edited(j, "m3-dense"); }), Contains("first_k_dense_replace 4 disagrees"));
  }
  {
    nlohmann::json j = base;
    j["sparse_attention_config"]["sparse_attention_freq"].erase(0);
    CHECK_THAT(error_of([&] { load_edited(j, "m3-freq"); }), Contains("sparse_attention_freq lists 59 layers"));
  }
  {
    // Sparse attention off: every layer attends to the whole context, no index branch.
    nlohmann::json j = base;
    j["sparse_attention_config"]["use_sparse_attention"] = false;
    const ModelSpec m = load_edited(j, "m3-dense-attention");
    CHECK_FALSE(m.local.enabled());
    CHECK_FALSE(m.indexer.enabled());
    CHECK(m.total_params() == load("minimax-m3").total_params() - 57LL * (6144 * 512 + 6144 * 128 + 256));
  }
}

TEST_CASE("models 2026: MiMo-7B-Base", "[hf][models2026][mimo]") {
  // Xiaomi, "MiMo: Unlocking the Reasoning Potential of Language Model" (arXiv:2505.07608) and
  // the MiMo-7B model card name the model by its size class, 7B; no exact count is published.
  // The closed forms below are the count: a Qwen2 decoder (q/k/v biases) and one MTP layer.
  const ModelSpec m = load("mimo-7b-base");
  CHECK(m.layers == 36);
  CHECK(m.hidden == 4096);
  CHECK(m.heads == 32);
  CHECK(m.kv_heads == 8);
  CHECK(m.head_dim == 128);
  CHECK(m.qkv_bias);  // attention_bias true
  CHECK_FALSE(m.tied_embeddings);
  CHECK_FALSE(m.moe.enabled());
  CHECK_FALSE(m.local.enabled());  // use_sliding_window false
  CHECK(m.mtp_layers == 1);        // num_nextn_predict_layers
  CHECK_FALSE(m.mtp_own_tables);   // MiMoMTPLayers use the model's embedding and LM head
  // A layer: q 4096 x 4096, k and v 4096 x 1024 each, their biases 4096 + 1024 + 1024, o 4096 x
  // 4096: 41,949,184; the MLP 3 x 4096 x 11008 = 135,266,304.
  const std::int64_t attention = 4096LL * (4096 + 1024 + 1024) + (4096 + 1024 + 1024) + 4096LL * 4096;
  const std::int64_t mlp = 3LL * 4096 * 11008;
  CHECK(m.attention_params_per_layer() == attention);
  const std::int64_t tables = 2LL * 151680 * 4096, norms = (2LL * 36 + 1) * 4096;
  CHECK(m.total_params() == 36 * (attention + mlp) + tables + norms);  // 7,622,619,136
  CHECK(m.active_params() == m.total_params());                        // dense: every weight
  // The MTP layer: the same attention and MLP, input_proj 2 x 4096 x 4096 and five RMSNorms
  // (input, post-attention, token, hidden, final): 210,790,400; the checkpoint 7,833,409,536.
  CHECK(m.mtp_params() == attention + mlp + 2LL * 4096 * 4096 + 5LL * 4096);
  CHECK(m.checkpoint_params() == m.total_params() + m.mtp_params());
  // KV per token: 36 layers x 8 x (128 + 128) x 2 B = 147,456 B (the MTP layer's, when drafting, apart).
  CHECK(m.kv_bytes_per_token(DType::bf16) == 36.0 * 8 * 256 * 2);
}

TEST_CASE("models 2026: MiniMax-M3 NVFP4 (NVIDIA's MXFP8 / NVFP4 re-export)", "[hf][models2026][minimax-m3]") {
  // A MiniMaxM3SparseForConditionalGeneration wrapper whose text_config is the same text model
  // (it leaves out first_k_dense_replace and moe_intermediate_size, which moe_layer_freq and
  // intermediate_size give): the same shapes and counts as minimax-m3.
  const ModelSpec m = load("minimax-m3-nvfp4");
  const ModelSpec base = load("minimax-m3");
  CHECK(m.architecture == "MiniMaxM3SparseForConditionalGeneration");
  CHECK(m.total_params() == base.total_params());
  CHECK(m.active_params() == base.active_params());
  CHECK(m.kv_bytes_per_token(DType::bf16) == base.kv_bytes_per_token(DType::bf16));
  CHECK(m.local.layers == 57);
  CHECK(m.moe_layers() == 57);
  CHECK(m.vision_params_estimate > 0);  // its vision_config: said, not counted
  // hf_quant_config.json (ModelOpt MIXED_PRECISION): the routed experts NVFP4 (groups of 16, an
  // E4M3 scale: 0.5 + 1/16 B a weight), the attention (with index_q_proj / index_k_proj), the
  // dense MLPs and the shared experts MXFP8 (an E8M0 scale per 32: 1 + 1/32 B); the routers,
  // embedding and head left out. The experts are the largest group: native fp4.
  CHECK(m.checkpoint.present);
  CHECK(m.native_dtype == DType::fp4);
  CHECK(m.checkpoint.bytes(TensorGroup::experts) == Approx(0.5 + 1.0 / 16));
  CHECK(m.checkpoint.bytes(TensorGroup::attention) == Approx(1.0 + 1.0 / 32));
  CHECK(m.checkpoint.bytes(TensorGroup::dense_mlp) == Approx(1.0 + 1.0 / 32));
  CHECK(m.checkpoint.bytes(TensorGroup::shared_experts) == Approx(1.0 + 1.0 / 32));
  CHECK_FALSE(m.checkpoint.has_kv_cache);  // kv_cache_quant_algo null
}

TEST_CASE("models 2026: Llama-3.3-Nemotron-Super-49B-v1, layer by layer from block_configs", "[hf][models2026]") {
  // DeciLMForCausalLM: block_configs gives each layer n_heads_in_group (KV heads = 64 / 8 = 8) or
  // no attention, and an FFN of width round_up_256(int(2 x ffn_mult x 8192 / 3)):
  //   5.25 -> 28672 (49 layers), 2.625 -> 14336 (6), 1.3125 -> 7168 (10), 1.0 -> 5461 -> 5632 (8),
  //   0.5 -> 2730 -> 2816 (6), 3.28125 -> 17920 (1); 49 of 80 layers with attention.
  const ModelSpec m = load("llama-3.3-nemotron-super-49b-v1");
  CHECK(m.layers == 80);
  CHECK(m.attention_layers() == 49);
  CHECK(m.mlp_layers() == 80);
  CHECK(m.kv_heads == 8);
  CHECK(m.ffn == 28672);
  REQUIRE(m.mlp_widths.size() == 6);
  std::int64_t width_layers = 0;
  for (const MlpWidthGroup& g : m.mlp_widths) width_layers += g.ffn * g.layers;
  CHECK(width_layers == 49 * 28672 + 6 * 14336 + 10 * 7168 + 8 * 5632 + 6 * 2816 + 17920);  // 1,642,496
  CHECK(m.mlp_widths.front().ffn == 28672);
  CHECK(m.mlp_widths.front().layers == 49);
  // Attention 49 x (2 x 8192^2 + 2 x 8192 x 1024) = 7,398,752,256; MLP 3 x 8192 x 1,642,496 =
  // 40,365,981,696; embedding and head 2 x 128256 x 8192 = 2,101,346,304; norms (49 + 80 + 1) x
  // 8192 = 1,064,960. Total 49,867,145,216: +1.8% on the published "49B" (a dense model: active
  // = total).
  CHECK(m.total_params() == 49867145216LL);
  CHECK(m.active_params() == m.total_params());
  CHECK(within(billions(m.total_params()), 49, 0.02));
  // KV: 49 layers x 2 x 8 heads x 128 x 2 B = 200,704 B per token in bf16.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 200704.0);
  // The catalog's models/llama-3.3-nemotron-super-49b.yaml (mlp.layer_widths) is the same model.
  const ModelSpec y = load_model("llama-3.3-nemotron-super-49b");
  CHECK(y.total_params() == m.total_params());
  CHECK(y.attention_layers() == 49);
  CHECK(y.kv_bytes_per_token(DType::bf16) == 200704.0);
  CHECK(y.mlp_widths.size() == 6);
}

TEST_CASE("models 2026: Llama-3.1-Nemotron-Ultra-253B-v1, with whole layers left out", "[hf][models2026]") {
  // 162 blocks; 81 have neither attention nor an FFN; 64 attention layers (n_heads_in_group 16:
  // 128 / 16 = 8 KV heads of 128), 81 FFN layers of 12 widths (ffn_mult 0.4875 to 39:
  // round_up_256(int(2 x 39 x 16384 / 3)) = 425,984).
  const ModelSpec m = load("llama-3.1-nemotron-ultra-253b-v1");
  CHECK(m.layers == 162);
  CHECK(m.attention_layers() == 64);
  CHECK(m.mlp_layers() == 81);
  CHECK(m.kv_heads == 8);
  CHECK(m.ffn == 425984);
  CHECK(m.mlp_widths.size() == 12);
  // Attention 64 x (2 x 16384^2 + 2 x 16384 x 1024) = 36,507,222,016, the MLPs 212,688,961,536,
  // embedding and head 2 x 128256 x 16384 = 4,202,692,608, norms (64 + 81 + 1) x 16384 =
  // 2,392,064: 253,401,268,224, +0.16% on the published "253B".
  CHECK(m.total_params() == 253401268224LL);
  CHECK(within(billions(m.total_params()), 253, 0.02));
  CHECK(m.kv_bytes_per_token(DType::bf16) == 64.0 * 2 * 8 * 128 * 2);  // 262,144 B
}

TEST_CASE("models 2026: mlp.layer_widths in a model file is checked against the layers", "[models2026][limits]") {
  // The catalog's Super-49B with its 1-layer 17920-wide run removed: the runs hold 79 of its 80
  // dense MLP layers, which the model check names.
  std::ifstream in(std::string(SERVESIM_TEST_DATA) + "/../models/llama-3.3-nemotron-super-49b.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string run = "    - {intermediate_size: 17920, layers: 1}    # 3.28125\n";
  REQUIRE(text.find(run) != std::string::npos);
  auto write = [&](const std::string& body, const std::string& tag) {
    const std::filesystem::path f = std::filesystem::temp_directory_path() / ("servesim-widths-" + tag + ".yaml");
    std::ofstream(f) << body;
    return f.string();
  };
  std::string short_runs = text;
  short_runs.erase(short_runs.find(run), run.size());
  CHECK_THAT(error_of([&] { load_model(write(short_runs, "short")); }),
             Contains("the MLP width groups hold 79 layers, the model 80 dense MLP layers"));
  std::string wider = text;
  wider.replace(wider.find("{intermediate_size: 17920"), 25, "{intermediate_size: 30000");
  CHECK_THAT(error_of([&] { load_model(write(wider, "wider")); }), Contains("must have layers and a width in 1..28672"));
  std::string linear_width = text;
  linear_width.replace(linear_width.find("{intermediate_size: 17920, layers: 1}"), 37,
                       "{linear: true, intermediate_size: 17920, layers: 1}");
  CHECK_THAT(error_of([&] { load_model(write(linear_width, "linear")); }),
             Contains("a linear run has no intermediate_size"));
}

TEST_CASE("models 2026: a NAS model's MLP widths priced each at its own shape", "[hf][models2026][cost]") {
  // One decode token through Super-49B at TP 2: each width w gives mlp_up (8192 x 2w / 2) and
  // mlp_down (w / 2 x 8192) over its layers; their FLOPs add up to 2 x 3 x 8192 x 1,642,496 / 2
  // per token, and their weight bytes (bf16) to 2 B x 40,365,981,696 / 2.
  const ModelSpec m = load("llama-3.3-nemotron-super-49b-v1");
  ResolvedPrecision bf16;
  Parallelism tp2;
  tp2.tp = 2;
  const CostModel cost(load_gpu("h200-sxm"), m, bf16, tp2);
  BatchSummary b = cost.batch();
  b.add(SeqWork{1, 999, true});
  double flops = 0, weight_bytes = 0;
  int up_ops = 0;
  for (const OpCost& o : cost.breakdown(b).ops) {
    const std::string name = o.name;
    if (name != "mlp_up" && name != "mlp_down") continue;
    up_ops += name == "mlp_up";
    flops += o.flops;
    weight_bytes += o.weight_bytes;
  }
  CHECK(up_ops == 6);  // one per width
  CHECK(flops == Approx(2.0 * 3 * 8192 * 1642496 / 2));
  CHECK(weight_bytes == Approx(2.0 * 40365981696.0 / 2));
  // The weights a GPU holds: half of attention, MLPs, embedding and head, 2 B each:
  // (7,398,752,256 + 40,365,981,696 + 2,101,346,304) = 49,866,080,256 B (norms, 2 MB, aside).
  CHECK(weight_bytes_per_gpu(m, bf16, tp2) == Approx(49866080256.0).epsilon(1e-4));
}

TEST_CASE("models 2026: a DeciLM config servesim cannot describe is refused, naming the block", "[hf][models2026]") {
  nlohmann::json j = nlohmann::json::parse(std::ifstream(fixture("llama-3.3-nemotron-super-49b-v1") + "/config.json"));
  // Layers grouping their heads differently (Llama-3.1-Nemotron-51B) load, each at its own KV
  // heads (ModelSpec::kv_head_groups; test_hf_layer_kv_heads.cpp): here one layer of 64 / 16 = 4
  // beside the others' 8.
  nlohmann::json other = j;
  other["block_configs"][1]["attention"]["n_heads_in_group"] = 16;
  const ModelSpec grouped = load_edited(other, "decilm-groups");
  REQUIRE(grouped.kv_head_groups.size() == 2);
  CHECK(grouped.kv_head_groups[0].kv_heads == 8);
  CHECK(grouped.kv_head_groups[1].kv_heads == 4);
  CHECK(grouped.kv_head_groups[1].layers == 1);
  nlohmann::json window = j;
  window["block_configs"][3]["attention"]["window_length"] = 4096;
  CHECK_THAT(error_of([&] { load_edited(window, "decilm-window"); }),
             Contains("block_configs[3].attention.window_length = 4096"));
  nlohmann::json scalar_block = j;
  scalar_block["block_configs"][0] = 7;
  CHECK_THAT(error_of([&] { load_edited(scalar_block, "decilm-scalar"); }),
             Contains("block_configs[0]: must be an object with 'attention' and 'ffn', got 7"));
  nlohmann::json zero_width = j;
  zero_width["block_configs"][0]["ffn"]["ffn_mult"] = 1e-300;  // int(2 x 1e-300 x 8192 / 3) = 0
  CHECK_THAT(error_of([&] { load_edited(zero_width, "decilm-zero"); }), Contains("gives an FFN of width 0"));
  nlohmann::json short_list = j;
  short_list["block_configs"].erase(0);
  CHECK_THAT(error_of([&] { load_edited(short_list, "decilm-short"); }),
             Contains("block_configs has 79 entries for num_hidden_layers 80"));
  // A linear replacement is one hidden x hidden map: no KV, no MLP.
  nlohmann::json linear = j;
  linear["block_configs"][0]["attention"] = {{"no_op", false}, {"replace_with_linear", true}};
  linear["block_configs"][0]["ffn"] = {{"no_op", false}, {"replace_with_linear", true}};
  const ModelSpec l = load_edited(linear, "decilm-linear");
  CHECK(l.attention_layers() == 48);
  CHECK(l.mlp_layers() == 79);
  CHECK(l.linear_sublayers() == 2);
  // Layer 0 had attention (150,994,944) and a 14336-wide MLP (3 x 8192 x 14336 = 352,321,536);
  // now two 8192 x 8192 maps (134,217,728), norms unchanged.
  CHECK(l.total_params() == 49867145216LL - 150994944 - 352321536 + 134217728);
}
