// Issue 36's leftovers, in closed form: KV heads per group of attention layers (Llama-3.1-
// Nemotron-51B's block_configs: ModelSpec::kv_head_groups), learned position tables counted
// (GPT-2's wpe, OPT's embed_positions: ModelSpec::position_table_rows) and OPT-350m's narrower
// token tables with project_in / project_out and its post-LN layout (ModelSpec::embed_proj_dim,
// final_norm). The configs of the two published models are written from their published fields
// (tests/fixtures/hf_configs_from_fields/, PROVENANCE.md there).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "cost/batch.h"
#include "cost/kv_size.h"
#include "cost/memory_plan.h"
#include "cost/parallelism.h"
#include "cost/precision.h"
#include "cost/step_cost.h"
#include "hf_fixtures.h"
#include "report/model_json.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::error_of;
using servesim::testing::hf::within;
using Catch::Contains;
using I = std::int64_t;

namespace {

std::string from_fields(const std::string& name) {
  return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/" + name;
}

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-kvgroups-", tag);
}

// A 3-layer DeciLM: hidden 512, 8 heads of 64, vocabulary 1000 (untied). Layer 0 groups its 8
// query heads by 8 (1 KV head), layer 1 by 4 (2 KV heads), layer 2 has no attention (no_op).
// Every FFN has ffn_mult 1.0: int(2 x 1.0 x 512 / 3) = 341, rounded up to 512.
nlohmann::json three_layer_decilm() {
  auto block = [](nlohmann::json attention) {
    return nlohmann::json{{"attention", attention}, {"ffn", {{"ffn_mult", 1.0}, {"no_op", false}}}};
  };
  return {{"architectures", {"DeciLMForCausalLM"}},
          {"model_type", "nemotron-nas"},
          {"hidden_size", 512},
          {"num_attention_heads", 8},
          {"num_hidden_layers", 3},
          {"vocab_size", 1000},
          {"max_position_embeddings", 4096},
          {"tie_word_embeddings", false},
          {"block_configs",
           {block({{"n_heads_in_group", 8}, {"no_op", false}}), block({{"n_heads_in_group", 4}, {"no_op", false}}),
            block({{"n_heads_in_group", nullptr}, {"no_op", true}})}}};
}

}  // namespace

TEST_CASE("KV heads per layer: a 3-layer DeciLM grouped 8 / 4 / no_op, by hand", "[hf][kv-head-groups]") {
  const ModelSpec m = load_edited(three_layer_decilm(), "three");
  REQUIRE(m.kv_head_groups.size() == 2);
  CHECK(m.kv_head_groups[0].kv_heads == 2);  // the most first: layer 1's 8 / 4
  CHECK(m.kv_head_groups[0].layers == 1);
  CHECK(m.kv_head_groups[1].kv_heads == 1);  // layer 0's 8 / 8
  CHECK(m.kv_head_groups[1].layers == 1);
  CHECK(m.kv_heads == 2);
  CHECK(m.attention_layers() == 2);
  CHECK(m.mean_kv_heads() == 1.5);
  // KV cache per token, bf16: the sum over attention layers of 2 x kv_heads x head_dim x 2 B =
  // 2 x 1 x 64 x 2 + 2 x 2 x 64 x 2 = 256 + 512 = 768 B (layer 2 caches nothing).
  CHECK(m.kv_bytes_per_token(DType::bf16) == 768.0);
  // Weights: layer 0's attention q 512 x 512, k and v 512 x 64 each, o 512 x 512 = 589,824;
  // layer 1's the same with k and v 512 x 128 = 655,360; three MLPs of 3 x 512 x 512 = 786,432;
  // norms: 2 attention + 3 MLP + the final one, 6 x 512 = 3,072; tables 2 x 1000 x 512 = 1,024,000.
  CHECK(m.attention_params() == 589824 + 655360);
  CHECK(m.total_params() == 589824 + 655360 + 3 * 786432 + 3072 + 1024000);  // 4,631,552
  // One GPU of tp 2: layer 0's single KV head replicated (1), layer 1's two split (1 each): a KV
  // head of 64 keys and 64 values per layer, 2 layers x 128 x 2 B = 512 B per token.
  Parallelism tp2;
  tp2.tp = 2;
  validate_parallelism(tp2, m);
  const ShardShape s = shard_shape(tp2, m);
  CHECK(gpu_kv_bytes_per_token(m, s, DType::bf16) == 512.0);
  CHECK(gpu_kv_bytes_per_token(m, shard_shape(Parallelism{}, m), DType::bf16) == 768.0);
  // Weights on one GPU, bf16: 2 B x every parameter (each layer's k/v_proj at its own width).
  ResolvedPrecision bf16;
  CHECK(weight_bytes_per_gpu(m, bf16, Parallelism{}) == 2.0 * 4631552);
  // tp must divide (or be a multiple of) every run's KV heads: 12 heads grouped by 2 (6 KV heads)
  // and by 4 (3) split over tp 2 leaves the 3-head layer's heads unsplittable.
  nlohmann::json twelve = three_layer_decilm();
  twelve["num_attention_heads"] = 12;
  twelve["hidden_size"] = 768;
  twelve["block_configs"][0]["attention"]["n_heads_in_group"] = 2;
  const ModelSpec t = load_edited(twelve, "twelve");
  CHECK_THAT(error_of([&] { validate_parallelism(tp2, t); }),
             Contains("tp=2 is neither a divisor nor a multiple of the 3 KV heads of 1 attention layers"));
  // inspect shows the runs.
  const nlohmann::json j = model_json(m);
  REQUIRE(j.contains("kv_head_groups"));
  CHECK(j["kv_head_groups"][0]["kv_heads"] == 2);
  CHECK(j["kv_head_groups"][1]["layers"] == 1);
}

TEST_CASE("KV heads per layer: Llama-3.1-Nemotron-51B from its block_configs", "[hf][kv-head-groups][nemotron-51b]") {
  const ModelSpec m = load_model(from_fields("llama-3.1-nemotron-51b-instruct"));
  // 54 attention layers: 44 grouped by 8 (8 KV heads), 1 by 16 (4), 6 by 32 (2), 3 by 64 (1).
  REQUIRE(m.kv_head_groups.size() == 4);
  CHECK(m.kv_head_groups[0].kv_heads == 8);
  CHECK(m.kv_head_groups[0].layers == 44);
  CHECK(m.kv_head_groups[1].kv_heads == 4);
  CHECK(m.kv_head_groups[1].layers == 1);
  CHECK(m.kv_head_groups[2].kv_heads == 2);
  CHECK(m.kv_head_groups[2].layers == 6);
  CHECK(m.kv_head_groups[3].kv_heads == 1);
  CHECK(m.kv_head_groups[3].layers == 3);
  CHECK(m.attention_layers() == 54);
  // KV per token, bf16: (44 x 8 + 4 + 6 x 2 + 3) = 371 KV heads x 2 x 128 x 2 B = 189,952 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 371.0 * 2 * 128 * 2);
  // NVIDIA's model card: 51.5B. servesim: 51,501,015,040 (+0.002%).
  CHECK(m.total_params() == 51501015040LL);
  CHECK(within(static_cast<double>(m.total_params()), 51.5e9, 0.02));
  // tp 8: 8 KV heads split (1 each), 4 / 2 / 1 replicated (1 each): 54 layers x 1 x 256 x 2 B.
  Parallelism tp8;
  tp8.tp = 8;
  validate_parallelism(tp8, m);
  CHECK(gpu_kv_bytes_per_token(m, shard_shape(tp8, m), DType::bf16) == 54.0 * 256 * 2);
  // Weights, bf16, one GPU: 2 B x 51,501,015,040 = 103.0 GB (the card: one H100 at fp8, not bf16).
  ResolvedPrecision bf16;
  CHECK(weight_bytes_per_gpu(m, bf16, Parallelism{}) == Approx(2.0 * 51501015040.0).epsilon(1e-12));
}

TEST_CASE("KV heads per layer: kv_head_groups in a model file, checked", "[kv-head-groups][limits]") {
  auto write = [](const std::string& groups, const std::string& tag) {
    const std::filesystem::path f = std::filesystem::temp_directory_path() / ("servesim-kvgroups-" + tag + ".yaml");
    std::ofstream(f) << "schema_version: 1\nname: kvgroups\nlayers: 3\nhidden_size: 512\n"
                        "attention:\n  heads: 8\n  kv_heads: 2\n  kv_head_groups: "
                     << groups
                     << "\nmlp:\n  intermediate_size: 512\nvocab_size: 1000\nmax_context: 4096\n"
                        "attention_layers: 2\n";
    return f.string();
  };
  // The 3-layer DeciLM above as a model file: the same KV bytes and weights.
  const ModelSpec m = load_model(write("[{kv_heads: 2, layers: 1}, {kv_heads: 1, layers: 1}]", "ok"));
  CHECK(m.kv_bytes_per_token(DType::bf16) == 768.0);
  CHECK(m.attention_params() == 589824 + 655360);
  CHECK_THAT(error_of([&] { load_model(write("[{kv_heads: 2, layers: 1}]", "short")); }),
             Contains("kv_head_groups hold 1 layers for 2 attention layers"));
  CHECK_THAT(error_of([&] { load_model(write("[{kv_heads: 2, layers: 1}, {kv_heads: 3, layers: 1}]", "odd")); }),
             Contains("8 attention heads are not a multiple of 3 KV heads"));
  CHECK_THAT(error_of([&] { load_model(write("[{kv_heads: 1, layers: 2}]", "most")); }),
             Contains("kv_heads 2 must be the largest of kv_head_groups' counts (1)"));
}

TEST_CASE("learned position tables: counted in the total, a lookup beside the embedding", "[hf][position-table]") {
  // A model file with GPT-2 124M's shapes and its wpe of 1024 rows: the same count as the
  // config.json reading (test_hf_legacy_families.cpp), 124,439,808, of which 786,432 the table.
  const std::filesystem::path f = std::filesystem::temp_directory_path() / "servesim-gpt2-rows.yaml";
  std::ofstream(f) << "schema_version: 1\nname: gpt2-file\nlayers: 12\nhidden_size: 768\n"
                      "attention:\n  heads: 12\n  qkv_bias: true\n  o_bias: true\n"
                      "mlp:\n  intermediate_size: 3072\n  gated: false\nvocab_size: 50257\n"
                      "tie_word_embeddings: true\nposition_table_rows: 1024\nmax_context: 1024\n";
  const ModelSpec m = load_model(f.string());
  CHECK(m.position_table_params() == 1024 * 768);
  const nlohmann::json j = model_json(m);
  REQUIRE(j.contains("position_table"));
  CHECK(j["position_table"]["rows"] == 1024);
  // Without the table, by 786,432 fewer (the MLP and LayerNorm biases of GPT-2 are not in this
  // file: its total is not GPT-2's, only the difference is checked).
  ModelSpec no_table = m;
  no_table.position_table_rows = 0;
  CHECK(m.total_params() - no_table.total_params() == 786432);
  CHECK(m.active_params() - no_table.active_params() == 786432);  // all_tables: counted as active
  no_table.active_count = ModelSpec::ActiveCount::no_tables;
  ModelSpec with_no_tables = m;
  with_no_tables.active_count = ModelSpec::ActiveCount::no_tables;
  CHECK(with_no_tables.active_params() == no_table.active_params());  // a lookup, like the embedding
}

TEST_CASE("OPT-350m: narrower tables, project_in / project_out, no final norm", "[hf][opt][opt-350m]") {
  const ModelSpec m = load_model(from_fields("opt-350m"));
  CHECK(m.embed_proj_dim == 512);
  CHECK_FALSE(m.final_norm);
  CHECK(m.position_table_rows == 2050);
  CHECK(m.tied_embeddings);
  // The tied table 50272 x 512 = 25,739,264; embed_positions 2050 x 1024 = 2,099,200;
  // project_in and project_out 2 x 512 x 1024 = 1,048,576; a layer: q, k, v, out_proj with
  // biases 4 x (1024^2 + 1024) = 4,198,400, fc1 and fc2 with biases 2 x 1024 x 4096 + 4096 + 1024
  // = 8,393,728, two LayerNorms with biases 4 x 1024: 12,596,224, x 24 = 302,309,376; no final
  // norm. In all 331,196,416 (the Hub's 331M, the fp16 checkpoint's 662,392,832 bytes / 2).
  const I layer = 4 * (1024LL * 1024 + 1024) + 2LL * 1024 * 4096 + 4096 + 1024 + 4 * 1024;
  CHECK(m.total_params() == 50272LL * 512 + 2050LL * 1024 + 2LL * 512 * 1024 + 24 * layer);
  CHECK(m.total_params() == 331196416LL);
  CHECK(within(static_cast<double>(m.total_params()), 331e6, 0.02));
  CHECK(m.active_params() == m.total_params());
  // Weights in memory, fp16 (its torch_dtype): 2 B x 331,196,416 = 662,392,832 B, the tables,
  // projections and position table included.
  ResolvedPrecision fp16;
  fp16.weights = DType::fp16;
  CHECK(weight_bytes_per_gpu(m, fp16, Parallelism{}) == 662392832.0);
  // KV: 24 layers x 2 x 16 heads x 64 x 2 B = 98,304 B per token.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 98304.0);
  const nlohmann::json j = model_json(m);
  CHECK(j["embedding_projection"]["table_width"] == 512);
  CHECK(j["final_norm"] == false);
}

TEST_CASE("OPT-350m: the projections priced, the LM head at the table width", "[hf][opt][opt-350m][cost]") {
  const ModelSpec m = load_model(from_fields("opt-350m"));
  ResolvedPrecision bf16;
  const CostModel cost(load_gpu("h200-sxm"), m, bf16, Parallelism{});
  const StepCost step = servesim::testing::decode_step(cost, 1, 99);  // one decode token, sampled
  const OpCost* in = servesim::testing::find_op(step, "project_in");
  const OpCost* out = servesim::testing::find_op(step, "project_out");
  const OpCost* head = servesim::testing::find_op(step, "lm_head");
  REQUIRE(in);
  REQUIRE(out);
  REQUIRE(head);
  // One token: 2 x 512 x 1024 FLOPs each projection; the head 2 x 512 x 50272.
  CHECK(in->flops == 2.0 * 512 * 1024);
  CHECK(out->flops == 2.0 * 1024 * 512);
  CHECK(head->flops == 2.0 * 512 * 50272);
  CHECK_FALSE(servesim::testing::find_op(step, "final_norm"));  // post-LN: no norm after the last layer
}
