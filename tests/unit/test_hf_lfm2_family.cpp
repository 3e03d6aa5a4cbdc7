// Liquid AI's LFM2 family (hf_lfm2_family.cpp) and the gated short-convolution state layer
// (StateLayers::Kind::short_conv, layer_kinds.cpp), in closed form: the parameter counts of small
// in-test configs worked out by hand, the published models' counts against their model cards
// (tests/fixtures/hf_configs_from_fields/, PROVENANCE.md there), the convolution state a
// sequence holds whatever its length, and the KV capacity that buys at a long context.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/kv_size.h"
#include "cost/memory_plan.h"
#include "hf_fixtures.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::find_op;
using servesim::testing::error_of;
using Catch::Contains;

namespace {

std::string from_fields(const std::string& name) {
  return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/" + name;
}

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-lfm2-", tag);
}

// A small LFM2: hidden 256, 4 heads of 64 (2 KV heads), 4 layers of which layer 1 attends and
// 0, 2, 3 are short convolutions of 3 taps, block_ff_dim 768 adjusted to
// 256 x ceil(int(2 x 768 / 3) / 256) = 512, a tied table of 1000.
nlohmann::json small_lfm2() {
  return {{"architectures", {"Lfm2ForCausalLM"}},
          {"model_type", "lfm2"},
          {"hidden_size", 256},
          {"num_hidden_layers", 4},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"layer_types", {"conv", "full_attention", "conv", "conv"}},
          {"conv_L_cache", 3},
          {"conv_bias", false},
          {"block_ff_dim", 768},
          {"block_auto_adjust_ff_dim", true},
          {"block_ffn_dim_multiplier", 1.0},
          {"block_multiple_of", 256},
          {"vocab_size", 1000},
          {"max_position_embeddings", 4096},
          {"tie_embedding", true}};
}

Setup setup_of(const std::string& model, const std::string& gpu, const std::string& engine) {
  return parse_setup_only(parse_yaml_text("hardware: {gpu: " + gpu + "}\nmodel: {name: " + model +
                                          "}\nparallelism: {tp: 1}\nengine: " + engine + "\n"),
                          "s.yaml");
}

}  // namespace

TEST_CASE("LFM2: a small config's parameters counted by hand", "[hf][lfm2]") {
  const ModelSpec m = load_edited(small_lfm2(), "small");
  REQUIRE(m.state.kind == StateLayers::Kind::short_conv);
  CHECK(m.state.layers == 3);
  CHECK(m.attention_layers() == 1);
  CHECK(m.ffn == 512);  // int(2 x 768 / 3) = 512, x 1.0 = 512, already a multiple of 256
  CHECK(m.tied_embeddings);
  // attention (1 layer): q 256x256 + k 256x128 + v 256x128 + out 256x256    =   196,608
  //                      q_layernorm + k_layernorm 2 x 64                  =       128
  // short conv (3 layers): in_proj 256 x 768 + conv 256 x 3 + out_proj 256 x 256
  //                      = 196,608 + 768 + 65,536 = 262,912; x 3          =   788,736
  // MLP (4 layers): w1, w3, w2 3 x 256 x 512 = 393,216; x 4                = 1,572,864
  // RMSNorms: operator_norm and ffn_norm on 4 layers + embedding_norm: 9 x 256 = 2,304
  // embedding (tied): 1000 x 256                                           =   256,000
  // total                                                                    2,816,640
  CHECK(m.state.params_per_layer(m.hidden) == 262912);
  CHECK(m.total_params() == 2816640);
  CHECK(m.active_params() == 2816640);  // dense
  SECTION("conv_bias: in_proj, the conv and out_proj each take a bias") {
    nlohmann::json j = small_lfm2();
    j["conv_bias"] = true;
    // + 768 (in_proj) + 256 (conv) + 256 (out_proj) = 1,280 a layer; x 3 = 3,840
    CHECK(load_edited(j, "bias").total_params() == 2816640 + 3840);
  }
  SECTION("full_attn_idxs says the same as layer_types") {
    nlohmann::json j = small_lfm2();
    j.erase("layer_types");
    j["full_attn_idxs"] = {1};
    CHECK(load_edited(j, "idxs").total_params() == 2816640);
  }
  SECTION("block_ff_dim overrides intermediate_size; no adjustment takes it as written") {
    nlohmann::json j = small_lfm2();
    j["intermediate_size"] = 99999;  // Lfm2Config reads block_ff_dim over intermediate_size
    j["block_auto_adjust_ff_dim"] = false;
    CHECK(load_edited(j, "noadjust").ffn == 768);
    j["block_auto_adjust_ff_dim"] = true;
    j["block_ff_dim"] = 1000;  // int(2000 / 3) = 666, x 1.0 = 666, up to 768
    CHECK(load_edited(j, "round").ffn == 768);
    j.erase("block_ffn_dim_multiplier");  // transformers rounds only with a multiplier: 666
    CHECK(load_edited(j, "nomult").ffn == 666);
  }
}

TEST_CASE("LFM2: the published dense models match their model cards to the weight", "[hf][lfm2]") {
  // LFM2-350M: embedding 65,536 x 1024 = 67,108,864; 6 attention layers of 1024^2 x 2 + 1024 x 512
  // x 2 = 3,145,728 (18,874,368) and their q/k norms 6 x 128 = 768; 10 short convolutions of 1024 x
  // 3072 + 1024 x 3 + 1024^2 = 4,197,376 (41,973,760); 16 MLPs of 3 x 1024 x 4608 (6656 -> 4437
  // -> 4608) = 14,155,776 (226,492,416); 33 norms of 1024 = 33,792. Sum 354,483,968: the model
  // card's "Parameters 354,483,968".
  const ModelSpec small = load_model(from_fields("lfm2-350m"));
  CHECK(small.ffn == 4608);
  CHECK(small.total_params() == 354483968);
  // LFM2-1.2B: 65,536 x 2048 = 134,217,728; 6 x (2 x 2048^2 + 2 x 2048 x 512) = 62,914,560 and
  // 768 of q/k norms; 10 x (2048 x 6144 + 2048 x 3 + 2048^2) = 167,833,600; 16 x 3 x 2048 x 8192
  // (12288 -> 8192) = 805,306,368; 33 x 2048 = 67,584. Sum 1,170,340,608: the model card's.
  const ModelSpec mid = load_model(from_fields("lfm2-1.2b"));
  CHECK(mid.ffn == 8192);
  CHECK(mid.total_params() == 1170340608);
  CHECK(mid.state.describe() == "gated short convolution on 10 layers (2048 channels, 3 taps; state: the last 2 inputs)");
}

TEST_CASE("LFM2-MoE: active against total, by hand and for LFM2-8B-A1B", "[hf][lfm2]") {
  nlohmann::json j = small_lfm2();
  j["architectures"] = {"Lfm2MoeForCausalLM"};
  j["model_type"] = "lfm2_moe";
  for (const char* k : {"block_ff_dim", "block_auto_adjust_ff_dim", "block_ffn_dim_multiplier", "block_multiple_of"})
    j.erase(k);
  j["intermediate_size"] = 512;  // the dense layers' width as written (Lfm2MoeMLP: no adjustment)
  j["num_dense_layers"] = 1;
  j["num_experts"] = 8;
  j["num_experts_per_tok"] = 2;
  j["moe_intermediate_size"] = 128;
  const ModelSpec m = load_edited(j, "moe");
  CHECK(m.moe_layers() == 3);
  // attention 196,608 + 128; short conv 3 x 262,912 = 788,736; layer 0's MLP 3 x 256 x 512 =
  // 393,216; 3 MoE layers of 8 experts x 3 x 256 x 128 (98,304 each: 786,432) + router 256 x 8
  // (2,048) = 788,480 each, 2,365,440; norms 9 x 256 = 2,304; table 256,000.
  // total  = 196,736 + 788,736 + 393,216 + 2,365,440 + 2,304 + 256,000 = 4,002,432
  // active = total - 3 x 6 x 98,304 (the 6 experts of 8 a token skips)  = 2,232,960
  CHECK(m.total_params() == 4002432);
  CHECK(m.active_params() == 2232960);
  // LFM2-8B-A1B (tests/fixtures/hf_configs_from_fields): 22 MoE layers of 32 experts x 3 x 2048 x
  // 1792 (11,010,048 each) = 7,751,073,792 and routers 22 x 2048 x 32 = 1,441,792; 2 dense MLPs
  // of 3 x 2048 x 7168 = 88,080,384; 18 short convolutions of 16,783,360 = 302,100,480; 6
  // attention layers of 10,485,760 + 128 = 62,915,328; 49 norms of 2048 = 100,352; the tied table
  // 134,217,728. Total 8,339,929,856 (Liquid AI: 8.3B). Active: the 4 of 32 experts, 22 x 4 x
  // 11,010,048 = 968,884,224, beside the rest (588,856,064): 1,557,740,288 (Liquid AI: 1.5B; the
  // gap, +3.9%, is not explained by the embedding: 1,423,522,560 without it, -5.1%).
  const ModelSpec a1b = load_model(from_fields("lfm2-8b-a1b"));
  CHECK(a1b.total_params() == 8339929856);
  CHECK(a1b.active_params() == 1557740288);
  CHECK(a1b.state.layers == 18);
  CHECK(a1b.attention_layers() == 6);
}

TEST_CASE("LFM2: the short convolution's state is constant in the context, and priced", "[hf][lfm2][layers]") {
  const ModelSpec m = load_edited(small_lfm2(), "state");
  // vLLM keeps (conv_L_cache - 1) x channels per layer (short_conv_state_shape), no recurrent
  // matrix: 3 layers x 2 x 256 x 2 B (bf16) = 3,072 B a sequence, at any length.
  CHECK(m.state.state_elements() == 0);
  CHECK(m.state.conv_state_elements() == 2 * 256);
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 3072.0);
  CHECK(m.state_bytes_per_sequence(DType::fp32) == 6144.0);
  // Work per token and layer: the gates B x and C y (256 each) and 3 taps of 2 FLOPs on 256
  // channels: 2 x 256 + 2 x 3 x 256 = 2,048, in prefill and decode alike.
  CHECK(m.state.prefill_flops_per_token() == 2048.0);
  CHECK(m.state.decode_flops_per_token() == 2048.0);
  // LFM2-1.2B on one H100: a decode step reads and writes each sequence's state once (2 x 10
  // layers x 2 x 2048 x 2 B = 163,840 B a sequence), at 1k tokens of context as at 100k; its
  // projections and gates are ops of their own.
  const Setup s = setup_of(from_fields("lfm2-1.2b"), "h100-sxm", "{max_num_seqs: 64, prefix_caching: false}");
  const CostModel cost = make_cost_model(s);
  auto decode = [&](std::int64_t context) {
    BatchSummary b = cost.batch();
    for (int i = 0; i < 8; ++i) b.add(SeqWork{1, context, true});
    return cost.breakdown(b);
  };
  const StepCost short_ctx = decode(1000), long_ctx = decode(100000);
  const OpCost* update = find_op(short_ctx, "state_update_decode");
  REQUIRE(update != nullptr);
  CHECK(update->kv_bytes == Approx(8 * 163840.0).epsilon(1e-12));
  CHECK(find_op(long_ctx, "state_update_decode")->kv_bytes == update->kv_bytes);
  CHECK(update->flops == Approx(8 * 10 * (2.0 * 2048 + 2.0 * 3 * 2048)).epsilon(1e-12));
  for (const char* name : {"state_in_proj", "state_conv", "state_gates", "state_out_proj"})
    CHECK(find_op(short_ctx, name) != nullptr);
  CHECK(find_op(short_ctx, "state_gate_norm") == nullptr);  // no norm in the block
}

TEST_CASE("LFM2: more 32k-token sequences fit than with full attention of the same shapes", "[hf][lfm2][capacity]") {
  // LFM2-1.2B on one H100 (bf16, max_num_seqs 64) against the same model with all 16 layers
  // attention. A token's KV: 6 layers x 2 (K, V) x 8 KV heads x 64 x 2 B = 12,288 B, against
  // 16 layers' 32,768 B (2.67x); the hybrid also reserves 64 state slots of 81,920 B (10 layers x
  // 2 x 2048 x 2 B). Sequences that fit = floor(KV bytes / (32,768 tokens x bytes a token)).
  const std::string engine = "{max_num_seqs: 64, prefix_caching: false}";
  const Setup hybrid = setup_of(from_fields("lfm2-1.2b"), "h100-sxm", engine);
  Setup full = hybrid;
  full.model.state = StateLayers{};  // every layer attends
  const CostModel hc = make_cost_model(hybrid), fc = make_cost_model(full);
  const MemoryPlan hp = plan_setup_memory(hybrid, hc), fp = plan_setup_memory(full, fc);
  REQUIRE(hp.fits);
  REQUIRE(fp.fits);
  CHECK(hp.kv_bytes_per_token == 12288.0);
  CHECK(fp.kv_bytes_per_token == 32768.0);
  CHECK(hp.state_bytes_per_sequence == 81920.0);
  CHECK(hp.state_bytes == 64 * 81920.0);
  CHECK(fp.state_bytes == 0.0);
  const std::int64_t hybrid_seqs = static_cast<std::int64_t>(std::floor(hp.kv_bytes / (32768.0 * 12288)));
  const std::int64_t full_seqs = static_cast<std::int64_t>(std::floor(fp.kv_bytes / (32768.0 * 32768)));
  CHECK(full_seqs >= 1);
  // 2.67x less KV a token; the slots (5 MiB) and the convolutions' extra weights (10 x (16.8M -
  // 10.5M) x 2 B = 126 MB) take well under a tenth of that back on an 80 GB GPU.
  CHECK(hybrid_seqs >= 2 * full_seqs);
}

TEST_CASE("LFM2: the short convolution written in a model file is the imported one", "[hf][lfm2][yaml]") {
  // The small config above as a models/*.yaml file: the same weights, state and KV.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "servesim-lfm2-yaml";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "small-lfm2.yaml").string();
  std::ofstream(path) << "schema_version: 1\nname: small-lfm2\nlayers: 4\nhidden_size: 256\n"
                         "attention: {heads: 4, kv_heads: 2, head_dim: 64}\n"
                         "mlp: {intermediate_size: 512, gated: true}\nvocab_size: 1000\n"
                         "tie_word_embeddings: true\nmax_context: 4096\n"
                         "state_layers: {kind: short_conv, layers: 3, heads: 1, head_dim: 256, conv_kernel: 3}\n";
  const ModelSpec y = load_model(path);
  const ModelSpec h = load_edited(small_lfm2(), "yaml");
  CHECK(y.state.kind == StateLayers::Kind::short_conv);
  // The model file has no q/k-norm weights (a few per layer: 128 here), the import counts them.
  CHECK(y.total_params() == h.total_params() - 128);
  CHECK(y.state_bytes_per_sequence(DType::bf16) == h.state_bytes_per_sequence(DType::bf16));
  CHECK(y.kv_bytes_per_token(DType::bf16) == h.kv_bytes_per_token(DType::bf16));
  std::ofstream(path) << "schema_version: 1\nname: small-lfm2\nlayers: 4\nhidden_size: 256\n"
                         "attention: {heads: 4, kv_heads: 2, head_dim: 64}\n"
                         "mlp: {intermediate_size: 512, gated: true}\nvocab_size: 1000\nmax_context: 4096\n"
                         "state_layers: {kind: short_cnov, layers: 3, heads: 1, head_dim: 256}\n";
  CHECK_THAT(error_of([&] { load_model(path); }), Contains("short_conv"));
}

TEST_CASE("LFM2: LFM2-VL's text model is read through its wrapper", "[hf][lfm2]") {
  // Lfm2VlForConditionalGeneration: the language model is text_config (model_type "lfm2"); its
  // vision tower is left out of the counts (as for every wrapper).
  nlohmann::json text = small_lfm2();
  text.erase("architectures");
  const nlohmann::json vl = {{"architectures", {"Lfm2VlForConditionalGeneration"}},
                             {"model_type", "lfm2-vl"},
                             {"text_config", text}};
  const ModelSpec m = load_edited(vl, "vl");
  CHECK(m.state.kind == StateLayers::Kind::short_conv);
  CHECK(m.total_params() == 2816640);
}

TEST_CASE("LFM2: configs that do not say which layers are which are refused", "[hf][lfm2][bad-input]") {
  nlohmann::json j = small_lfm2();
  j["layer_types"] = {"conv", "full_attention", "conv"};  // 3 for 4 layers
  CHECK_THAT(error_of([&] { load_edited(j, "short-list"); }),
             Contains("layer_types lists 3 layers but num_hidden_layers is 4"));
  j["layer_types"] = {"conv", "full_attention", "conv", "sliding_attention"};
  CHECK_THAT(error_of([&] { load_edited(j, "kind"); }), Contains("layer_types[3] is 'sliding_attention'"));
  j.erase("layer_types");
  j["full_attn_idxs"] = {1, 4};
  CHECK_THAT(error_of([&] { load_edited(j, "idx"); }), Contains("full_attn_idxs holds 4"));
  j["full_attn_idxs"] = {1};
  j["conv_dim"] = 512;
  CHECK_THAT(error_of([&] { load_edited(j, "conv-dim"); }), Contains("conv_dim 512 differs from hidden_size 256"));
  nlohmann::json moe = small_lfm2();
  moe["architectures"] = {"Lfm2MoeForCausalLM"};
  moe.erase("layer_types");
  CHECK_THAT(error_of([&] { load_edited(moe, "moe-no-types"); }), Contains("needs layer_types"));
}
