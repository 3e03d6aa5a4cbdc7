// Late-2026 architectures that are known decoders under a new name, or a known one plus a part
// servesim has (hf_late_2026_families.cpp, hf_families.cpp's tables): each loads with the counts
// of the decoder it is, worked out by hand where the part is new (granite-swash's sinks), and
// JetBrains' Mellum 2 against its published figures.
#include <catch2/catch.hpp>

#include <string>

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
}
