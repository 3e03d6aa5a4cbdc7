// Cohere2Moe (North Mini Code, Command A+), FlexOlmo, Snowflake Arctic, Pangu Pro MoE, openPangu
// Ultra MoE, Sarvam, A.X K1 and Param-2, read from config.json (hf_rest_2026_families.cpp).
// No whole published config.json of these models was found in a public repository to vendor, so
// each config is written here from the fields third-party code quotes from the published file, or
// from the configuration class that documents the checkpoint, citing the source beside each. Each
// total is checked exactly against a closed form written out from vLLM's modeling code, and against
// the publisher's figure where one is published (cited per case).
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "hf_fixtures.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using servesim::testing::error_of;
using servesim::testing::hf::within;
using Catch::Contains;

namespace {

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-rest-2026-families-", tag);
}

// CohereLabs/North-Mini-Code-1.0's config.json as a third-party loader pins it field by field
// (NORTH_CONFIG in its artifact checks, "Pinned from north_mini_code.inspect_artifact"): hidden 2048,
// head_dim 128, 49 layers, intermediate_size 768, prefix_dense_intermediate_size 3072, 32 query and 4
// KV heads, vocabulary 262144, 128 experts top-8, no shared expert, first_k_dense_replace 1,
// sliding_window 4096, max_position_embeddings 500000, use_qk_norm false, tie_word_embeddings null,
// rms_norm_eps 1e-6; layer_types full on every 4th layer from 0, sliding on the others
// (NORTH_LAYER_TYPES there; Cohere's blog: "sliding-window attention with RoPE and global attention
// with no positional embeddings, in a 3:1 ratio").
nlohmann::json north_mini_code() {
  std::vector<std::string> types;
  for (int i = 0; i < 49; ++i) types.push_back(i % 4 == 0 ? "full_attention" : "sliding_attention");
  return {{"architectures", {"Cohere2MoeForCausalLM"}},
          {"model_type", "cohere2_moe"},
          {"hidden_size", 2048},
          {"head_dim", 128},
          {"num_hidden_layers", 49},
          {"intermediate_size", 768},
          {"prefix_dense_intermediate_size", 3072},
          {"num_attention_heads", 32},
          {"num_key_value_heads", 4},
          {"vocab_size", 262144},
          {"num_experts", 128},
          {"num_experts_per_tok", 8},
          {"num_shared_experts", 0},
          {"first_k_dense_replace", 1},
          {"prefix_dense_sliding_window_pattern", 1},
          {"expert_selection_fn", "sigmoid"},
          {"sliding_window", 4096},
          {"rope_theta", 50000},
          {"max_position_embeddings", 500000},
          {"use_parallel_block", true},
          {"use_qk_norm", false},
          {"norm_topk_prob", false},
          {"tie_word_embeddings", nullptr},
          {"rms_norm_eps", 1e-06},
          {"layer_norm_eps", 1e-05},
          {"layer_types", types},
          {"hidden_act", "silu"},
          {"torch_dtype", "bfloat16"}};
}

// Command A+'s text model as a port's tests write it "production-shaped" (mstar's command_a_plus
// config tests: hidden_size 4096, 32 layers, 128 query heads of head_dim 128, 8 KV heads, vocabulary
// 262144, intermediate_size 4096, 128 experts top-8, num_shared_experts 4 (a shared MLP of 16384,
// which that test checks), sliding_window 4096, max_position_embeddings 200000, its 4-layer
// layer_types (three sliding, then full) repeated 8 times; first_k_dense_replace refused there: no
// dense layer).
nlohmann::json command_a_plus_text() {
  std::vector<std::string> types;
  for (int i = 0; i < 32; ++i) types.push_back(i % 4 == 3 ? "full_attention" : "sliding_attention");
  return {{"architectures", {"Cohere2MoeForCausalLM"}},
          {"model_type", "cohere2_moe"},
          {"hidden_size", 4096},
          {"head_dim", 128},
          {"num_hidden_layers", 32},
          {"intermediate_size", 4096},
          {"num_attention_heads", 128},
          {"num_key_value_heads", 8},
          {"vocab_size", 262144},
          {"num_experts", 128},
          {"num_experts_per_tok", 8},
          {"num_shared_experts", 4},
          {"shared_expert_combination_strategy", "average"},
          {"expert_selection_fn", "sigmoid"},
          {"sliding_window", 4096},
          {"max_position_embeddings", 200000},
          {"layer_types", types},
          {"rms_norm_eps", 1e-05},
          {"tie_word_embeddings", true},
          {"hidden_act", "silu"}};
}

// allenai/FlexOlmo-7x7B-1T: transformers' FlexOlmoConfig defaults, documented there as this
// checkpoint (src/transformers/models/flex_olmo/configuration_flex_olmo.py, @auto_docstring(checkpoint=
// "allenai/FlexOlmo-7x7B-1T"): vocabulary 100352, hidden 4096, intermediate 11008, 32 layers, 32
// heads, num_key_value_heads None (32), 7 experts, untied, max_position_embeddings 4096), with the
// published config.json's num_experts_per_tok 7 (every expert active; quoted with num_experts 7 and
// norm_topk_prob false in a write-up that recomputes the model from its HF config.json).
nlohmann::json flexolmo_7x7b() {
  return {{"architectures", {"FlexOlmoForCausalLM"}},
          {"model_type", "flex_olmo"},
          {"vocab_size", 100352},
          {"hidden_size", 4096},
          {"intermediate_size", 11008},
          {"num_hidden_layers", 32},
          {"num_attention_heads", 32},
          {"num_key_value_heads", 32},
          {"hidden_act", "silu"},
          {"max_position_embeddings", 4096},
          {"rms_norm_eps", 1e-06},
          {"tie_word_embeddings", false},
          {"attention_bias", false},
          {"num_experts", 7},
          {"num_experts_per_tok", 7},
          {"norm_topk_prob", false},
          {"torch_dtype", "bfloat16"}};
}

// Snowflake/snowflake-arctic-instruct: moe_layer_frequency 1, num_attention_heads 56,
// num_experts_per_tok 2 (its config.json as a Hub commit, fd069fd "Update config.json", shows them);
// hidden 7168, 8 KV heads, 35 layers, 128 experts of intermediate_size 4864, vocabulary 32000,
// use_residual true, untied (as Snowflake's model card computes it: "a 10B dense transformer model
// with a residual 128x3.66B MoE MLP resulting in 480B total and 17B active parameters chosen using a
// top-2 gating": 3 x 7168 x 4864 x 35 layers = 3.66B an expert; third-party spec pages give hidden
// 7168, 56 heads, 8 KV heads), max_position_embeddings 4096 (its 4K context).
nlohmann::json arctic_instruct() {
  return {{"architectures", {"ArcticForCausalLM"}},
          {"model_type", "arctic"},
          {"hidden_size", 7168},
          {"intermediate_size", 4864},
          {"num_hidden_layers", 35},
          {"num_attention_heads", 56},
          {"num_key_value_heads", 8},
          {"num_local_experts", 128},
          {"num_experts_per_tok", 2},
          {"moe_layer_frequency", 1},
          {"use_residual", true},
          {"parallel_attn_mlp_res", true},
          {"vocab_size", 32000},
          {"max_position_embeddings", 4096},
          {"hidden_act", "silu"},
          {"rms_norm_eps", 1e-05},
          {"sliding_window", nullptr},
          {"tie_word_embeddings", false},
          {"torch_dtype", "bfloat16"}};
}

// Pangu Pro MoE 72B-A16B: vLLM-Ascend's PanGuMoEConfig defaults (configuration_pangu_moe.py: hidden
// 5120, 48 layers, 40 heads, 8 KV heads, 64 experts of moe_intermediate_size 1344, top 8, a shared
// expert of 5376, untied) with the model card's vocabulary ("Vocabulary Size: 153,376 - Layers: 48 -
// MoGE Configuration: 4 shared experts, 64 routing experts grouped into 8 clusters with 1 expert
// activated per group": 4 x 1344 = 5376).
nlohmann::json pangu_pro_moe() {
  return {{"architectures", {"PanguProMoEForCausalLM"}},
          {"model_type", "PanGuMoE"},
          {"vocab_size", 153376},
          {"hidden_size", 5120},
          {"num_hidden_layers", 48},
          {"num_attention_heads", 40},
          {"num_key_value_heads", 8},
          {"hidden_act", "silu"},
          {"max_position_embeddings", 131072},
          {"rms_norm_eps", 1e-05},
          {"tie_word_embeddings", false},
          {"moe_intermediate_size", 1344},
          {"shared_expert_intermediate_size", 5376},
          {"num_experts_per_tok", 8},
          {"num_experts", 64},
          {"torch_dtype", "bfloat16"}};
}

// openPangu-Ultra-MoE-718B: its OpenPanguMoEConfig defaults ("openPanguUltraMoE 718B model
// configuration", model_type "pangu_ultra_moe": vocabulary 153600, hidden 7680, intermediate 18432,
// moe_intermediate_size 2048, 61 layers, 1 MTP layer, 128 heads, 1 shared and 256 routed experts,
// attention_kv_lora_dim 512, attention_q_lora_dim 1536, attention_qk_rope_dim 64, attention_v_dim 128,
// attention_qk_dim 128, top 8, num_dense_layers 3, untied, max_position_embeddings 131072).
nlohmann::json pangu_ultra_moe() {
  return {{"architectures", {"PanguUltraMoEForCausalLM"}},
          {"model_type", "pangu_ultra_moe"},
          {"vocab_size", 153600},
          {"hidden_size", 7680},
          {"intermediate_size", 18432},
          {"moe_intermediate_size", 2048},
          {"num_hidden_layers", 61},
          {"num_mtp_layers", 1},
          {"num_attention_heads", 128},
          {"num_key_value_heads", 128},
          {"num_shared_experts", 1},
          {"num_routed_experts", 256},
          {"routed_scaling_factor", 2.5},
          {"attention_kv_lora_dim", 512},
          {"attention_q_lora_dim", 1536},
          {"attention_qk_rope_dim", 64},
          {"attention_v_dim", 128},
          {"attention_qk_dim", 128},
          {"num_experts_per_tok", 8},
          {"num_dense_layers", 3},
          {"norm_topk_prob", true},
          {"hidden_act", "silu"},
          {"max_position_embeddings", 131072},
          {"rms_norm_eps", 1e-05},
          {"tie_word_embeddings", false},
          {"sandwich_norm", true},
          {"torch_dtype", "bfloat16"}};
}

}  // namespace

TEST_CASE("rest 2026: North Mini Code (Cohere2Moe)", "[hf][rest2026]") {
  const ModelSpec m = load_edited(north_mini_code(), "north-mini-code");
  CHECK(m.layers == 49);
  CHECK(m.head_dim == 128);
  CHECK(m.kv_heads == 4);
  CHECK(m.tied_embeddings);
  CHECK(m.moe.num_experts == 128);
  CHECK(m.moe.experts_per_token == 8);
  CHECK(m.moe.expert_ffn == 768);
  CHECK(m.moe.shared_experts == 0);
  CHECK(m.moe.dense_layers == 1);
  CHECK(m.ffn == 3072);
  CHECK(m.local.layers == 36);  // 49 - 13 full layers (0, 4, ..., 48)
  CHECK(m.local.span == 4096);
  // attention 2048 x (32 + 2 x 4) x 128 + 32 x 128 x 2048; layer 0 a SwiGLU MLP 3 x 2048 x 3072; 48 MoE
  // layers of a router 2048 x 128 and 128 experts of 3 x 2048 x 768; one tied table 262144 x 2048; two
  // norms a layer counted (one in the model: 100,352 weights over) and the final one.
  const std::int64_t attention = 2048LL * (32 + 8) * 128 + 32LL * 128 * 2048, dense = 3LL * 2048 * 3072;
  const std::int64_t e = 3LL * 2048 * 768, router = 2048LL * 128, table = 262144LL * 2048,
                     norms = (2LL * 49 + 1) * 2048;
  const std::int64_t total = 49 * attention + dense + 48 * (router + 128 * e) + table + norms;
  const std::int64_t active = 49 * attention + dense + 48 * (router + 8 * e) + table + norms;
  CHECK(m.total_params() == total);    // 30,484,404,224
  CHECK(m.active_params() == active);  // 3,305,314,304
  // Cohere, "Introducing North Mini Code" (huggingface.co/blog/CohereLabs/introducing-north-mini-code):
  // "a 30B-parameter Mixture-of-Experts model with 3B active parameters": +1.6%. The "3B" is
  // rounded (the active count is +10% from it with both tables, -7.7% with neither); Cohere's
  // Command A+ figures below fix the convention.
  CHECK(within(static_cast<double>(m.total_params()), 30e9, 0.02));
  // KV: 13 full layers at any length, 36 within the window: 4 x 2 x 128 x 2 B a layer and token.
  CHECK(m.kv_elements_per_token_layer() == 4 * 2 * 128);
}

TEST_CASE("rest 2026: Command A+ text model (Cohere2Moe with shared experts)", "[hf][rest2026]") {
  const ModelSpec m = load_edited(command_a_plus_text(), "command-a-plus");
  CHECK(m.moe.dense_layers == 0);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.moe.shared_expert_ffn == 16384);  // 4 x 4096
  CHECK(m.local.layers == 24);
  // attention 4096 x (128 + 16) x 128 + 128 x 128 x 4096; per layer a router 4096 x 128, 128 experts of
  // 3 x 4096 x 4096 and a shared MLP 3 x 4096 x 16384; one tied table; 65 norms.
  const std::int64_t attention = 4096LL * (128 + 16) * 128 + 128LL * 128 * 4096, e = 3LL * 4096 * 4096;
  const std::int64_t shared = 3LL * 4096 * 16384, router = 4096LL * 128, table = 262144LL * 4096,
                     norms = (2LL * 32 + 1) * 4096;
  const std::int64_t total = 32 * (attention + router + 128 * e + shared) + table + norms;
  const std::int64_t active = 32 * (attention + router + 8 * e + shared) + table + norms;
  CHECK(m.total_params() == total);    // 218,255,069,184
  CHECK(m.active_params() == active);  // 24,981,540,864
  // Cohere's model list (command-a-plus-05-2026: "Sparse MoE, 218B total parameters, 25B active per
  // token", as a third-party catalog of Cohere's models quotes it): +0.1% and -0.07%, the table
  // counted (without it 23.9B, -4.4%).
  CHECK(within(static_cast<double>(m.total_params()), 218e9, 0.02));
  CHECK(within(static_cast<double>(m.active_params()), 25e9, 0.02));
}

TEST_CASE("rest 2026: Cohere2Moe's layer kinds and refusals", "[hf][rest2026]") {
  nlohmann::json j = north_mini_code();
  j.erase("first_k_dense_replace");
  std::vector<std::string> kinds(49, "sparse");
  kinds[0] = "dense";
  kinds[20] = "dense";  // a dense layer past the prefix: counted, not placed
  j["mlp_layer_types"] = kinds;
  ModelSpec m = load_edited(j, "cohere2-moe-kinds");
  CHECK(m.moe_layers() == 47);
  CHECK(m.dense_mlp_layers() == 2);

  j = north_mini_code();
  j.erase("layer_types");  // every 4th layer (1-based) global by sliding_window_pattern's default
  m = load_edited(j, "cohere2-moe-pattern");
  CHECK(m.local.layers == 49 - 12);

  j = north_mini_code();
  j["use_qk_norm"] = true;
  CHECK_THAT(error_of([&] { load_edited(j, "cohere2-moe-qk"); }), Contains("use_qk_norm true"));
  j = north_mini_code();
  j["tie_word_embeddings"] = false;
  CHECK_THAT(error_of([&] { load_edited(j, "cohere2-moe-untied"); }), Contains("tie_word_embeddings false"));
  j = north_mini_code();
  j["mlp_layer_types"] = std::vector<std::string>(49, "dense");
  CHECK_THAT(error_of([&] { load_edited(j, "cohere2-moe-dense"); }), Contains("no layer is MoE"));
  j = north_mini_code();
  j["mlp_layer_types"] = std::vector<std::string>(3, "sparse");
  CHECK_THAT(error_of([&] { load_edited(j, "cohere2-moe-short"); }), Contains("mlp_layer_types lists 3 layers"));
}

TEST_CASE("rest 2026: FlexOlmo-7x7B-1T reads as OLMoE", "[hf][rest2026]") {
  const ModelSpec m = load_edited(flexolmo_7x7b(), "flexolmo-7x7b");
  CHECK(m.moe.num_experts == 7);
  CHECK(m.moe.experts_per_token == 7);
  CHECK(m.moe.expert_ffn == 11008);
  CHECK(m.moe_layers() == 32);
  // attention 4 x 4096^2 (multi-head, no biases); per layer a router 4096 x 7 and 7 experts of
  // 3 x 4096 x 11008; untied tables 2 x 100352 x 4096; 65 norms (post-norms: two a layer). The q/k
  // norms over the full widths (2 x 4096 a layer) are not counted, as OLMoE's are not.
  const std::int64_t attention = 4LL * 4096 * 4096, e = 3LL * 4096 * 11008, tables = 2LL * 100352 * 4096,
                     norms = (2LL * 32 + 1) * 4096;
  const std::int64_t total = 32 * (attention + 4096LL * 7 + 7 * e) + tables + norms;
  CHECK(m.total_params() == total);  // 33,270,403,072
  CHECK(m.active_params() == total);  // every expert active
  // allenai/FlexOlmo-7x7B-1T model card: "a Mixture-of-Experts with 33B total parameters": +0.8%.
  CHECK(within(static_cast<double>(m.total_params()), 33e9, 0.02));

  // The paper's final model, eight experts with four active (Shi et al., "FlexOlmo: Open Language
  // Models for Flexible Data Use", arXiv:2507.07024: "models with up to 37 billion parameters (20
  // billion active)"): +1.6% and +1.4%.
  nlohmann::json j = flexolmo_7x7b();
  j["num_experts"] = 8;
  j["num_experts_per_tok"] = 4;
  const ModelSpec p = load_edited(j, "flexolmo-8x7b");
  const std::int64_t total8 = 32 * (attention + 4096LL * 8 + 8 * e) + tables + norms;
  const std::int64_t active8 = 32 * (attention + 4096LL * 8 + 4 * e) + tables + norms;
  CHECK(p.total_params() == total8);    // 37,599,055,872
  CHECK(p.active_params() == active8);  // 20,284,968,960
  CHECK(within(static_cast<double>(p.total_params()), 37e9, 0.02));
  CHECK(within(static_cast<double>(p.active_params()), 20e9, 0.02));
}

TEST_CASE("rest 2026: Snowflake Arctic (dense residual MLP as a shared expert)", "[hf][rest2026]") {
  const ModelSpec m = load_edited(arctic_instruct(), "arctic-instruct");
  CHECK(m.head_dim == 128);  // 7168 / 56
  CHECK(m.moe_layers() == 35);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.moe.shared_expert_ffn == 7168);  // residual_mlp: ffn_dim = hidden_size
  // attention 7168 x (7168 + 2 x 1024) + 7168^2; per layer a router 7168 x 128, 128 experts of
  // 3 x 7168 x 4864 and the residual MLP 3 x 7168 x 7168; untied tables 2 x 32000 x 7168; 71 norms
  // (the residual_layernorm, 7168 a layer, not counted).
  const std::int64_t attention = 7168LL * (7168 + 2048) + 7168LL * 7168, e = 3LL * 7168 * 4864;
  const std::int64_t residual = 3LL * 7168 * 7168, router = 7168LL * 128, tables = 2LL * 32000 * 7168,
                     norms = (2LL * 35 + 1) * 7168;
  const std::int64_t total = 35 * (attention + router + 128 * e + residual) + tables + norms;
  const std::int64_t active = 35 * (attention + router + 2 * e + residual) + tables + norms;
  CHECK(m.total_params() == total);    // 478,584,357,888
  CHECK(m.active_params() == active);  // 17,318,396,928
  // Snowflake's model card: "480B total and 17B active parameters": -0.3% and +1.9% (its own sum,
  // 10B dense + 2 x 3.66B, is 17.3B: the tables are in its 10B).
  CHECK(within(static_cast<double>(m.total_params()), 480e9, 0.02));
  CHECK(within(static_cast<double>(m.active_params()), 17e9, 0.02));

  // ArcticConfig's default moe_layer_frequency 2: MoE on layers 1, 3, ..., 33 (17 of 35), the others
  // a SwiGLU MLP of intermediate_size; the residual MLP only on the MoE layers.
  nlohmann::json j = arctic_instruct();
  j["moe_layer_frequency"] = 2;
  const ModelSpec half = load_edited(j, "arctic-every-other");
  CHECK(half.moe_layers() == 17);
  CHECK(half.dense_mlp_layers() == 18);
  CHECK(half.total_params() == 35 * attention + 17 * (router + 128 * e + residual) + 18 * e + tables + norms);

  j = arctic_instruct();
  j["hidden_act"] = "gelu";
  CHECK_THAT(error_of([&] { load_edited(j, "arctic-gelu"); }), Contains("hidden_act 'gelu'"));
  j = arctic_instruct();
  j["moe_layer_frequency"] = 0;
  CHECK_THAT(error_of([&] { load_edited(j, "arctic-freq"); }), Contains("moe_layer_frequency 0"));
}

TEST_CASE("rest 2026: Pangu Pro MoE 72B-A16B (MoGE)", "[hf][rest2026]") {
  const ModelSpec m = load_edited(pangu_pro_moe(), "pangu-pro-moe");
  CHECK(m.head_dim == 128);
  CHECK(m.qkv_bias);
  CHECK(m.attention_o_bias);
  CHECK(m.moe_layers() == 48);
  CHECK(m.moe.shared_expert_ffn == 5376);
  // attention 5120 x (5120 + 2 x 1024) + 5120^2 with biases on q, k, v (7168) and o (5120); per layer a
  // router 5120 x 64, 64 experts of 3 x 5120 x 1344 and a shared MLP 3 x 5120 x 5376; untied tables
  // 2 x 153376 x 5120; 97 norms.
  const std::int64_t attention = 5120LL * (5120 + 2048) + 5120LL * 5120 + 7168 + 5120, e = 3LL * 5120 * 1344;
  const std::int64_t shared = 3LL * 5120 * 5376, router = 5120LL * 64, table = 153376LL * 5120,
                     norms = (2LL * 48 + 1) * 5120;
  const std::int64_t total = 48 * (attention + router + 64 * e + shared) + 2 * table + norms;
  const std::int64_t active = 48 * (attention + router + 8 * e + shared) + table + norms;  // LM head, not the embedding
  CHECK(m.total_params() == total);    // 71,988,777,984
  CHECK(m.active_params() == active);  // 15,712,850,944
  // Tang et al., "Pangu Pro MoE: Mixture of Grouped Experts for Efficient Sparsity" (arXiv:2505.21411):
  // "72 billion total parameters, 16 billion of which are activated for each token": -0.02% and
  // -1.8% (with both tables 16.50B, +3.1%; Huawei's Ultra MoE 39B below fits the same count).
  CHECK(within(static_cast<double>(m.total_params()), 72e9, 0.02));
  CHECK(within(static_cast<double>(m.active_params()), 16e9, 0.02));

  nlohmann::json j = pangu_pro_moe();
  j["mlp_only_layers"] = {0, 47};
  j["intermediate_size"] = 13824;
  const ModelSpec dense = load_edited(j, "pangu-pro-mlp-only");
  CHECK(dense.moe_layers() == 46);
  CHECK(dense.dense_mlp_layers() == 2);
  j["mlp_only_layers"] = {48};
  CHECK_THAT(error_of([&] { load_edited(j, "pangu-pro-bad-layer"); }), Contains("mlp_only_layers lists layer 48"));
}

TEST_CASE("rest 2026: openPangu Ultra MoE 718B reads as DeepSeek-V3", "[hf][rest2026]") {
  const ModelSpec m = load_edited(pangu_ultra_moe(), "pangu-ultra-moe");
  CHECK(m.mla.kv_lora_rank == 512);
  CHECK(m.mla.q_lora_rank == 1536);
  CHECK(m.mla.qk_nope_head_dim == 128);
  CHECK(m.mla.qk_rope_head_dim == 64);
  CHECK(m.mla.v_head_dim == 128);
  CHECK(m.moe.num_experts == 256);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.moe.dense_layers == 3);
  CHECK(m.mtp_layers == 1);
  // MLA a layer: q_a 7680 x 1536 + its norm 1536 + q_b 1536 x 128 x 192; kv_a 7680 x (512 + 64) + its
  // norm 512; kv_b 512 x 128 x (128 + 128); o 128 x 128 x 7680. Three dense layers 3 x 7680 x 18432;
  // 58 MoE layers of a router 7680 x 256, 256 experts and one shared of 3 x 7680 x 2048; untied tables
  // 2 x 153600 x 7680; 123 norms (the sandwich norms' 2 x 7680 a layer not counted).
  const std::int64_t mla = 7680LL * 1536 + 1536 + 1536LL * 128 * 192 + 7680LL * 576 + 512 + 512LL * 128 * 256 +
                           128LL * 128 * 7680;
  const std::int64_t dense = 3LL * 7680 * 18432, e = 3LL * 7680 * 2048, router = 7680LL * 256,
                     table = 153600LL * 7680, norms = (2LL * 61 + 1) * 7680;
  const std::int64_t total = 61 * mla + 3 * dense + 58 * (router + 257 * e) + 2 * table + norms;
  const std::int64_t active = 61 * mla + 3 * dense + 58 * (router + 9 * e) + table + norms;
  CHECK(m.total_params() == total);    // 719,092,830,720
  CHECK(m.active_params() == active);  // 39,190,909,440 (LM head counted, embedding not: DeepSeek's count)
  // openPangu-Ultra-MoE-718B model card (README_EN.md): "a total parameter count of 718B and 39B
  // activated parameters per token": +0.15% and +0.5%.
  CHECK(within(static_cast<double>(m.total_params()), 718e9, 0.02));
  CHECK(within(static_cast<double>(m.active_params()), 39e9, 0.02));

  for (const auto& [key, value, says] :
       std::vector<std::tuple<std::string, nlohmann::json, std::string>>{
           {"use_mhc", true, "manifold hyper-connections"},
           {"use_mome", true, "MoME attention"},
           {"param_sink_number", 128, "learned sink keys"},
           {"swa_layers", nlohmann::json::array({1, 2}), "swa_layers"},
           {"dsa_layers", nlohmann::json::array({0}), "dsa_layers"}}) {
    nlohmann::json j = pangu_ultra_moe();
    j[key] = value;
    CHECK_THAT(error_of([&] { load_edited(j, "pangu-ultra-" + key); }), Contains(says));
  }
}

TEST_CASE("rest 2026: openPangu Pro MoE V2 is read as vLLM builds it, by Ultra MoE's class", "[hf][rest2026]") {
  // vLLM's openpangu.py: PanguProMoEV2ForCausalLM(OpenPanguMoEModel), the class of
  // PanguUltraMoEForCausalLM; OpenPanguDecoderLayer picks MLA when the config has its fields, else
  // OpenPanguSinkAttention (param_sink_number > 0), else a plain attention.
  nlohmann::json mla = pangu_ultra_moe();
  mla["architectures"] = {"PanguProMoEV2ForCausalLM"};
  const ModelSpec v2 = load_edited(mla, "pangu-pro-v2-mla");
  const ModelSpec ultra = load_edited(pangu_ultra_moe(), "pangu-ultra-for-v2");
  CHECK(v2.total_params() == ultra.total_params());  // the same layers: 719,092,830,720
  CHECK(v2.active_params() == ultra.active_params());

  // Without MLA fields (a GQA config with learned sinks, as the V2 sink path reads it): refused
  // naming the sinks; without sinks either, naming the missing MLA.
  nlohmann::json gqa = {{"architectures", {"PanguProMoEV2ForCausalLM"}},
                        {"vocab_size", 153600},
                        {"hidden_size", 4096},
                        {"intermediate_size", 12288},
                        {"moe_intermediate_size", 1024},
                        {"num_hidden_layers", 4},
                        {"num_attention_heads", 32},
                        {"num_key_value_heads", 8},
                        {"num_routed_experts", 64},
                        {"num_experts_per_tok", 8},
                        {"hidden_act", "silu"},
                        {"max_position_embeddings", 32768},
                        {"param_sink_number", 128}};
  CHECK_THAT(error_of([&] { load_edited(gqa, "pangu-pro-v2-sink"); }), Contains("param_sink_number 128"));
  gqa.erase("param_sink_number");
  CHECK_THAT(error_of([&] { load_edited(gqa, "pangu-pro-v2-gqa"); }), Contains("without kv_lora_rank"));
}

// Step-3's text model, once refused here, loads: tests/unit/test_hf_step3_family.cpp.

namespace {

// sarvamai/sarvam-105b: the fields NVIDIA's Megatron Bridge tests quote for its SarvamMLA bridge
// (num_hidden_layers 32, hidden_size 4096, intermediate_size 16384, moe_intermediate_size 2048, 64 heads,
// 128 experts top-8, 1 shared expert, first_k_dense_replace 1, vocabulary 262144,
// max_position_embeddings 131072, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64,
// v_head_dim 128; no q_lora_rank: q_proj straight from the hidden state) and a write-up that reads the
// released config.json ("How Sarvam 30B and 105B are built": untied embeddings, q_head_dim 192).
nlohmann::json sarvam_105b() {
  return {{"architectures", {"SarvamMLAForCausalLM"}},
          {"num_hidden_layers", 32},
          {"hidden_size", 4096},
          {"intermediate_size", 16384},
          {"moe_intermediate_size", 2048},
          {"num_attention_heads", 64},
          {"num_experts", 128},
          {"num_experts_per_tok", 8},
          {"num_shared_experts", 1},
          {"first_k_dense_replace", 1},
          {"vocab_size", 262144},
          {"max_position_embeddings", 131072},
          {"kv_lora_rank", 512},
          {"qk_nope_head_dim", 128},
          {"qk_rope_head_dim", 64},
          {"v_head_dim", 128},
          {"hidden_act", "silu"},
          {"tie_word_embeddings", false},
          {"torch_dtype", "bfloat16"}};
}

// sarvamai/sarvam-30b as that write-up reads its config.json: 19 layers, hidden 4096, 64 query heads of
// head_dim 64 and 4 KV heads, 128 experts top-6 of moe_intermediate_size 1024, 1 shared expert, layer 0
// dense of 8192 (first_k_dense_replace 1), vocabulary 262144, untied, QK-norm, n_group 1 / topk_group 1.
nlohmann::json sarvam_30b() {
  return {{"architectures", {"SarvamMoEForCausalLM"}},
          {"model_type", "sarvam_moe"},
          {"num_hidden_layers", 19},
          {"hidden_size", 4096},
          {"num_attention_heads", 64},
          {"num_key_value_heads", 4},
          {"head_dim", 64},
          {"intermediate_size", 8192},
          {"moe_intermediate_size", 1024},
          {"num_experts", 128},
          {"num_experts_per_tok", 6},
          {"num_shared_experts", 1},
          {"first_k_dense_replace", 1},
          {"n_group", 1},
          {"topk_group", 1},
          {"use_qk_norm", true},
          {"use_qkv_bias", false},
          {"use_bias", false},
          {"vocab_size", 262144},
          {"max_position_embeddings", 131072},
          {"hidden_act", "silu"},
          {"tie_word_embeddings", false},
          {"torch_dtype", "bfloat16"}};
}

// skt/A.X-K1: transformers' AXK1Config defaults, documented there as this checkpoint
// (@auto_docstring(checkpoint="skt/A.X-K1"): vocabulary 163840, hidden 7168, intermediate_size 18432,
// moe_intermediate_size 2048, 61 layers, 64 heads, 1 shared and 192 routed experts, kv_lora_rank 512,
// q_lora_rank 1536, qk_rope_head_dim 64, v_head_dim 128, qk_nope_head_dim 128, n_group 8, topk_group 4,
// top 8, first_k_dense_replace 1; untied, DeepseekV3Config's default). The model card's "Number of
// layers: 61 (1 dense + 60 MoE) ... 64 heads ... Expert intermediate size: 2048 ... Vocab size: 163,840"
// agrees; its "Intermediate size: 7168" would shrink the one dense layer by 242M weights (0.05%).
nlohmann::json axk1() {
  return {{"architectures", {"AXK1ForCausalLM"}},
          {"model_type", "axk1"},
          {"vocab_size", 163840},
          {"hidden_size", 7168},
          {"intermediate_size", 18432},
          {"moe_intermediate_size", 2048},
          {"num_hidden_layers", 61},
          {"num_attention_heads", 64},
          {"num_key_value_heads", 64},
          {"n_shared_experts", 1},
          {"n_routed_experts", 192},
          {"routed_scaling_factor", 2.5},
          {"kv_lora_rank", 512},
          {"q_lora_rank", 1536},
          {"qk_rope_head_dim", 64},
          {"v_head_dim", 128},
          {"qk_nope_head_dim", 128},
          {"n_group", 8},
          {"topk_group", 4},
          {"num_experts_per_tok", 8},
          {"first_k_dense_replace", 1},
          {"max_position_embeddings", 131072},
          {"hidden_act", "silu"},
          {"tie_word_embeddings", false},
          {"torch_dtype", "bfloat16"}};
}

}  // namespace

TEST_CASE("rest 2026: Sarvam 105B (SarvamMLA)", "[hf][rest2026]") {
  const ModelSpec m = load_edited(sarvam_105b(), "sarvam-105b");
  CHECK(m.mla.kv_lora_rank == 512);
  CHECK(m.mla.q_lora_rank == 0);
  CHECK(m.moe.dense_layers == 1);
  CHECK(m.moe_layers() == 31);
  CHECK(m.moe.shared_expert_ffn == 2048);
  // MLA a layer: q_proj 4096 x 64 x 192; kv_a 4096 x (512 + 64) + its norm 512; kv_b 512 x 64 x 256;
  // o 64 x 128 x 4096. Layer 0 a SwiGLU MLP 3 x 4096 x 16384; 31 MoE layers of a router 4096 x 128,
  // 128 experts and a shared one of 3 x 4096 x 2048; untied tables 2 x 262144 x 4096; 65 norms.
  const std::int64_t mla = 4096LL * 64 * 192 + 4096LL * 576 + 512 + 512LL * 64 * 256 + 64LL * 128 * 4096;
  const std::int64_t dense = 3LL * 4096 * 16384, e = 3LL * 4096 * 2048, router = 4096LL * 128,
                     tables = 2LL * 262144 * 4096, norms = (2LL * 32 + 1) * 4096;
  const std::int64_t total = 32 * mla + dense + 31 * (router + 129 * e) + tables + norms;
  const std::int64_t active = 32 * mla + dense + 31 * (router + 9 * e) + norms;  // neither table
  CHECK(m.total_params() == total);    // 106,031,763,456
  CHECK(m.active_params() == active);  // 10,267,414,528
  // Sarvam (March 2026 release, as coverage of it quotes: "Both 30B and 105B activate only ... 2.4B and
  // 10.3B respectively"): +1.0% and -0.3%.
  CHECK(within(static_cast<double>(m.total_params()), 105e9, 0.02));
  CHECK(within(static_cast<double>(m.active_params()), 10.3e9, 0.02));
  CHECK(m.kv_bytes_per_token(DType::bf16) == 32.0 * (512 + 64) * 2);

  nlohmann::json j = sarvam_105b();
  j["moe_layer_freq"] = 2;  // MoE on layers 1, 3, ..., 31: (i - 1) % 2 == 0
  const ModelSpec every_other = load_edited(j, "sarvam-105b-freq");
  CHECK(every_other.moe_layers() == 16);
  CHECK(every_other.dense_mlp_layers() == 16);
  j = sarvam_105b();
  j.erase("kv_lora_rank");
  CHECK_THAT(error_of([&] { load_edited(j, "sarvam-105b-no-mla"); }), Contains("needs kv_lora_rank"));
}

TEST_CASE("rest 2026: Sarvam 30B (SarvamMoE reads as Ling 2.0)", "[hf][rest2026]") {
  const ModelSpec m = load_edited(sarvam_30b(), "sarvam-30b");
  CHECK(m.head_dim == 64);
  CHECK(m.kv_heads == 4);
  CHECK(m.moe.dense_layers == 1);
  CHECK(m.moe.experts_per_token == 6);
  CHECK(m.ffn == 8192);
  // attention 4096 x (64 + 8) x 64 + 64 x 64 x 4096; layer 0 a SwiGLU MLP 3 x 4096 x 8192; 18 MoE layers
  // of a router 4096 x 128, 128 experts and a shared one of 3 x 4096 x 1024; untied tables; 39 norms
  // (the per-head q/k norms, 128 a layer, not counted).
  const std::int64_t attention = 4096LL * 72 * 64 + 64LL * 64 * 4096, dense = 3LL * 4096 * 8192;
  const std::int64_t e = 3LL * 4096 * 1024, router = 4096LL * 128, tables = 2LL * 262144 * 4096,
                     norms = (2LL * 19 + 1) * 4096;
  const std::int64_t total = 19 * attention + dense + 18 * (router + 129 * e) + tables + norms;
  const std::int64_t active = 19 * attention + dense + 18 * (router + 7 * e) + norms;  // neither table
  CHECK(m.total_params() == total);    // 32,152,645,632
  CHECK(m.active_params() == active);  // 2,373,087,232
  // Sarvam's "2.4B" active (non-embedding): -1.1%. Its "30B" is the product name: the released config
  // sums to 32.15B (+7.2%), as the write-up above finds ("the configs give 32B and 106B"); no published
  // total within 2% is checked.
  CHECK(within(static_cast<double>(m.active_params()), 2.4e9, 0.02));
}

TEST_CASE("rest 2026: A.X K1 reads as DeepSeek-V3 with both tables active", "[hf][rest2026]") {
  const ModelSpec m = load_edited(axk1(), "axk1");
  CHECK(m.moe.num_experts == 192);
  CHECK(m.moe.dense_layers == 1);
  CHECK(m.moe_layers() == 60);
  CHECK(m.moe.groups == 8);
  CHECK(m.moe.topk_groups == 4);
  // MLA a layer: q_a 7168 x 1536 + 1536, q_b 1536 x 64 x 192, kv_a 7168 x 576 + 512, kv_b 512 x 64 x 256,
  // o 64 x 128 x 7168; layer 0 3 x 7168 x 18432; 60 MoE layers of a router 7168 x 192, 192 experts and
  // one shared of 3 x 7168 x 2048; untied tables 2 x 163840 x 7168; 123 norms (the post_mlp_layernorm,
  // 7168 a MoE layer, not counted).
  const std::int64_t mla = 7168LL * 1536 + 1536 + 1536LL * 64 * 192 + 7168LL * 576 + 512 + 512LL * 64 * 256 +
                           64LL * 128 * 7168;
  const std::int64_t dense = 3LL * 7168 * 18432, e = 3LL * 7168 * 2048, router = 7168LL * 192,
                     tables = 2LL * 163840 * 7168, norms = (2LL * 61 + 1) * 7168;
  const std::int64_t total = 61 * mla + dense + 60 * (router + 193 * e) + tables + norms;
  const std::int64_t active = 61 * mla + dense + 60 * (router + 9 * e) + tables + norms;
  CHECK(m.total_params() == total);    // 518,982,622,208
  CHECK(m.active_params() == active);  // 32,778,902,528
  // skt/A.X-K1 model card: "519 billion total parameters, with 33 billion active parameters": -0.003%
  // and -0.7% (the LM head alone, DeepSeek's count, gives 31.6B: -4.2%).
  CHECK(within(static_cast<double>(m.total_params()), 519e9, 0.02));
  CHECK(within(static_cast<double>(m.active_params()), 33e9, 0.02));
}

TEST_CASE("rest 2026: Param-2 17B-A2.4B (Param2MoE)", "[hf][rest2026]") {
  // bharatgenai/Param2-17B-A2.4B-Thinking's config.json as an 8-bit copy republishes it
  // (neuralnets/Param2-17B-A2.4B-Thinking-8bit: first_k_dense_replace 1, head_dim 64, hidden_size 2048,
  // intermediate_size 9216, max_position_embeddings 4096, moe_intermediate_size 2048,
  // moe_shared_expert_intermediate_size 4096, n_group 1, 32 heads, 64 experts top-6, 21 layers, 8 KV
  // heads, num_shared_experts 2), with the vocabulary (128008), the tied embedding and use_qk_norm true
  // that the excerpt leaves out taken from NVIDIA Megatron Bridge's Param2ModelProvider, "Provider for
  // BharatGen Param2-17B-A2.4B-Thinking" (param_17B_provider.py), whose other fields agree.
  const nlohmann::json j = {{"architectures", {"Param2MoEForCausalLM"}},
                            {"model_type", "param2moe"},
                            {"num_hidden_layers", 21},
                            {"hidden_size", 2048},
                            {"intermediate_size", 9216},
                            {"num_attention_heads", 32},
                            {"num_key_value_heads", 8},
                            {"head_dim", 64},
                            {"vocab_size", 128008},
                            {"max_position_embeddings", 4096},
                            {"tie_word_embeddings", true},
                            {"num_experts", 64},
                            {"num_experts_per_tok", 6},
                            {"moe_intermediate_size", 2048},
                            {"moe_shared_expert_intermediate_size", 4096},
                            {"num_shared_experts", 2},
                            {"first_k_dense_replace", 1},
                            {"n_group", 1},
                            {"topk_group", 1},
                            {"use_qk_norm", true},
                            {"use_qkv_bias", false},
                            {"use_bias", false},
                            {"hidden_act", "silu"},
                            {"torch_dtype", "bfloat16"}};
  const ModelSpec m = load_edited(j, "param2-17b");
  CHECK(m.moe.shared_expert_ffn == 4096);  // the total width, not 2 x 4096
  CHECK(m.moe_layers() == 20);
  CHECK(m.qk_head_norms);
  // attention 2048 x (32 + 16) x 64 + 32 x 64 x 2048 and its q/k norms 2 x 64; layer 0 3 x 2048 x 9216;
  // 20 MoE layers of a router 2048 x 64, 64 experts of 3 x 2048 x 2048 and a shared MLP 3 x 2048 x 4096;
  // one tied table 128008 x 2048; 43 norms.
  const std::int64_t attention = 2048LL * 48 * 64 + 32LL * 64 * 2048 + 2 * 64, dense = 3LL * 2048 * 9216;
  const std::int64_t e = 3LL * 2048 * 2048, shared = 3LL * 2048 * 4096, router = 2048LL * 64,
                     table = 128008LL * 2048, norms = (2LL * 21 + 1) * 2048;
  const std::int64_t total = 21 * attention + dense + 20 * (router + 64 * e + shared) + table + norms;
  const std::int64_t active = 21 * attention + dense + 20 * (router + 6 * e + shared) + table + norms;
  CHECK(m.total_params() == total);    // 17,151,140,480
  CHECK(m.active_params() == active);  // 2,554,962,560
  // BharatGen's model card (bharatgenai/Param2-17B-A2.4B-Thinking): "17B total parameters, while
  // activating only 2.4B parameters per token": +0.9%. The active count is +6.5% from 2.4B with the tied
  // table counted and -4.5% without it (2.29B): no count of these weights gives 2.4B, so no active
  // figure is checked.
  CHECK(within(static_cast<double>(m.total_params()), 17e9, 0.02));

  nlohmann::json b = j;
  b["use_qkv_bias"] = true;
  b["use_bias"] = true;
  const ModelSpec biased = load_edited(b, "param2-bias");
  CHECK(biased.total_params() == total + 21 * ((2048 + 1024) + 2048));  // q, k, v and o_proj biases
}

TEST_CASE("rest 2026: a Cohere2Vision wrapper around a Cohere2Moe text model", "[hf][rest2026]") {
  // SGLang's config-time overrides for cohere2_moe name both "Cohere2MoeForCausalLM,
  // Cohere2VisionForConditionalGeneration", and a training port builds its cohere2_vision test model as
  // Cohere2VisionConfig around a text config of model_type "cohere2_moe": the text model is found by its
  // model_type (no architectures inside), the tied table from the wrapper, the tower estimated and left out.
  nlohmann::json text = command_a_plus_text();
  text.erase("architectures");
  text.erase("tie_word_embeddings");
  const nlohmann::json j = {{"architectures", {"Cohere2VisionForConditionalGeneration"}},
                            {"model_type", "cohere2_vision"},
                            {"tie_word_embeddings", true},
                            {"text_config", text},
                            {"vision_config",
                             {{"model_type", "siglip_vision_model"},
                              {"hidden_size", 1152},
                              {"num_hidden_layers", 27},
                              {"intermediate_size", 4304},
                              {"patch_size", 14}}}};
  const ModelSpec wrapped = load_edited(j, "cohere2-vision-moe");
  const ModelSpec plain = load_edited(command_a_plus_text(), "command-a-plus-plain");
  CHECK(wrapped.total_params() == plain.total_params());
  CHECK(wrapped.active_params() == plain.active_params());
  CHECK(wrapped.vision_params_estimate > 0);
}
