// Late-2026 architectures that are known decoders under a new name, or a known one plus a part
// servesim has (hf_late_2026_families.cpp, hf_families.cpp's tables): each loads with the counts
// of the decoder it is, worked out by hand where the part is new (granite-swash's sinks), and
// JetBrains' Mellum 2 against its published figures.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "hf_fixtures.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::error_of;
using servesim::testing::hf::within;
namespace hf = servesim::testing::hf;
using Catch::Contains;

namespace {

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return hf::load_edited(j, "servesim-late2026-", tag);
}

// A small Granite: hidden 64, 2 layers of 4 heads of 16 (2 KV heads), MLP 128, table 100 untied,
// every other layer sliding (window 32).
nlohmann::json small_granite_swa() {
  return {{"architectures", {"GraniteSWAForCausalLM"}},
          {"model_type", "granite_swa"},
          {"hidden_size", 64},
          {"intermediate_size", 128},
          {"num_hidden_layers", 2},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"vocab_size", 100},
          {"max_position_embeddings", 4096},
          {"sliding_window", 32},
          {"layer_types", {"full_attention", "sliding_attention"}},
          {"tie_word_embeddings", false},
          {"attention_multiplier", 0.0625},
          {"residual_multiplier", 0.22}};
}

}  // namespace

TEST_CASE("late 2026: granite-swash, dense and MoE, with a sink per head", "[hf][late2026]") {
  const ModelSpec m = load_edited(small_granite_swa(), "dense");
  CHECK(m.attention_sinks);
  CHECK(m.local.layers == 1);
  CHECK(m.local.span == 32);
  // attention: q 64 x 64 + k, v 64 x 32 each + o 64 x 64 = 12,288, + 4 sinks = 12,292; x 2 = 24,584
  // MLP 3 x 64 x 128 = 24,576; x 2 = 49,152; norms (2 x 2 + 1) x 64 = 320; tables 2 x 100 x 64 = 12,800
  // total 24,584 + 49,152 + 320 + 12,800 = 86,856
  CHECK(m.total_params() == 86856);

  nlohmann::json j = small_granite_swa();
  j["architectures"] = {"GraniteMoeSWAForCausalLM"};
  j["model_type"] = "granitemoe_swa";
  j["intermediate_size"] = 32;  // per expert (GraniteMoe's field)
  j["num_local_experts"] = 4;
  j["num_experts_per_tok"] = 2;
  j["shared_intermediate_size"] = 64;
  const ModelSpec moe = load_edited(j, "moe");
  CHECK(moe.attention_sinks);
  CHECK(moe.moe.shared_experts == 1);
  // per layer: router 64 x 4 = 256, 4 experts of 3 x 64 x 32 = 6,144 (24,576), the shared MLP 3 x
  // 64 x 64 = 12,288: 37,120; x 2 = 74,240. total 24,584 + 74,240 + 320 + 12,800 = 111,944
  CHECK(moe.total_params() == 111944);
}

TEST_CASE("late 2026: Mellum 2 reads as Qwen3-MoE with its listed layers and windows", "[hf][late2026]") {
  // JetBrains Mellum2-12B-A2.5B (tests/fixtures/hf_configs_from_fields/mellum2-12b-a2.5b):
  // attention 2304 x 4096 + 2 x 2304 x 512 + 4096 x 2304 = 21,233,664 a layer; 64 experts of 3 x
  // 2304 x 896 = 6,193,152 (396,361,728) and the router 2304 x 64 = 147,456 a layer; norms 57 x
  // 2304 = 131,328; untied tables 2 x 98,304 x 2304 = 452,984,832.
  // total 28 x (21,233,664 + 396,361,728 + 147,456) + 131,328 + 452,984,832 = 12,149,915,904
  //   (JetBrains: 12.15B, -0.0007%)
  // active: 28 x (21,233,664 + 8 x 6,193,152 + 147,456) + 131,328 + 452,984,832 = 2,439,053,568
  //   (JetBrains: 2.5B, -2.4%: a rounded figure)
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/mellum2-12b-a2.5b");
  CHECK(m.moe_layers() == 28);
  CHECK(m.local.layers == 21);  // layer_types: full on every fourth layer
  CHECK(m.local.span == 1024);
  CHECK(m.total_params() == 12149915904LL);
  CHECK(m.active_params() == 2439053568LL);
  CHECK(within(static_cast<double>(m.total_params()), 12.15e9, 0.02));

  SECTION("a dense layer listed in mlp_layer_types takes intermediate_size") {
    nlohmann::json j = hf::read_fixture("../hf_configs_from_fields/mellum2-12b-a2.5b");
    j["mlp_layer_types"][0] = "dense";
    const ModelSpec d = load_edited(j, "mellum-dense");
    CHECK(d.moe_layers() == 27);
    // one MoE layer (396,361,728 + 147,456) replaced by 3 x 2304 x 7168 = 49,545,216
    CHECK(d.total_params() == 12149915904LL - 396361728 - 147456 + 49545216);
  }
}

TEST_CASE("late 2026: renamed checkpoints of known decoders count as those decoders", "[hf][late2026]") {
  auto renamed = [](const std::string& fixture, const std::string& arch, const std::string& tag) {
    nlohmann::json j = hf::read_fixture(fixture);
    j["architectures"] = {arch};
    return load_edited(j, tag);
  };
  // MiMo-V2.5's omni checkpoint (MiMo-V2's fields at the top level, towers beside them).
  nlohmann::json omni = hf::read_fixture("mimo-v2-flash");
  omni["architectures"] = {"MiMoV2OmniForCausalLM"};
  omni["vision_config"] = {{"depth", 28}, {"hidden_size", 1280}};
  omni["audio_config"] = {{"num_hidden_layers", 24}};
  const ModelSpec mimo = load_edited(omni, "mimo-omni");
  const ModelSpec flash = hf::load("mimo-v2-flash");
  CHECK(mimo.total_params() == flash.total_params());
  CHECK(mimo.active_params() == flash.active_params());
  CHECK(mimo.vision_params_estimate > 0);  // the tower said, not counted
  // DeepSeek-V4-Flash-Vision-Exp: DeepSeek-V4's config under the wrapper's name.
  const ModelSpec v4 = renamed("deepseek-v4-flash", "DeepseekV4ForConditionalGeneration", "v4-vision");
  CHECK(v4.total_params() == hf::load("deepseek-v4-flash").total_params());
  // Gemma 4 Unified: a Gemma 4 text_config (model_type gemma4_text) under a new wrapper.
  const ModelSpec unified = renamed("gemma-4-26b-a4b", "Gemma4UnifiedForConditionalGeneration", "gemma4-unified");
  CHECK(unified.total_params() == hf::load("gemma-4-26b-a4b").total_params());
  // EXAONE 4.5: an Exaone4 text_config with no architecture of its own, found by the wrapper's.
  nlohmann::json exaone = {{"architectures", {"Exaone4_5_ForConditionalGeneration"}},
                           {"model_type", "exaone4_5"},
                           {"text_config",
                            {{"hidden_size", 64},
                             {"intermediate_size", 128},
                             {"num_hidden_layers", 4},
                             {"num_attention_heads", 4},
                             {"num_key_value_heads", 2},
                             {"head_dim", 16},
                             {"vocab_size", 100},
                             {"max_position_embeddings", 4096}}}};
  nlohmann::json plain = exaone["text_config"];
  plain["architectures"] = {"Exaone4ForCausalLM"};
  plain["model_type"] = "exaone4";
  CHECK(load_edited(exaone, "exaone45").total_params() == load_edited(plain, "exaone4").total_params());
  // Ovis2.6 (vLLM maps Ovis2_6_MoeForCausalLM to its Ovis2_5 class): a Qwen3-MoE llm_config beside
  // a vit_config, whose tower is said (not counted), as a vision_config's is.
  nlohmann::json ovis = {{"architectures", {"Ovis2_6_MoeForCausalLM"}},
                         {"model_type", "ovis2_6"},
                         {"llm_config", hf::read_fixture("qwen3-30b-a3b")},
                         {"vit_config", {{"hidden_size", 1152}, {"num_hidden_layers", 27}}}};
  const ModelSpec o = load_edited(ovis, "ovis26");
  CHECK(o.total_params() == hf::load("qwen3-30b-a3b").total_params());
  CHECK(o.vision_params_estimate > 0);
}

namespace {

// A small Hy4: hidden 64, 5 layers of MLA (4 heads, q_lora 32, kv_lora 16, nope 8, rope 8, v 16)
// with a DSA indexer of 2 heads x 16 (top 4) on layers 0 and 2 only, a dense MLP of 128 on layer
// 0, then 4 experts of 32 (top 2) and a shared one, 2 independent hyper-connection streams.
nlohmann::json small_hy4() {
  return {{"architectures", {"HYV4ForCausalLM"}},
          {"model_type", "hy_v4"},
          {"vocab_size", 100},
          {"hidden_size", 64},
          {"intermediate_size", 128},
          {"moe_intermediate_size", 32},
          {"num_hidden_layers", 5},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 4},
          {"q_lora_rank", 32},
          {"kv_lora_rank", 16},
          {"qk_nope_head_dim", 8},
          {"qk_rope_head_dim", 8},
          {"v_head_dim", 16},
          {"n_routed_experts", 4},
          {"n_shared_experts", 1},
          {"num_experts_per_tok", 2},
          {"first_k_dense_replace", 1},
          {"index_topk", 4},
          {"index_head_dim", 16},
          {"index_n_heads", 2},
          {"indexer_types", {"full", "shared", "full", "shared", "shared"}},
          {"hc_mult", 2},
          {"max_position_embeddings", 4096},
          {"tie_word_embeddings", false}};
}

}  // namespace

TEST_CASE("late 2026: Hy4's gated MLA with sinks, shared indexers and independent streams, by hand", "[hf][late2026]") {
  const ModelSpec m = load_edited(small_hy4(), "hy4");
  CHECK(m.indexer_layers() == 2);       // "full" layers only
  CHECK(m.local.layers == 5);           // every layer reads the top-k selection
  CHECK(m.hc_mix_rows() == 4);          // 2 x hc_mult
  // MLA: q_a 64 x 32 + 32 (norm) + q_b 32 x 4 x 16 + kv_a 64 x 24 + 16 (norm) + kv_b 16 x 4 x 24
  //   + o 4 x 16 x 64 + gate 64 x 4 x 16 + 4 sinks = 15,412; x 5                 =  77,060
  // indexer (2 full layers): wq_b 32 x 32 + wk 64 x 16 + k_norm 2 x 16 + weights 64 x 2
  //   = 2,208; x 2                                                              =   4,416
  // layer 0's MLP 3 x 64 x 128                                                  =  24,576
  // MoE (4 layers): router 256 + 4 experts of 6,144 + the shared one = 30,976    = 123,904
  // hyper-connections: 2 sublayers x (4 rows x 2 x 64 + 4 bases + 2 scales) = 1,036 a layer
  //   (x 5 = 5,180) and the head 2 x 128 + 2 + 1 = 259                         =   5,439
  // norms (2 x 5 + 1) x 64 = 704; tables 2 x 100 x 64 = 12,800
  // total                                                                          248,899
  CHECK(m.hc_params() == 5439);
  CHECK(m.total_params() == 248899);
  // Active (both tables, as Tencent counts): less 2 skipped experts in each of 4 MoE layers,
  // 248,899 - 4 x 2 x 6,144 = 199,747.
  CHECK(m.active_params() == 199747);
  // KV a token: 5 MLA layers x (16 + 8) x 2 B, plus the indexer's fp8 key (16 + a 4-byte scale)
  // on the 2 full layers: 240 + 40 = 280 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 280.0);

  SECTION("indexer_types default: layer 0 and every fourth from 1") {
    nlohmann::json j = small_hy4();
    j.erase("indexer_types");
    CHECK(load_edited(j, "hy4-default").indexer_layers() == 2);  // layers 0 and 1
  }
  SECTION("refusals") {
    nlohmann::json j = small_hy4();
    j["indexer_types"] = {"shared", "full", "full", "shared", "shared"};
    CHECK_THAT(error_of([&] { load_edited(j, "hy4-first"); }), Contains("indexer_types[0] is \"shared\""));
    j["indexer_types"] = {"full", "full"};
    CHECK_THAT(error_of([&] { load_edited(j, "hy4-len"); }), Contains("for each of the 5 layers, got 2"));
  }
}

TEST_CASE("late 2026: Hy4-preview against Tencent's figures", "[hf][late2026]") {
  // tests/fixtures/hf_configs_from_fields/hy4-preview (reconstructed; PROVENANCE.md there): per
  // layer MLA 265,685,568 (with the gate 100,663,296 and 64 sinks); 21 "full" layers' indexers of
  // 9,371,904; layer 0's MLP 339,738,624; 77 MoE layers of 256 experts of 37,748,736, the shared
  // one and a router of 1,572,864; iHC 393,236 a layer and a 98,309 head; 157 norms of 6144;
  // untied tables 2 x 120,832 x 6144. Total 769,907,389,085 (Tencent: 770B, -0.01%); active
  // (both tables) 49,057,526,429 (49B, +0.12%).
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/hy4-preview");
  CHECK(m.indexer_layers() == 21);
  CHECK(m.total_params() == 769907389085LL);
  CHECK(m.active_params() == 49057526429LL);
  CHECK(within(static_cast<double>(m.total_params()), 770e9, 0.02));
  CHECK(within(static_cast<double>(m.active_params()), 49e9, 0.02));
}

namespace {

// A small GLM-5.3: hidden 64, layers 0-2 KDA (2 heads x 16, kernel 4) and layer 3 NoPE MLA (4
// heads, q_lora 32, kv_lora 16, nope 16, v 16) with DSA (2 index heads x 16, top 8, pools of 4);
// layer 0 dense (128), then 4 experts of 32 (top 2) and a shared one; 2 Sinkhorn streams.
nlohmann::json small_glm53() {
  return {{"architectures", {"Glm5NextForCausalLM"}},
          {"model_type", "glm5_next_text"},
          {"vocab_size", 100},
          {"hidden_size", 64},
          {"intermediate_size", 128},
          {"moe_intermediate_size", 32},
          {"num_hidden_layers", 4},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 4},
          {"n_shared_experts", 1},
          {"n_routed_experts", 4},
          {"num_experts_per_tok", 2},
          {"kv_lora_rank", 16},
          {"q_lora_rank", 32},
          {"qk_rope_head_dim", 0},
          {"qk_nope_head_dim", 16},
          {"v_head_dim", 16},
          {"hidden_act", "silu"},
          {"max_position_embeddings", 4096},
          {"tie_word_embeddings", false},
          {"mlp_layer_types", {"dense", "sparse", "sparse", "sparse"}},
          {"layer_types", {"linear_attention", "linear_attention", "linear_attention", "deepseek_sparse_attention"}},
          {"index_topk", 8},
          {"index_head_dim", 16},
          {"index_n_heads", 2},
          {"index_kpool", 4},
          {"linear_num_heads", 2},
          {"linear_head_dim", 16},
          {"linear_conv_kernel_dim", 4},
          {"hc_mult", 2}};
}

}  // namespace

TEST_CASE("late 2026: GLM-5.3's KDA, NoPE MLA with pooled DSA keys and mHC, by hand", "[hf][late2026]") {
  const ModelSpec m = load_edited(small_glm53(), "glm53");
  CHECK(m.state.layers == 3);
  CHECK(m.attention_layers() == 1);
  CHECK(m.indexer_layers() == 1);
  CHECK(m.indexer.key_pool == 4);
  // KDA (3 layers): hidden x (3 x 32 + 2 + 2 x 16) = 8,320, f_b and g_b 2 x 16 x 32 = 1,024, convs
  //   3 x 32 x 4 = 384, dt_bias 32 + A_log 2 + o_norm 16 = 50, o_proj 32 x 64 = 2,048: 11,826; x 3 = 35,478
  // MLA (NoPE): q_a 64 x 32 + 32, q_b 32 x 4 x 16, kv_a 64 x 16 + 16, kv_b 16 x 4 x 32, o 4 x 16 x 64  = 11,312
  // indexer: wq_b 32 x 32 + wk 64 x 16 + k_norm 32 + weights 64 x 2 + the pool's ape 4 x 16 and gate
  //   16 x 64                                                                               =  3,296
  // layer 0's MLP 3 x 64 x 128 = 24,576; 3 MoE layers of 256 + 5 x 6,144 = 30,976      = 117,504
  // mHC: 2 sublayers x ((2 + 2) x 2 rows x 128 + 8 + 3) a layer (x 4 = 8,280) + head 259 =   8,539
  // norms (8 sublayers + 1) x 64 = 576; tables 2 x 100 x 64 = 12,800
  // total                                                                                189,505
  CHECK(m.state.params_per_layer(m.hidden) == 11826);
  CHECK(m.total_params() == 189505);
  // Active, neither table (GLM's figures): less 3 x 2 skipped experts and the 12,800 of tables.
  CHECK(m.active_params() == 189505 - 3 * 2 * 6144 - 12800);
  // KV a token: the MLA layer's latent 16 x 2 B, and a fp8 index key with its scale (16 + 4 B)
  // per pool of 4 tokens: 32 + 5 = 37 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 37.0);

  SECTION("the linear_attn_config dict is read over the flat fields, as transformers' class does") {
    nlohmann::json j = small_glm53();
    j["linear_num_heads"] = 99;
    j["linear_attn_config"] = {{"num_heads", 2}, {"head_dim", 16}, {"short_conv_kernel_size", 4}};
    CHECK(load_edited(j, "glm53-dict").total_params() == 189505);
  }
  SECTION("refusals") {
    nlohmann::json j = small_glm53();
    j["qk_rope_head_dim"] = 64;
    CHECK_THAT(error_of([&] { load_edited(j, "glm53-rope"); }), Contains("NoPE"));
    j = small_glm53();
    j["layer_types"][1] = "mamba";
    CHECK_THAT(error_of([&] { load_edited(j, "glm53-type"); }), Contains("layer_types[1] is \"mamba\""));
    j = small_glm53();
    j["index_kpool"] = 3;
    CHECK_THAT(error_of([&] { load_edited(j, "glm53-pool"); }), Contains("multiple of index_kpool 3"));
  }
}

TEST_CASE("late 2026: GLM-5.3-Flash against Zhipu's figures", "[hf][late2026]") {
  // tests/fixtures/hf_configs_from_fields/glm-5.3-flash (transformers' Glm5NextTextConfig defaults,
  // index_kpool 4): 34 KDA layers of 137,732,288; 11 MLA layers of 117,442,560 with indexers of
  // 7,471,872; 3 dense MLPs of 150,994,944; 42 MoE layers of 288 + 1 experts of 25,165,824 and a
  // router of 1,179,648; mHC 35,457,411; 91 norms of 4096; untied tables 2 x 154,880 x 4096.
  // Total 313,326,865,411 (Zhipu: 320B, -2.1%; the checkpoint's MTP layer, not counted, makes up
  // most of the gap). Active, neither table: 16,107,998,211 (18B: -10.5%; 17.37B with both tables).
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/glm-5.3-flash");
  CHECK(m.state.layers == 34);
  CHECK(m.attention_layers() == 11);
  CHECK(m.total_params() == 313326865411LL);
  CHECK(m.active_params() == 16107998211LL);
  CHECK(m.vision_params_estimate > 0);
}

namespace {

// A small Muse Glimmer text model: hidden 64, 4 layers of 4 heads of 16 (1 KV head), MLP 128,
// table 100 untied, three RoPE sliding layers (window 32) then a NoPE full one.
nlohmann::json small_muse_glimmer() {
  return {{"architectures", {"MuseGlimmerForCausalLM"}},
          {"model_type", "muse_glimmer_text"},
          {"hidden_size", 64},
          {"intermediate_size", 128},
          {"num_hidden_layers", 4},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 1},
          {"head_dim", 16},
          {"vocab_size", 100},
          {"max_position_embeddings", 4096},
          {"sliding_window", 32},
          {"hidden_activation", "silu"},
          {"tie_word_embeddings", false},
          {"layer_types", {"sliding_attention", "sliding_attention", "sliding_attention", "full_attention"}},
          {"layer_rope_theta", {500000.0, 500000.0, 500000.0, 0.0}}};
}

}  // namespace

TEST_CASE("late 2026: Muse Glimmer is Gemma 2's decoder with an output gate, by hand", "[hf][late2026]") {
  const ModelSpec m = load_edited(small_muse_glimmer(), "muse");
  CHECK(m.attention_output_gate);
  CHECK_FALSE(m.tied_embeddings);
  CHECK(m.gated_mlp);
  CHECK(m.local.kind == LocalAttention::Kind::sliding);
  CHECK(m.local.layers == 3);
  CHECK(m.local.span == 32);
  // attention: q 64 x 64 = 4,096 + k, v 64 x 16 each = 2,048 + o 4,096 = 10,240, + output_gate_proj
  // 64 x (4 x 16) = 4,096: 14,336; MLP 3 x 64 x 128 = 24,576; a layer 38,912, x 4 = 155,648;
  // norms (2 x 4 + 1) x 64 = 576; untied tables 2 x 100 x 64 = 12,800. Total 169,024.
  CHECK(m.total_params() == 169024);
  CHECK(m.active_params() == 169024);

  SECTION("use_attn_output_gate false drops the gates: 169,024 - 4 x 4,096 = 152,640") {
    nlohmann::json j = small_muse_glimmer();
    j["use_attn_output_gate"] = false;
    CHECK(load_edited(j, "muse-nogate").total_params() == 152640);
  }
  SECTION("without layer_types the RoPE layers are the sliding ones") {
    nlohmann::json j = small_muse_glimmer();
    j.erase("layer_types");
    CHECK(load_edited(j, "muse-theta").local.layers == 3);
    j.erase("layer_rope_theta");
    j["no_rope_layers"] = {1, 0, 1, 0};
    CHECK(load_edited(j, "muse-norope").local.layers == 2);
    j.erase("no_rope_layers");
    CHECK_THAT(error_of([&] { load_edited(j, "muse-none"); }), Contains("layer_types"));
    j["layer_rope_theta"] = {1.0, 0.0};
    CHECK_THAT(error_of([&] { load_edited(j, "muse-short"); }), Contains("each of the 4 layers"));
  }
  SECTION("a wrapper's text_config, as the checkpoint ships it") {
    nlohmann::json text = small_muse_glimmer();
    text.erase("architectures");
    const nlohmann::json j = {{"architectures", {"MuseGlimmerForConditionalGeneration"}},
                              {"model_type", "muse_glimmer"},
                              {"text_config", text},
                              {"vision_config", {{"hidden_size", 32}, {"num_hidden_layers", 2}}}};
    const ModelSpec w = load_edited(j, "muse-wrapped");
    CHECK(w.total_params() == 169024);
    // vision estimate: 2 blocks x (4 x 32^2 + 2 x 32 x (4 x 32)) = 2 x 12,288 = 24,576
    CHECK(w.vision_params_estimate == 24576);
  }
  SECTION("refusals") {
    nlohmann::json j = small_muse_glimmer();
    j["hidden_activation"] = "gelu_pytorch_tanh";
    CHECK_THAT(error_of([&] { load_edited(j, "muse-gelu"); }), Contains("SiLU-gated"));
    j = small_muse_glimmer();
    j["attention_bias"] = true;
    CHECK_THAT(error_of([&] { load_edited(j, "muse-bias"); }), Contains("no biases"));
  }
}

TEST_CASE("late 2026: Muse Glimmer 30B against Meta's figure", "[hf][late2026]") {
  // tests/fixtures/hf_configs_from_fields/muse-glimmer-30b: a layer has q 6,656 x 4,096 =
  // 27,262,976, k and v 6,656 x 256 = 1,703,936 each, o 27,262,976, output_gate_proj 27,262,976
  // and an MLP of 3 x 6,656 x 19,968 = 398,721,024: 483,917,824, x 52 = 25,163,726,848; norms
  // (2 x 52 + 1) x 6,656 = 698,880; untied tables 2 x 202,048 x 6,656 = 2,689,662,976.
  // Total 27,854,088,704. Meta calls it 30B; Tenstorrent counts "about 29.6B parameters including
  // its vision encoder", whose 50 blocks of 1,536 servesim estimates at 1.42B (29.27B in all, -1.1%).
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/muse-glimmer-30b");
  CHECK(m.total_params() == 27854088704LL);
  CHECK(m.local.layers == 39);
  // KV per token: 52 layers x 2 (k, v) x 2 heads x 128 x 2 bytes = 53,248 B (the window frees blocks, not bytes a token)
  CHECK(m.kv_bytes_per_token(DType::bf16) == 53248.0);
  // 50 x (4 x 1,536^2 + 2 x 1,536 x 6,144) = 50 x 28,311,552 = 1,415,577,600
  CHECK(m.vision_params_estimate == 1415577600LL);
}

namespace {

// A small Ling 3.0: hidden 32, 4 layers in groups of 2 (KDA on layers 0 and 2, MLA on 1 and 3),
// 2 heads of 8, MLA without q_lora (kv_lora 16, nope 8, rope 4, v 8), the first layer dense
// (MLP 64), then 4 experts of 16, top 2, one shared of 16; table 100 untied.
nlohmann::json small_ling3() {
  return {{"architectures", {"BailingMoeV3ForCausalLM"}},
          {"model_type", "bailing_hybrid"},
          {"hidden_size", 32},
          {"num_hidden_layers", 4},
          {"num_attention_heads", 2},
          {"num_key_value_heads", 2},
          {"head_dim", 8},
          {"layer_group_size", 2},
          {"first_k_dense_replace", 1},
          {"intermediate_size", 64},
          {"vocab_size", 100},
          {"tie_word_embeddings", false},
          {"max_position_embeddings", 4096},
          {"q_lora_rank", nullptr},
          {"kv_lora_rank", 16},
          {"qk_nope_head_dim", 8},
          {"qk_rope_head_dim", 4},
          {"v_head_dim", 8},
          {"gated_attention_proj_granularity_type", "head_wise"},
          {"short_conv_kernel_size", 4},
          {"no_kda_lora", true},
          {"num_experts", 4},
          {"num_experts_per_tok", 2},
          {"num_shared_experts", 1},
          {"moe_intermediate_size", 16},
          {"moe_shared_expert_intermediate_size", 16}};
}

}  // namespace

TEST_CASE("late 2026: Ling 3.0's KDA with full-rank gates beside MLA, by hand", "[hf][late2026]") {
  const ModelSpec m = load_edited(small_ling3(), "ling3");
  REQUIRE(m.state.kind == StateLayers::Kind::kda);
  CHECK(m.state.layers == 2);
  CHECK(m.attention_layers() == 2);
  CHECK(m.state.full_rank_gate);
  CHECK(m.state.full_rank_forget);
  CHECK(m.moe.dense_layers == 1);
  CHECK_FALSE(m.attention_output_gate);  // head-wise: not counted
  // A KDA layer over P = 2 x 8 = 16: q, k, v, f and g hidden -> 16 each and b hidden -> 2, 32 x 82
  // = 2,624; three convolutions 3 x 16 x 4 = 192; dt_bias 16, A_log 2, o_norm 8: 26; o_proj 16 x
  // 32 = 512. 3,354 (the low-rank form would add f_b and g_b, 8 x 16 each, and take f and g as
  // 8 wide).
  CHECK(m.state.params_per_layer(m.hidden) == 3354);
  // Layer kinds: (i + 1) % 2 == 0 is MLA; 4 layers divide into whole groups, so no tail.
  nlohmann::json j = small_ling3();
  j["num_hidden_layers"] = 5;  // layer 4 is past the last whole group: MLA
  const ModelSpec tail = load_edited(j, "ling3-tail");
  CHECK(tail.state.layers == 2);
  CHECK(tail.attention_layers() == 3);

  SECTION("an element-wise gate is counted: hidden x heads x v_head_dim = 32 x 16 = 512 a MLA layer") {
    nlohmann::json e = small_ling3();
    e["gated_attention_proj_granularity_type"] = "element_wise";
    const ModelSpec g = load_edited(e, "ling3-elem");
    CHECK(g.attention_output_gate);
    CHECK(g.total_params() - m.total_params() == 2 * 512);
  }
  SECTION("refusals") {
    nlohmann::json r = small_ling3();
    r["no_kda_lora"] = false;
    CHECK_THAT(error_of([&] { load_edited(r, "ling3-lora"); }), Contains("no_kda_lora"));
    r = small_ling3();
    r["gated_attention_proj_granularity_type"] = "channel";
    CHECK_THAT(error_of([&] { load_edited(r, "ling3-gate"); }), Contains("head_wise, element_wise or none"));
  }
}

TEST_CASE("late 2026: Ling-3.0-flash against inclusionAI's figures", "[hf][late2026]") {
  // tests/fixtures/hf_configs_from_fields/ling-3.0-flash, hidden 2560: 35 KDA layers of
  // 2560 x (5 x 4,096 + 32) + 3 x 4,096 x 4 + 4,096 + 32 + 128 + 4,096 x 2560 = 63,049,888;
  // 7 MLA layers of 2560 x 6,144 + 2560 x 576 + 512 + 512 x 8,192 + 4,096 x 2560 = 31,883,776
  // (the head-wise gate's 2560 x 32 left out); 2 dense MLPs of 3 x 2560 x 6,144 = 47,185,920;
  // 40 MoE layers of 512 + 1 experts of 3 x 2560 x 768 = 5,898,240 and a router of 512 x 2560:
  // 3,027,107,840; untied tables 2 x 157,184 x 2560; norms 85 x 2560. Total 124,413,617,632
  // against "a 124B-parameter Mixture-of-Experts model" (+0.33%). Active, the head counted and the
  // input table not: 5,102,708,192 against "approximately 5.1B parameters activated" (+0.05%).
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/ling-3.0-flash");
  CHECK(m.state.params_per_layer(m.hidden) == 63049888);
  CHECK(m.state.layers == 35);
  CHECK(m.attention_layers() == 7);
  CHECK(m.total_params() == 124413617632LL);
  CHECK(m.active_params() == 5102708192LL);
  // KV a token: 7 MLA layers x (512 + 64) x 2 bytes = 8,064 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 8064.0);
}

namespace {

// A small Inkling text model: hidden 32, 6 layers of which 0-4 local (window 16, 2 KV heads) and
// 5 global (1 KV head), 2 query heads of 8, relative logits d_rel 4 (rel_extent 32), convolutions
// of 4 taps; the first layer dense (64), then 4 experts of 16, top 2, 2 shared of 16; table 100.
nlohmann::json small_inkling() {
  return {{"architectures", {"InklingForCausalLM"}},
          {"model_type", "inkling_text"},
          {"hidden_size", 32},
          {"num_hidden_layers", 6},
          {"vocab_size", 100},
          {"num_attention_heads", 2},
          {"num_key_value_heads", 1},
          {"head_dim", 8},
          {"swa_num_attention_heads", 2},
          {"swa_num_key_value_heads", 2},
          {"swa_head_dim", 8},
          {"sliding_window_size", 16},
          {"d_rel", 4},
          {"rel_extent", 32},
          {"local_layer_ids", {0, 1, 2, 3, 4}},
          {"dense_mlp_idx", 1},
          {"dense_intermediate_size", 64},
          {"intermediate_size", 16},
          {"n_routed_experts", 4},
          {"num_experts_per_tok", 2},
          {"n_shared_experts", 2},
          {"use_sconv", true},
          {"sconv_kernel_size", 4},
          {"use_embed_norm", true},
          {"model_max_length", 4096}};
}

}  // namespace

TEST_CASE("late 2026: Inkling's relative logits, short convolutions and two KV-head counts, by hand",
          "[hf][late2026]") {
  const ModelSpec m = load_edited(small_inkling(), "inkling");
  CHECK(m.kv_heads_of(false) == 2);
  CHECK(m.kv_heads_of(true) == 1);
  CHECK(m.local.layers == 5);
  CHECK(m.local.span == 16);
  CHECK(m.max_context == 4096);  // model_max_length
  CHECK_FALSE(m.tied_embeddings);
  // Global layer: q 32 x 16 = 512, k and v 32 x 8 each = 512, o 512, r_proj 32 x 2 x 4 = 256, the
  // relative table 4 x 32 = 128, q and k norms 2 x 8 = 16, convolutions 4 x (8 + 8 + 32 + 32) =
  // 320: 2,256. Local: k and v 32 x 16 each = 1,024, the table 4 x 16 = 64, convolutions
  // 4 x (16 + 16 + 32 + 32) = 384: 512 + 1,024 + 512 + 256 + 64 + 16 + 384 = 2,768.
  CHECK(m.attention_params_of(true) == 2256);
  CHECK(m.attention_params_of(false) == 2768);
  // Dense layer 3 x 32 x 64 = 6,144; an expert 3 x 32 x 16 = 1,536; a MoE layer (4 + 2) x 1,536 +
  // the router 4 x 32 = 9,344; tables 2 x 100 x 32 = 6,400; norms (2 x 6 + final + embed) x 32 = 448.
  // Total 2,256 + 5 x 2,768 + 6,144 + 5 x 9,344 + 6,400 + 448 = 75,808.
  CHECK(m.total_params() == 75808);
  // Active: a MoE layer runs (2 + 2) x 1,536 + 128 = 6,272: 75,808 - 5 x (9,344 - 6,272) = 60,448.
  CHECK(m.active_params() == 60448);
  // KV a token: 5 local layers x 2 x 2 heads x 8 x 2 B + 1 global x 2 x 1 x 8 x 2 B = 320 + 32 = 352.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 352.0);

  SECTION("use_sconv false drops the convolutions: 75,808 - 320 - 5 x 384 = 73,568") {
    nlohmann::json j = small_inkling();
    j["use_sconv"] = false;
    CHECK(load_edited(j, "inkling-nosconv").total_params() == 73568);
  }
  SECTION("layer_types names the local layers when local_layer_ids is absent") {
    nlohmann::json j = small_inkling();
    j.erase("local_layer_ids");
    j["layer_types"] = {"hybrid_sliding", "hybrid_sliding", "full_attention", "hybrid_sliding", "hybrid_sliding",
                        "full_attention"};
    CHECK(load_edited(j, "inkling-types").local.layers == 4);
    j.erase("layer_types");
    CHECK_THAT(error_of([&] { load_edited(j, "inkling-none"); }), Contains("local_layer_ids"));
  }
  SECTION("refusals") {
    nlohmann::json j = small_inkling();
    j["swa_head_dim"] = 16;
    CHECK_THAT(error_of([&] { load_edited(j, "inkling-hd"); }), Contains("one query-head geometry"));
    j = small_inkling();
    j["local_layer_ids"] = {0, 9};
    CHECK_THAT(error_of([&] { load_edited(j, "inkling-id"); }), Contains("outside 0 .. 5"));
    j = small_inkling();
    j["dense_mlp_idx"] = 6;
    CHECK_THAT(error_of([&] { load_edited(j, "inkling-dense"); }), Contains("dense_mlp_idx 6"));
  }
}

TEST_CASE("late 2026: Inkling against Thinking Machines' figures", "[hf][late2026]") {
  // tests/fixtures/hf_configs_from_fields/inkling, hidden 6144: 11 global attention layers of
  // 119,611,648 (q and o 8,192 x 6,144 each, k and v 1,024 x 6,144 each, r_proj 1,024 x 6,144, the
  // relative table 16 x 1,024, q/k norms 256, convolutions 4 x 14,336) and 55 local ones of
  // 132,194,560 (k and v 2,048 wide, the table 16 x 512, convolutions 4 x 16,384); 2 dense MLPs of
  // 3 x 6,144 x 24,576 = 452,984,832; 64 MoE layers of 258 experts of 3 x 6,144 x 3,072 and a
  // router of 256 x 6,144: 14,610,333,696; untied tables 2 x 201,024 x 6,144; norms 134 x 6,144.
  // Total 947,024,761,344 against the published 975B (-2.9%, unexplained; the hub's 952B counts the
  // 8 MTP depths, 5.26B, and the towers); active, both tables, 41,055,097,344 against 41B (+0.13%).
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/inkling");
  CHECK(m.total_params() == 947024761344LL);
  CHECK(m.active_params() == 41055097344LL);
  CHECK(m.max_context == 1048576);
  // KV a token: 11 x 2 x 8 x 128 x 2 B + 55 x 2 x 16 x 128 x 2 B = 45,056 + 450,560 = 495,616 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 495616.0);
}

TEST_CASE("late 2026: architectures servesim lacks a part for are refused naming it", "[hf][late2026]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"GigaChat35ForCausalLM", "GatedDeltaNet"}};
  for (const auto& [arch, piece] : cases) {
    const nlohmann::json j = {{"architectures", {arch}},
                              {"hidden_size", 64},
                              {"num_hidden_layers", 2},
                              {"num_attention_heads", 4},
                              {"vocab_size", 100}};
    const std::string e = error_of([&] { load_edited(j, "refused-" + arch); });
    CHECK_THAT(e, Contains("architecture '" + arch + "'"));
    CHECK_THAT(e, Contains("is not supported"));
    CHECK_THAT(e, Contains(piece));
  }
}
