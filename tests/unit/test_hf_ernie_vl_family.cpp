// Baidu's ERNIE-4.5-VL (hf_ernie_vl_family.cpp): ERNIE 4.5's MoE decoder with vision experts
// beside the text experts (MoeSpec::vision_experts: weights, not work), in Baidu's layout and
// transformers' native one. Counts worked out by hand, the 28B-A3B against Baidu's figures
// (tests/fixtures/hf_configs_from_fields/, PROVENANCE.md there), and the refusals.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "cost/memory_plan.h"
#include "hf_fixtures.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::error_of;
using Catch::Contains;

namespace {

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-ernie-vl-", tag);
}

// Baidu's layout, small: hidden 64, 4 layers, 4 heads of 16 (2 KV heads), a dense MLP of 128 on
// layer 0, then MoE: 8 text experts of 32 and 8 vision experts of 16, top 2, one shared expert.
nlohmann::json small_ernie_vl() {
  return {{"architectures", {"Ernie4_5_VLMoeForConditionalGeneration"}},
          {"model_type", "ernie4_5_moe_vl"},
          {"hidden_size", 64},
          {"intermediate_size", 128},
          {"num_hidden_layers", 4},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"vocab_size", 100},
          {"max_position_embeddings", 4096},
          {"moe_num_experts", {8, 8}},
          {"moe_intermediate_size", {32, 16}},
          {"moe_k", 2},
          {"moe_layer_start_index", {1, 1}},
          {"moe_layer_end_index", {5, 3}},  // past the last layer: through the last (vLLM's <=)
          {"moe_layer_interval", 1},
          {"moe_num_shared_experts", 1},
          {"tie_word_embeddings", true}};
}

}  // namespace

TEST_CASE("ERNIE-4.5-VL: a small config's parameters counted by hand", "[hf][ernie_vl]") {
  const ModelSpec m = load_edited(small_ernie_vl(), "small");
  CHECK(m.moe_layers() == 3);
  CHECK(m.moe.dense_layers == 1);
  CHECK(m.moe.vision_experts == 8);
  // attention: q 64 x 64 + k, v 64 x 32 each + o 64 x 64 = 12,288; x 4         =  49,152
  // layer 0's MLP: 3 x 64 x 128                                               =  24,576
  // a MoE layer: text gate 64 x 8 = 512, text experts 8 x 3 x 64 x 32 = 49,152, shared 3 x 64 x 32
  //   = 6,144, vision experts 8 x 3 x 64 x 16 = 24,576 and their gate 512: 80,896; x 3 = 242,688
  // norms (2 x 4 + 1) x 64 = 576; the tied table 100 x 64 = 6,400
  // total 49,152 + 24,576 + 242,688 + 576 + 6,400                              = 323,392
  CHECK(m.vision_expert_params_per_layer() == 24576 + 512);
  CHECK(m.total_params() == 323392);
  // Active (both tables left out, as for ERNIE 4.5's text models): attention, layer 0's MLP,
  // per MoE layer the text gate, 2 of 8 text experts (12,288) and the shared one (6,144) =
  // 18,944 (x 3 = 56,832), norms: 49,152 + 24,576 + 56,832 + 576 = 131,136. No vision weight.
  CHECK(m.active_params() == 131136);

  SECTION("transformers' native layout: one expert count for both, mlp_layer_types") {
    nlohmann::json text = small_ernie_vl();
    for (const char* k : {"moe_layer_start_index", "moe_layer_end_index", "moe_layer_interval", "architectures"})
      text.erase(k);
    text["model_type"] = "ernie4_5_vl_moe_text";
    text["moe_num_experts"] = 8;
    text["mlp_layer_types"] = {"dense", "sparse", "sparse", "sparse"};
    const nlohmann::json j = {{"architectures", {"Ernie4_5_VLMoeForConditionalGeneration"}},
                              {"model_type", "ernie4_5_vl_moe"},
                              {"text_config", text},
                              {"vision_config", {{"depth", 2}, {"hidden_size", 32}}}};
    const ModelSpec n = load_edited(j, "native");
    CHECK(n.total_params() == 323392);
    CHECK(n.active_params() == 131136);
    CHECK(n.vision_params_estimate > 0);  // said, not counted
  }
  SECTION("the vision experts' weights are in the memory plan, at the experts' precision") {
    ModelSpec text_only = m;
    text_only.moe.vision_experts = 0;
    ResolvedPrecision bf16;
    Parallelism one;
    // 3 MoE layers x 24,576 expert weights x 2 B + 3 x 512 gate weights x 2 B = 150,528 B
    CHECK(weight_bytes_per_gpu(m, bf16, one) - weight_bytes_per_gpu(text_only, bf16, one) ==
          Approx(3.0 * (24576 + 512) * 2.0).epsilon(1e-12));
  }
}

TEST_CASE("ERNIE-4.5-VL: refusals name the field", "[hf][ernie_vl]") {
  nlohmann::json j = small_ernie_vl();
  j["moe_layer_start_index"] = {1, 2};
  CHECK_THAT(error_of([&] { load_edited(j, "spans"); }), Contains("the text experts span layers 1-3 and the vision experts 2-3"));
  j = small_ernie_vl();
  j["moe_num_experts"] = {8, 8, 8};
  CHECK_THAT(error_of([&] { load_edited(j, "triple"); }), Contains("moe_num_experts must be an integer >= 1 or a [text, vision] pair"));
  j = small_ernie_vl();
  j.erase("moe_layer_start_index");
  CHECK_THAT(error_of([&] { load_edited(j, "start"); }), Contains("moe_layer_start_index is missing"));
  j = small_ernie_vl();
  j["use_bias"] = true;
  CHECK_THAT(error_of([&] { load_edited(j, "bias"); }), Contains("use_bias true"));
}

TEST_CASE("ERNIE-4.5-VL-28B-A3B against Baidu's figures", "[hf][ernie_vl]") {
  // attention: 2560 x 2560 x 2 + 2560 x 512 x 2 = 15,728,640; x 28            =    440,401,920
  // layer 0's MLP 3 x 2560 x 12288                                            =     94,371,840
  // a MoE layer: text gate 163,840, 64 text experts of 11,796,480 = 754,974,720, 2 shared
  //   23,592,960, 64 vision experts of 3,932,160 = 251,658,240 and their gate 163,840:
  //   1,030,553,600; x 27                                                    = 27,824,947,200
  // norms 57 x 2560 = 145,920; the tied table 103,424 x 2560 = 264,765,440
  // total 28,624,632,320 (Baidu: 28B, +2.2%: a rounded figure; the vision tower, ~0.6B, is
  // said and not counted). Active, tables out: 440,401,920 + 94,371,840 + 27 x (163,840 + 6 x
  // 11,796,480 + 23,592,960) + 145,920 = 3,087,383,040 (Baidu: 3B, +2.9%, as the text-only
  // ERNIE-4.5-21B-A3B's 3.09B).
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/ernie-4.5-vl-28b-a3b");
  CHECK(m.moe_layers() == 27);
  CHECK(m.total_params() == 28624632320LL);
  CHECK(m.active_params() == 3087383040LL);
  CHECK(m.vision_params_estimate > 500000000);
}
