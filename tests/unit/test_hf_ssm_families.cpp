// The state-space families of sim/model/hf_ssm_families.cpp in closed form: pure Mamba-2 and
// Mamba models (no attention, no MLP: every layer a state layer), whose memory plan holds no KV
// cache and bounds the running sequences by the state slots whatever the context; and Bamba, a
// Mamba-2 hybrid with attention on attn_layer_indices. Falcon Mamba 7B is the published
// config.json of tests/fixtures/hf_configs_2026/falcon-mamba-7b (PROVENANCE.md there); the
// Mamba-2 and Bamba configs are small ones written here and counted by hand from transformers'
// modeling_mamba2.py and modeling_bamba.py (no whole published config.json of Mamba-Codestral or
// Bamba-9B was found in a public repository).
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

std::string write_config(const nlohmann::json& j, const std::string& tag) {
  return testing::hf::write_edited(j, "servesim-ssm-", tag);
}
ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) { return load_model(write_config(j, tag)); }

nlohmann::json tiny_mamba2() {
  return {{"architectures", {"Mamba2ForCausalLM"}},
          {"model_type", "mamba2"},
          {"hidden_size", 64},
          {"num_hidden_layers", 2},
          {"num_heads", 8},
          {"head_dim", 16},
          {"expand", 2},
          {"n_groups", 2},
          {"state_size", 8},
          {"conv_kernel", 4},
          {"use_conv_bias", true},
          {"use_bias", false},
          {"chunk_size", 64},
          {"vocab_size", 100},
          {"tie_word_embeddings", false},
          {"torch_dtype", "bfloat16"}};
}

nlohmann::json tiny_bamba() {
  return {{"architectures", {"BambaForCausalLM"}},
          {"model_type", "bamba"},
          {"hidden_size", 64},
          {"num_hidden_layers", 4},
          {"attn_layer_indices", {1}},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"intermediate_size", 128},
          {"vocab_size", 100},
          {"tie_word_embeddings", false},
          {"mamba_n_heads", 8},
          {"mamba_d_head", "auto"},
          {"mamba_n_groups", 1},
          {"mamba_d_state", 8},
          {"mamba_d_conv", 4},
          {"mamba_expand", 2},
          {"mamba_conv_bias", true},
          {"mamba_proj_bias", false},
          {"torch_dtype", "bfloat16"}};
}

Setup setup_of(const std::string& folder, int max_num_seqs) {
  return parse_setup_only(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: " + folder +
                                          "}\nparallelism: {tp: 1}\nengine: {max_num_seqs: " +
                                          std::to_string(max_num_seqs) + ", prefix_caching: false}\n"),
                          "s.yaml");
}

}  // namespace

TEST_CASE("SSM families: a pure Mamba-2 model's weights, no KV and its state", "[hf][ssm][mamba2]") {
  // transformers' Mamba2Block (an RMSNorm and Mamba2Mixer), hidden 64, d_inner 2 x 64 = 128 =
  // 8 heads x 16, 2 groups of d_state 8, per layer:
  //   in_proj 64 x (2 x 128 + 2 x 2 x 8 + 8 = 296)                    = 18,944
  //   conv1d over 128 + 2 x 2 x 8 = 160 channels: 160 x 4 + bias 160 =    800
  //   dt_bias, A_log, D: 3 x 8                                         =     24
  //   the gated RMSNorm over d_inner                                   =    128
  //   out_proj 128 x 64                                                =  8,192
  //   the block's norm                                                 =     64
  // a layer 28,152, two 56,304; embeddings and lm_head 2 x 100 x 64 = 12,800; norm_f 64:
  // 69,168.
  const ModelSpec m = load_edited(tiny_mamba2(), "mamba2-tiny");
  CHECK(m.total_params() == 69168);
  CHECK(m.attention_layers() == 0);
  CHECK(m.mlp_layers() == 0);
  CHECK(m.state.layers == 2);
  CHECK(m.state.params_per_layer(64) == 18944 + 800 + 24 + 128 + 8192);
  // Nothing per token; per sequence, bf16, 2 layers x (8 heads x 16 x 8 x 2 B + 160 x 3 x 2 B)
  // = 2 x (2048 + 960) = 6016 bytes.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 0.0);
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 2.0 * (8 * 16 * 8 * 2 + 160 * 3 * 2));
}

TEST_CASE("SSM families: a pure Mamba-2 model's capacity is its state slots, not the context",
          "[hf][ssm][mamba2][capacity]") {
  // No max_position_embeddings: the importer's default context of 4096 tokens, 256 blocks of 16.
  // The plan holds no KV cache: blocks enough for every state slot's sequence at that length
  // (max_num_seqs x 256), which take no memory; the state slots (6016 bytes each) are what the
  // memory pays for, and twice the slots hold twice the sequences at any length.
  const std::string folder = write_config(tiny_mamba2(), "mamba2-capacity");
  for (const int seqs : {16, 32}) {
    INFO(seqs << " sequences");
    const Setup s = setup_of(folder, seqs);
    const CostModel cost = make_cost_model(s);
    const MemoryPlan plan = plan_setup_memory(s, cost);
    REQUIRE(plan.fits);
    CHECK(plan.kv_bytes_per_token == 0.0);
    CHECK(plan.state_slots == seqs);
    CHECK(plan.state_bytes == seqs * 6016.0);
    CHECK(plan.kv_blocks == seqs * 256);
    CHECK(plan.kv_tokens == seqs * 4096);
    CHECK_THAT(plan.verdict, Contains("no KV cache (no attention layers)"));
    // A decode step reads no KV and updates each state once, at 100 or 4000 tokens of context:
    // 2 x seqs x 3008 bytes (the state read and written, per layer 8 x 16 x 8 x 2 + 160 x 3 x 2).
    const StepCost near = decode_step(cost, seqs, 100), far = decode_step(cost, seqs, 4000);
    const OpCost* a = find_op(far, "attention_decode");
    CHECK((a == nullptr || a->kv_bytes == 0.0));
    REQUIRE(find_op(near, "state_update_decode"));
    CHECK(find_op(near, "state_update_decode")->kv_bytes == Approx(2.0 * seqs * 6016).epsilon(1e-12));
    CHECK(find_op(far, "state_update_decode")->kv_bytes == find_op(near, "state_update_decode")->kv_bytes);
    CHECK(far.time == Approx(near.time).epsilon(1e-12));
  }
}

TEST_CASE("SSM families: the engine serves a pure Mamba-2 model, and refuses KV offload naming why",
          "[hf][ssm][mamba2][engine]") {
  // 300 requests of up to 2000 + 200 tokens on the small Mamba-2 model, 8 state slots: every
  // request completes (its blocks take no memory; the slots bound the batch, not the KV cache).
  const std::string folder = write_config(tiny_mamba2(), "mamba2-engine");
  const std::string workload =
      "{seed: 7, requests: 300, arrival: {process: poisson, rate: 50}, input_tokens: {dist: uniform, min: 1, "
      "max: 2000}, output_tokens: {dist: uniform, min: 1, max: 200}}";
  const servesim::testing::RunWithCsv r =
      servesim::testing::run_with_csv(servesim::testing::scenario_from("{kind: vllm, max_num_seqs: 8}", workload, folder),
                                      nullptr);
  REQUIRE(r.results.size() == 300);
  for (const RequestResult& q : r.results) CHECK_FALSE(q.failed);
  // Host KV offload of a model that caches nothing: refused, naming the model and why.
  const std::string e = error_of([&] {
    servesim::testing::run_with_csv(
        servesim::testing::scenario_from("{kind: vllm, max_num_seqs: 8, cpu_offload: \"1 GB\"}", workload, folder),
        nullptr);
  });
  CHECK_THAT(e, Contains("engine.cpu_offload"));
  CHECK_THAT(e, Contains("has no attention layers and caches no KV"));
}

TEST_CASE("SSM families: Falcon Mamba 7B (FalconMambaForCausalLM)", "[hf][ssm][mamba]") {
  // Its published config.json: 64 layers, hidden 4096, d_inner = intermediate_size 8192 (not its
  // expand 16), d_state 16, conv 4 with bias, time_step_rank 256, untied tables of 65,024.
  // FalconMambaMixer per layer: in_proj 4096 x 16384 = 67,108,864; conv1d 8192 x 4 + 8192 =
  // 40,960; x_proj 8192 x (256 + 32) = 2,359,296; dt_proj 256 x 8192 + 8192 = 2,105,344; A_log
  // 8192 x 16 = 131,072; D 8192; out_proj 8192 x 4096 = 33,554,432; the block norm 4096: a layer
  // 105,312,256, x 64 = 6,739,984,384; tables 2 x 65,024 x 4096 = 532,676,608; norm_f 4096:
  // 7,272,665,088. StateLayers' Mamba kind adds Jamba's dt/B/C norm weights (256 + 2 x 16 = 288
  // a layer), which Falcon Mamba applies without weights: 64 x 288 = 18,432 more.
  const ModelSpec m = servesim::testing::hf::load("falcon-mamba-7b");
  CHECK(m.architecture == "FalconMambaForCausalLM");
  CHECK(m.state.kind == StateLayers::Kind::mamba1);
  CHECK(m.state.inner() == 8192);
  CHECK(m.state.dt_rank == 256);
  CHECK(m.attention_layers() == 0);
  CHECK(m.total_params() == 7272665088LL + 64 * 288);
  // The Hub's safetensors count, 7.27B (data/models/published_params.csv).
  CHECK(servesim::testing::hf::within(static_cast<double>(m.total_params()), 7.27e9, 0.002));
  // State per sequence, bf16: 64 x (8192 x 16 x 2 B + the conv's 8192 x 3 x 2 B) = 19,922,944 B.
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 64.0 * (8192 * 16 * 2 + 8192 * 3 * 2));
  CHECK(m.kv_bytes_per_token(DType::bf16) == 0.0);
}

TEST_CASE("SSM families: Bamba's Mamba-2 and attention layers", "[hf][ssm][bamba]") {
  // transformers' BambaDecoderLayer: Mamba-2 (BambaMixer) or attention, then the gated MLP,
  // two RMSNorms. Hidden 64, 4 layers, attention on layer 1; d_inner 128 = 8 heads x 16 ("auto"),
  // 1 group of d_state 8:
  //   a Mamba-2 layer's mixer: in_proj 64 x (256 + 16 + 8) = 17,920; conv (128 + 16) x 4 + 144
  //     = 720; dt_bias, A_log, D 24; gated norm 128; out_proj 8192       = 26,984 (x 3)
  //   the attention layer: q 64 x 64, k and v 64 x 2 x 16, o 64 x 64      = 12,288
  //   MLPs 4 x 3 x 64 x 128 = 98,304; norms 4 x 2 x 64 = 512; tables 12,800; final norm 64
  // 80,952 + 12,288 + 98,304 + 512 + 12,800 + 64 = 204,920.
  const ModelSpec m = load_edited(tiny_bamba(), "bamba-tiny");
  CHECK(m.state.layers == 3);
  CHECK(m.attention_layers() == 1);
  CHECK(m.mlp_layers() == 4);
  CHECK(m.total_params() == 204920);
  // KV: the one attention layer, 2 x 2 KV heads x 16 x 2 B = 128 B a token; state: 3 layers x
  // (8 x 16 x 8 x 2 B + 144 x 3 x 2 B) = 3 x 2912 = 8736 B a sequence.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 128.0);
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 3.0 * (8 * 16 * 8 * 2 + 144 * 3 * 2));
}

TEST_CASE("SSM families: malformed configs are refused naming the key", "[hf][ssm][bad-input]") {
  SECTION("Mamba-2 heads that do not tile expand x hidden_size") {
    nlohmann::json j = tiny_mamba2();
    j["head_dim"] = 32;
    const std::string e = error_of([&] { load_edited(j, "mamba2-bad-heads"); });
    CHECK_THAT(e, Contains("config.json"));
    CHECK_THAT(e, Contains("num_heads 8 x head_dim 32 = 256 is not expand 2 x hidden_size 64 = 128"));
  }
  SECTION("Mamba-2 projection biases") {
    nlohmann::json j = tiny_mamba2();
    j["use_bias"] = true;
    CHECK_THAT(error_of([&] { load_edited(j, "mamba2-bias"); }), Contains("use_bias is true"));
  }
  SECTION("Bamba attention on a layer it does not have") {
    nlohmann::json j = tiny_bamba();
    j["attn_layer_indices"] = {1, 4};
    CHECK_THAT(error_of([&] { load_edited(j, "bamba-bad-index"); }),
               Contains("attn_layer_indices lists 4: layers are numbered 0..3"));
  }
  SECTION("Bamba Mamba heads that do not tile its width") {
    nlohmann::json j = tiny_bamba();
    j["mamba_n_heads"] = 6;
    CHECK_THAT(error_of([&] { load_edited(j, "bamba-bad-heads"); }),
               Contains("mamba_expand x hidden_size = 128 is not a multiple of mamba_n_heads 6"));
  }
}
