// Meituan's LongCat-Flash and LongCat-Flash-Lite (hf_longcat_family.cpp): blocks of two MLA +
// MLP sublayers around one MoE, zero-computation (identity) experts, and Lite's n-gram tables
// (NgramEmbedding, layer_kinds.h). Counts of a small in-test config worked out by hand, the
// published models against Meituan's figures (tests/fixtures/hf_configs_from_fields/, PROVENANCE.md
// there), the KV a token holds, the tables' place in the memory plan, and the refusals.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/memory_plan.h"
#include "hf_fixtures.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::error_of;
using servesim::testing::hf::within;
using Catch::Contains;

namespace {

std::string from_fields(const std::string& name) {
  return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/" + name;
}

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-longcat-", tag);
}

// Two blocks (four sublayers) of hidden 64: MLA with 4 heads (q_lora 32, kv_lora 16, nope 8,
// rope 8, v 16), dense MLPs of 128, 8 routed experts of 32 and 4 identity experts, top 3.
nlohmann::json small_longcat() {
  return {{"architectures", {"LongcatFlashForCausalLM"}},
          {"model_type", "longcat_flash"},
          {"vocab_size", 100},
          {"hidden_size", 64},
          {"num_layers", 2},
          {"num_attention_heads", 4},
          {"ffn_hidden_size", 128},
          {"q_lora_rank", 32},
          {"kv_lora_rank", 16},
          {"qk_nope_head_dim", 8},
          {"qk_rope_head_dim", 8},
          {"v_head_dim", 16},
          {"n_routed_experts", 8},
          {"zero_expert_num", 4},
          {"zero_expert_type", "identity"},
          {"moe_topk", 3},
          {"expert_ffn_hidden_size", 32},
          {"max_position_embeddings", 4096}};
}

}  // namespace

TEST_CASE("LongCat-Flash: a small config's parameters counted by hand", "[hf][longcat]") {
  const ModelSpec m = load_edited(small_longcat(), "small");
  CHECK(m.layers == 4);  // 2 blocks of two sublayers
  CHECK(m.moe_layers() == 2);
  CHECK(m.dense_mlp_layers() == 2);
  CHECK(m.moe.zero_experts == 4);
  CHECK(m.moe.routed_topk == 3);
  // A token's 3 picks over 8 real + 4 identity experts reach 3 x 8 / 12 = 2 real ones on average.
  CHECK(m.moe.experts_per_token == 2);
  // MLA sublayer: q_a 64 x 32 = 2,048, q_a_layernorm 32, q_b 32 x 4 x 16 = 2,048, kv_a 64 x 24 =
  //   1,536, kv_a_layernorm 16, kv_b 16 x 4 x 24 = 1,536, o 4 x 16 x 64 = 4,096: 11,312; x 4 = 45,248
  // dense MLPs (mlps.0 and .1 of each block): 3 x 64 x 128 = 24,576; x 4          =     98,304
  // routed experts: 8 x 3 x 64 x 32 = 49,152 a MoE layer; x 2                      =     98,304
  // router over 8 + 4 choices: 64 x 12 = 768; x 2                                 =      1,536
  // RMSNorms: 2 on each of 4 sublayers + the final one: 9 x 64                     =        576
  // embedding and LM head: 2 x 100 x 64                                           =     12,800
  // total                                                                           256,768
  CHECK(m.router_params_per_layer() == 768);
  CHECK(m.total_params() == 256768);
  // Active (LM head counted, embedding not): less the 6 of 8 experts a token skips on average in
  // each MoE layer (2 x 6 x 6,144 = 73,728) and the embedding (6,400): 176,640. The range: 0 real
  // experts, 176,640 - 2 x 2 x 6,144 = 152,064; all 3 picks real, 176,640 + 2 x 6,144 = 188,928.
  CHECK(m.active_params() == 176640);
  CHECK(m.active_params_with_real_experts(0) == 152064);
  CHECK(m.active_params_with_real_experts(3) == 188928);
  // KV a token: 4 MLA sublayers x (16 + 8) x 2 B = 192 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 192.0);

  SECTION("num_hidden_layers alone is transformers' sublayer count") {
    nlohmann::json j = small_longcat();
    j.erase("num_layers");
    j["num_hidden_layers"] = 4;
    CHECK(load_edited(j, "nhl").total_params() == 256768);
  }
  SECTION("vLLM reads num_layers first: a num_hidden_layers of the block count beside it is passed over") {
    nlohmann::json j = small_longcat();
    j["num_hidden_layers"] = 2;
    CHECK(load_edited(j, "both").layers == 4);
  }
  SECTION("without identity experts, top-k is the real experts") {
    nlohmann::json j = small_longcat();
    j["zero_expert_num"] = nullptr;
    const ModelSpec d = load_edited(j, "nozero");
    CHECK(d.moe.experts_per_token == 3);
    CHECK(d.router_params_per_layer() == 64 * 8);
  }
}

TEST_CASE("LongCat-Flash: refusals name the field", "[hf][longcat]") {
  nlohmann::json j = small_longcat();
  j["zero_expert_type"] = "constant";
  CHECK_THAT(error_of([&] { load_edited(j, "type"); }), Contains("zero_expert_type 'constant'"));
  j = small_longcat();
  j["moe_topk"] = 13;
  CHECK_THAT(error_of([&] { load_edited(j, "topk"); }), Contains("moe_topk 13 exceeds the 12 experts"));
  j = small_longcat();
  j["num_layers"] = 0;
  CHECK_THAT(error_of([&] { load_edited(j, "blocks"); }), Contains("num_layers must be a positive block count"));
  j = small_longcat();
  j["architectures"] = {"LongcatFlashNgramForCausalLM"};
  j["model_type"] = "longcat_flash_ngram";
  j["ngram_vocab_size_ratio"] = 2;
  j["emb_neighbor_num"] = 4;
  j["emb_split_num"] = 5;  // 5 x 3 = 15 tables do not split 64
  CHECK_THAT(error_of([&] { load_edited(j, "split"); }), Contains("must split evenly over"));
  j["emb_split_num"] = 4;
  j.erase("ngram_vocab_size_ratio");
  CHECK_THAT(error_of([&] { load_edited(j, "ratio"); }), Contains("ngram_vocab_size_ratio must be a positive number"));
}

TEST_CASE("LongCat-Flash-Lite: the n-gram tables, by hand", "[hf][longcat]") {
  nlohmann::json j = small_longcat();
  j["architectures"] = {"LongcatFlashNgramForCausalLM"};
  j["model_type"] = "longcat_flash_ngram";
  j["ngram_vocab_size_ratio"] = 2.5;  // m = 250 rows
  j["emb_neighbor_num"] = 3;
  j["emb_split_num"] = 2;  // 2 x 2 = 4 tables of 64 / 4 = 16
  const ModelSpec m = load_edited(j, "ngram");
  CHECK(m.ngram.tables == 4);
  CHECK(m.ngram.width == 16);
  // Table i holds floor(250 + 2 i + 1) rows: 251 + 253 + 255 + 257 = 1,016 rows x 16 = 16,256;
  // the projections 4 x 16 x 64 = 4,096, used by every token.
  CHECK(m.ngram.table_params() == 16256);
  CHECK(m.ngram.projection_params(m.hidden) == 4096);
  CHECK(m.total_params() == 256768 + 16256 + 4096);
  CHECK(m.active_params() == 176640 + 4096);
}

TEST_CASE("LongCat-Flash-Chat and -Lite against Meituan's figures", "[hf][longcat]") {
  // LongCat-Flash-Chat (transformers' LongcatFlashConfig defaults, the checkpoint its docs name):
  // MLA sublayer 6144 x 1536 + 1536 + 1536 x 64 x 192 + 6144 x 576 + 512 + 512 x 64 x 256 +
  //   64 x 128 x 6144 = 90,572,800; x 56                                     =   5,072,076,800
  // dense MLPs 3 x 6144 x 12288 = 226,492,416; x 56                           =  12,683,575,296
  // routed experts 512 x 3 x 6144 x 2048 = 19,327,352,832; x 28              = 541,165,879,296
  // routers 6144 x 768 = 4,718,592; x 28                                      =     132,120,576
  // norms (112 + 1) x 6144                                                    =         694,272
  // embedding and LM head 2 x 131072 x 6144                                   =   1,610,612,736
  // total 560,664,958,976 (Meituan: 560B, +0.12%)
  const ModelSpec chat = load_model(from_fields("longcat-flash-chat"));
  CHECK(chat.layers == 56);
  CHECK(chat.moe.experts_per_token == 8);  // 12 x 512 / 768
  CHECK(chat.total_params() == 560664958976LL);
  // Active, LM head counted: 18,693,773,312 with no real expert (Meituan: 18.6B, +0.5%),
  // + 28 x 8 x 37,748,736 = 8,455,716,864 at 8 on average: 27,149,490,176 (27B, +0.55%), and
  // + 28 x 12 x 37,748,736 at 12: 31,377,348,608 (31.3B, +0.25%).
  CHECK(chat.active_params() == 27149490176LL);
  CHECK(chat.active_params_with_real_experts(0) == 18693773312LL);
  CHECK(chat.active_params_with_real_experts(12) == 31377348608LL);
  CHECK(within(static_cast<double>(chat.total_params()), 560e9, 0.02));
  CHECK(within(static_cast<double>(chat.active_params()), 27e9, 0.02));
  // KV a token: 56 sublayers x 576 x 2 B = 64,512 B.
  CHECK(chat.kv_bytes_per_token(DType::bf16) == 64512.0);

  // LongCat-Flash-Lite: 14 blocks at hidden 3072 plus 12 n-gram tables of 256, table i of
  // floor(78 x 131072 + 2 i + 1) rows: 12 x 10,223,616 + 144 = 122,683,536 rows x 256 =
  // 31,406,985,216 (Meituan: "31.4B" in the n-gram embedding).
  const ModelSpec lite = load_model(from_fields("longcat-flash-lite"));
  CHECK(lite.ngram.table_params() == 31406985216LL);
  // total 68,562,459,648 (68.5B, +0.09%); active 2,929,953,792 to 4,515,400,704 (2.9B-4.5B).
  CHECK(lite.total_params() == 68562459648LL);
  CHECK(within(static_cast<double>(lite.total_params()), 68.5e9, 0.02));
  CHECK(within(static_cast<double>(lite.active_params_with_real_experts(0)), 2.9e9, 0.02));
  CHECK(within(static_cast<double>(lite.active_params_with_real_experts(12)), 4.5e9, 0.02));
}

TEST_CASE("LongCat-Flash-Lite: the n-gram tables take memory, split over TP like the embedding", "[hf][longcat]") {
  const ModelSpec lite = load_model(from_fields("longcat-flash-lite"));
  ModelSpec plain = lite;
  plain.ngram = NgramEmbedding{};
  ResolvedPrecision bf16;
  Parallelism tp2;
  tp2.tp = 2;
  // bf16: the tables' 31,406,985,216 x 2 B / 2 GPUs and the projections' 9,437,184 x 2 B on each.
  const double extra = weight_bytes_per_gpu(lite, bf16, tp2) - weight_bytes_per_gpu(plain, bf16, tp2);
  CHECK(extra == Approx(31406985216.0 + 9437184.0 * 2.0).epsilon(1e-12));
}
