// Falcon-H1 read from config.json (sim/model/hf_falcon_h1_family.cpp): a parallel hybrid whose
// every layer runs attention and a Mamba-2 mixer side by side, described as attention on every
// layer and Mamba-2 state layers on every layer. Closed forms of its weights, its KV per token
// (every layer's attention), its state per sequence (every layer's Mamba-2, whatever the
// context) and a decode step's cost (an attention-only model of the same shapes plus the
// Mamba-2 work); malformed configs refused naming the key.
//
// No published Falcon-H1 config.json was found whole in a public repository to vendor under
// tests/fixtures/hf_configs_2026/, so the 0.5B config is written here from the fields
// NVIDIA's Megatron-Bridge quotes from it (FALCON_H1_500M_CONFIG in
// NVIDIA-NeMo/Megatron-Bridge tests/unit_tests/models/falcon_h1/test_falconh1_bridge.py), which
// leaves out mamba_d_ssm: it is 24 Mamba heads x 64 = 1536 (transformers' FalconH1 docs table:
// "H1 0.5B ... Mamba Heads 24, d_head 64 / 64"; FalconH1Config requires mamba_n_heads x
// mamba_d_head == mamba_d_ssm).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/memory_plan.h"
#include "hf_fixtures.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using servesim::testing::decode_step;
using servesim::testing::find_op;
using servesim::testing::error_of;
using Catch::Contains;

namespace {

// Written as <temp>/servesim-falcon-h1-<tag>/config.json; returns the folder.
std::string write_config(const nlohmann::json& j, const std::string& tag) {
  return testing::hf::write_edited(j, "servesim-falcon-h1-", tag);
}
ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) { return load_model(write_config(j, tag)); }

// tiiuae/Falcon-H1-0.5B-Instruct (see the top of this file).
nlohmann::json falcon_h1_0p5b() {
  return {{"architectures", {"FalconH1ForCausalLM"}},
          {"model_type", "falcon_h1"},
          {"attention_bias", false},
          {"attention_in_multiplier", 1.0},
          {"attention_out_multiplier", 0.9375},
          {"attn_layer_indices", nullptr},
          {"embedding_multiplier", 5.656854249492381},
          {"head_dim", 64},
          {"hidden_act", "silu"},
          {"hidden_size", 1024},
          {"intermediate_size", 2048},
          {"key_multiplier", 0.39062499999999994},
          {"lm_head_multiplier", 0.0390625},
          {"mamba_chunk_size", 128},
          {"mamba_conv_bias", true},
          {"mamba_d_conv", 4},
          {"mamba_d_head", 64},
          {"mamba_d_ssm", 1536},
          {"mamba_d_state", 128},
          {"mamba_expand", 2},
          {"mamba_n_groups", 1},
          {"mamba_n_heads", 24},
          {"mamba_norm_before_gate", false},
          {"mamba_proj_bias", false},
          {"mamba_rms_norm", false},
          {"mamba_use_mlp", true},
          {"max_position_embeddings", 16384},
          {"mlp_bias", false},
          {"mlp_multipliers", {0.8838834764831844, 0.5859375}},
          {"num_attention_heads", 8},
          {"num_hidden_layers", 36},
          {"num_key_value_heads", 2},
          {"projectors_bias", false},
          {"rms_norm_eps", 1e-5},
          {"rope_theta", 100000000000.0},
          {"ssm_in_multiplier", 1.25},
          {"ssm_multipliers", {0.3535533905932738, 0.25, 0.3535533905932738, 0.5, 0.3535533905932738}},
          {"ssm_out_multiplier", 0.23570226039551587},
          {"tie_word_embeddings", false},
          {"torch_dtype", "bfloat16"},
          {"vocab_size", 32784}};
}

// A small Falcon-H1 whose weights are counted by hand below.
nlohmann::json tiny_falcon_h1() {
  return {{"architectures", {"FalconH1ForCausalLM"}},
          {"model_type", "falcon_h1"},
          {"hidden_size", 64},
          {"num_hidden_layers", 2},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"head_dim", 16},
          {"intermediate_size", 128},
          {"vocab_size", 100},
          {"tie_word_embeddings", false},
          {"mamba_d_ssm", 64},
          {"mamba_n_heads", 4},
          {"mamba_d_head", 16},
          {"mamba_n_groups", 1},
          {"mamba_d_state", 8},
          {"mamba_d_conv", 4},
          {"mamba_conv_bias", true},
          {"mamba_rms_norm", true},
          {"torch_dtype", "bfloat16"}};
}

Setup setup_of(const std::string& folder, int max_num_seqs) {
  return parse_setup_only(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: " + folder +
                                          "}\nparallelism: {tp: 1}\nengine: {max_num_seqs: " +
                                          std::to_string(max_num_seqs) + ", prefix_caching: false}\n"),
                          "s.yaml");
}

}  // namespace

TEST_CASE("Falcon-H1: weights of a small config counted by hand", "[hf][falcon-h1]") {
  // transformers' modeling_falcon_h1.py, per layer, hidden 64, 2 layers:
  //   attention (LlamaAttention, no bias): q 64 x 4*16 = 4096, k 64 x 2*16 = 2048, v 2048,
  //     o 64 x 64 = 4096                                                        = 12,288
  //   FalconH1Mixer: conv_dim = d_ssm + 2 groups d_state = 64 + 2*1*8 = 80;
  //     in_proj 64 x (64 + 80 + 4) = 64 x 148 = 9472; conv1d 80 x 4 + bias 80 = 400;
  //     dt_bias, A_log, D: 3 x 4 = 12; the gated norm (mamba_rms_norm) 64; out_proj 64 x 64
  //     = 4096                                                                  = 14,044
  //   FalconH1MLP (LlamaMLP): 3 x 64 x 128                                      = 24,576
  //   input_layernorm, pre_ff_layernorm: 2 x 64                                 =    128
  //   a layer: 51,036; two: 102,072; embed_tokens and lm_head 2 x 100 x 64 = 12,800; the
  //   final norm 64: 114,936 weights.
  // servesim counts a norm before each sublayer, 3 per layer where Falcon-H1's two mixers share
  // input_layernorm: 2 layers x 64 more (hf_falcon_h1_family.cpp says so), 115,064.
  const ModelSpec m = load_edited(tiny_falcon_h1(), "tiny");
  const std::int64_t transformers_total = 2 * (12288 + 14044 + 24576 + 128) + 2 * 100 * 64 + 64;
  CHECK(transformers_total == 114936);
  CHECK(m.total_params() == transformers_total + 2 * 64);
  CHECK(m.active_params() == m.total_params());  // dense
  // Both mixers on both layers.
  CHECK(m.attention_layers() == 2);
  CHECK(m.state.layers == 2);
  CHECK(m.state.kind == StateLayers::Kind::mamba2);
  CHECK(m.attention_params() == 2 * 12288);
  CHECK(m.state.params_per_layer(64) == 14044);
  CHECK(m.mlp_layers() == 2);
}

TEST_CASE("Falcon-H1: every layer caches KV and holds a Mamba-2 state", "[hf][falcon-h1]") {
  const std::string folder = write_config(falcon_h1_0p5b(), "0.5b");
  const ModelSpec m = load_model(folder);
  // The Mamba width is mamba_d_ssm (1536), not mamba_expand x hidden_size (2 x 1024 = 2048).
  CHECK(m.state.inner() == 1536);
  // KV per token, bf16: all 36 layers x (K and V) x 2 KV heads x 64 x 2 B = 18,432 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 36.0 * 2 * 2 * 64 * 2);
  // State per sequence, bf16 (no mamba_ssm_cache_dtype: the model's): every layer's
  //   recurrent state 24 heads x 64 x d_state 128 x 2 B = 393,216 B
  //   conv window (d_ssm 1536 + 2 x 128) x (4 - 1) x 2 B =  10,752 B
  // 36 x 403,968 = 14,542,848 B, whatever the context.
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 36.0 * (24.0 * 64 * 128 * 2 + (1536.0 + 2 * 128) * 3 * 2));
  // Weights (transformers' module shapes, per layer): attention 1024 x 512 x 2 + 1024 x 128 x 2
  // = 1,310,720; the mixer in_proj 1024 x (2 x 1536 + 2 x 128 + 24) = 3,432,448, conv
  // 1792 x 4 + 1792 = 8,960, dt_bias/A_log/D 72, out_proj 1,572,864 (5,014,344; no gated norm:
  // mamba_rms_norm false); MLP 3 x 1024 x 2048 = 6,291,456; two norms 2,048: 12,618,568 a
  // layer, x 36 = 454,268,448; tables 2 x 32784 x 1024 = 67,141,632; final norm 1024:
  // 521,411,104. servesim adds per layer a third norm (1024) and the mixer's gated norm
  // (1536), which this checkpoint lacks: 36 x 2560 = 92,160 more (0.018%).
  CHECK(m.total_params() == 521411104 + 36 * (1024 + 1536));
  // The memory plan reserves a state slot of that size per sequence, the same at any context,
  // and sizes the KV blocks by every layer's attention.
  const Setup s = setup_of(folder, 32);
  const CostModel cost = make_cost_model(s);
  const MemoryPlan plan = plan_setup_memory(s, cost);
  REQUIRE(plan.fits);
  CHECK(plan.kv_bytes_per_token == 18432.0);
  CHECK(plan.state_slots == 32);
  CHECK(plan.state_bytes_per_sequence == 14542848.0);
  // A decode step reads and writes each sequence's state once per layer, at 1k or 100k tokens.
  // (The steps are kept: op_named points into them.)
  const StepCost short_step = decode_step(cost, 8, 1000), long_step = decode_step(cost, 8, 100000);
  const OpCost* short_ctx = find_op(short_step, "state_update_decode");
  const OpCost* long_ctx = find_op(long_step, "state_update_decode");
  REQUIRE(short_ctx);
  REQUIRE(long_ctx);
  CHECK(short_ctx->kv_bytes == Approx(2.0 * 8 * 14542848.0).epsilon(1e-12));
  CHECK(long_ctx->kv_bytes == short_ctx->kv_bytes);
}

TEST_CASE("Falcon-H1: a decode step costs the attention-only model's plus the Mamba-2 work", "[hf][falcon-h1]") {
  // The same 0.5B shapes with the Mamba-2 mixers removed (attention and MLP on every layer):
  // every op of that model appears in the hybrid's step with the same FLOPs, but for the
  // norms (one per sublayer: 3 a layer against 2, so 3/2 of the FLOPs), and the hybrid adds
  // the Mamba-2 ops over its 36 layers, for 8 sequences decoding 1 token at context 1000:
  //   state_in_proj   2 x 8 x 1024 x (2 x 1536 + 2 x 128 + 24 = 3352) x 36
  //   state_out_proj  2 x 8 x 1536 x 1024 x 36
  //   state_update_decode  8 x (24 heads x 6 x 64 x 128 + 2 x 4 x 1792 conv) x 36
  //                        (layer_kinds.cpp's Mamba-2 decode update).
  const std::string folder = write_config(falcon_h1_0p5b(), "0.5b-step");
  const Setup hybrid = setup_of(folder, 32);
  Setup attention_only = hybrid;
  attention_only.model.state = StateLayers{};
  attention_only.model.attention_layer_count = -1;  // derived: every layer, with no state layers
  REQUIRE(attention_only.model.attention_layers() == 36);
  const CostModel hc = make_cost_model(hybrid), ac = make_cost_model(attention_only);
  const StepCost h = decode_step(hc, 8, 1000), a = decode_step(ac, 8, 1000);
  for (const OpCost& op : a.ops) {
    INFO(op.name);
    const OpCost* same = find_op(h, op.name);
    REQUIRE(same);
    if (std::string(op.name) == "attn_norm_residual") CHECK(same->flops == Approx(1.5 * op.flops).epsilon(1e-12));
    else CHECK(same->flops == Approx(op.flops).epsilon(1e-12));
  }
  const OpCost* in = find_op(h, "state_in_proj");
  const OpCost* out = find_op(h, "state_out_proj");
  const OpCost* update = find_op(h, "state_update_decode");
  REQUIRE(in);
  REQUIRE(out);
  REQUIRE(update);
  CHECK(in->flops == Approx(2.0 * 8 * 1024 * 3352 * 36).epsilon(1e-12));
  CHECK(out->flops == Approx(2.0 * 8 * 1536 * 1024 * 36).epsilon(1e-12));
  CHECK(update->flops == Approx(8.0 * (24 * 6.0 * 64 * 128 + 2.0 * 4 * 1792) * 36).epsilon(1e-12));
  CHECK(find_op(a, "state_update_decode") == nullptr);
  CHECK(h.time > a.time);
}

TEST_CASE("Falcon-H1: malformed Mamba-2 shapes and uncounted biases are refused naming the key",
          "[hf][falcon-h1][bad-input]") {
  SECTION("mamba_d_ssm not a multiple of mamba_n_heads") {
    nlohmann::json j = falcon_h1_0p5b();
    j["mamba_d_ssm"] = 1000;
    const std::string e = error_of([&] { load_edited(j, "bad-dssm"); });
    CHECK_THAT(e, Contains("config.json"));
    CHECK_THAT(e, Contains("mamba_d_ssm 1000 is not a multiple of mamba_n_heads 24"));
  }
  SECTION("heads x head width not the Mamba width") {
    nlohmann::json j = falcon_h1_0p5b();
    j["mamba_d_head"] = 32;
    CHECK_THAT(error_of([&] { load_edited(j, "bad-dhead"); }),
               Contains("mamba_n_heads 24 x mamba_d_head 32 = 768 is not mamba_d_ssm 1536"));
  }
  SECTION("mamba_d_ssm absent: the class default 1024, which 24 heads of 64 do not tile") {
    nlohmann::json j = falcon_h1_0p5b();
    j.erase("mamba_d_ssm");
    CHECK_THAT(error_of([&] { load_edited(j, "no-dssm"); }), Contains("mamba_d_ssm 1024 is not a multiple"));
  }
  SECTION("mamba_d_ssm null: mamba_expand x hidden_size (2 x 1024 = 2048 = 32 heads x 64)") {
    nlohmann::json j = falcon_h1_0p5b();
    j["mamba_d_ssm"] = nullptr;
    j["mamba_n_heads"] = 32;
    const ModelSpec m = load_edited(j, "null-dssm");
    CHECK(m.state.inner() == 2048);
    CHECK(m.state.heads == 32);
  }
  SECTION("mamba_d_head \"auto\": d_ssm / heads") {
    nlohmann::json j = falcon_h1_0p5b();
    j["mamba_d_head"] = "auto";
    CHECK(load_edited(j, "auto-dhead").state.head_dim == 64);
  }
  SECTION("biases servesim does not count") {
    for (const char* key : {"mlp_bias", "mamba_proj_bias", "projectors_bias"}) {
      INFO(key);
      nlohmann::json j = falcon_h1_0p5b();
      j[key] = true;
      CHECK_THAT(error_of([&] { load_edited(j, std::string("bias-") + key); }), Contains(std::string(key) + " is true"));
    }
  }
}
