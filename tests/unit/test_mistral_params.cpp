// Mistral's own checkpoint format (params.json, no config.json), read as vLLM's
// --config-format mistral reads it (model/mistral_params.cpp). Each params.json is the
// Hugging Face config of a shipped fixture written back under Mistral's names, so the model
// read must be that fixture's, parameter for parameter.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::error_of;
using nlohmann::json;

namespace {
std::string fixture_path(const std::string& name) {
  return std::string(SERVESIM_TEST_FIXTURES) + "/model_configs/" + name;
}
// `params` as <temp>/servesim-mistral-params-<tag>/params.json (no config.json beside it).
std::string write_params(const json& params, const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path() / ("servesim-mistral-params-" + tag);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "params.json") << params.dump(2);
  return dir.string();
}

// Mistral-Nemo-Instruct-2407's config.json (the shipped fixture) under Mistral's names, as its
// params.json spells them (mistralai/Mistral-Nemo-Instruct-2407 ships both files).
json nemo_params() {
  return {{"dim", 5120},        {"n_layers", 40},          {"head_dim", 128}, {"hidden_dim", 14336},
          {"n_heads", 32},      {"n_kv_heads", 8},         {"rope_theta", 1000000.0},
          {"norm_eps", 1e-05},  {"vocab_size", 131072}};
}
}  // namespace

TEST_CASE("mistral params.json: a dense model reads as its config.json does", "[hf][mistral]") {
  const ModelSpec hf = load_model(fixture_path("mistral-nemo-instruct-2407"));
  const ModelSpec m = load_model(write_params(nemo_params(), "nemo"));
  CHECK(m.architecture == "MistralForCausalLM");
  CHECK(m.total_params() == hf.total_params());
  CHECK(m.kv_heads == 8);
  CHECK(m.head_dim == 128);
  CHECK(!m.tied_embeddings);               // tied_embeddings defaults to false
  CHECK(m.max_context == 128000);          // vLLM's default when params.json names none
  CHECK(m.name == "servesim-mistral-params-nemo");
  // The file named directly reads the same.
  CHECK(load_model(write_params(nemo_params(), "nemo-file") + "/params.json").total_params() == hf.total_params());
}

TEST_CASE("mistral params.json: windows, fp8, a Mixtral moe section, a vision encoder", "[hf][mistral]") {
  SECTION("sliding_window as a per-layer pattern: the null entries are full attention") {
    json p = nemo_params();
    p["sliding_window"] = {4096, 4096, 4096, nullptr};  // 40 layers: 30 windowed, 10 full
    const ModelSpec m = load_model(write_params(p, "window"));
    CHECK(m.local.span == 4096);
    CHECK(m.local.layers == 30);
  }
  SECTION("quantization qformat_weight fp8_e4m3: fp8 weights and activations") {
    json p = nemo_params();
    p["quantization"] = {{"qformat_weight", "fp8_e4m3"}, {"qscheme_act", "TENSOR"}};
    const ModelSpec m = load_model(write_params(p, "fp8"));
    CHECK(m.native_dtype == DType::fp8);
    CHECK(m.checkpoint.activations == DType::fp8);
  }
  SECTION("a moe section without shared experts is Mixtral: Mixtral-8x7B's shapes") {
    // mistralai/Mixtral-8x7B-v0.1 (the shipped config.json) under Mistral's names.
    const ModelSpec hf = load_model(fixture_path("mixtral-8x7b-v0.1"));
    const json p = {{"dim", 4096},          {"n_layers", 32},         {"head_dim", 128},   {"hidden_dim", 14336},
                    {"n_heads", 32},        {"n_kv_heads", 8},        {"norm_eps", 1e-05}, {"vocab_size", 32000},
                    {"rope_theta", 1e6},    {"moe", {{"num_experts", 8}, {"num_experts_per_tok", 2}}}};
    const ModelSpec m = load_model(write_params(p, "mixtral"));
    CHECK(m.architecture == "MixtralForCausalLM");
    CHECK(m.total_params() == hf.total_params());
    CHECK(m.active_params() == hf.active_params());
  }
  SECTION("a vision encoder: the language model read through a Pixtral wrapper") {
    json p = nemo_params();
    p["vision_encoder"] = {{"hidden_size", 1024}, {"num_hidden_layers", 24}, {"intermediate_size", 4096}};
    const ModelSpec m = load_model(write_params(p, "pixtral"));
    CHECK(m.architecture == "PixtralForConditionalGeneration");
    CHECK(m.total_params() == load_model(fixture_path("mistral-nemo-instruct-2407")).total_params());
  }
  SECTION("what the format does not define is refused naming the file") {
    json p = nemo_params();
    p["quantization"] = {{"qformat_weight", "int3"}};
    CHECK_THAT(error_of([&] { load_model(write_params(p, "bad-quant")); }),
               Catch::Contains("params.json: quantization {\"qformat_weight\":\"int3\"} is not one Mistral's format"));
    json w = nemo_params();
    w["sliding_window"] = {4096, nullptr, nullptr};  // 3 does not divide 40
    CHECK_THAT(error_of([&] { load_model(write_params(w, "bad-window")); }),
               Catch::Contains("sliding_window lists a pattern of 3 layers, which does not divide n_layers = 40"));
  }
  SECTION("a folder with neither file") {
    const auto dir = std::filesystem::temp_directory_path() / "servesim-mistral-params-empty";
    std::filesystem::create_directories(dir);
    CHECK_THAT(error_of([&] { load_model(dir.string()); }),
               Catch::Contains("a folder without a config.json (or Mistral's params.json)"));
  }
}

TEST_CASE("mistral params.json: a moe section with shared experts is Mistral Large 3", "[hf][mistral]") {
  // mistralai/Mistral-Large-3-675B-Instruct-2512's params.json without its vision encoder, the
  // values test_hf_moe_2026_families.cpp cites (unslothai's quote of the file; vLLM's
  // test_mistral_yarn_apply_scale_false), under Mistral's own names. Read here through
  // mistral_params.cpp, the model must be the one that test reads from the remapped fields:
  // 673,421,089,792 parameters, 39,007,443,968 active (its closed form).
  const json p = {{"dim", 7168},
                  {"n_layers", 61},
                  {"n_heads", 128},
                  {"n_kv_heads", 128},
                  {"hidden_dim", 16384},
                  {"vocab_size", 131072},
                  {"norm_eps", 1e-06},
                  {"q_lora_rank", 1536},
                  {"kv_lora_rank", 512},
                  {"qk_nope_head_dim", 128},
                  {"qk_rope_head_dim", 64},
                  {"v_head_dim", 128},
                  {"tied_embeddings", false},
                  {"llama_4_scaling", {{"beta", 0.1}, {"original_max_position_embeddings", 8192}}},
                  {"moe",
                   {{"num_experts", 128},
                    {"num_experts_per_tok", 4},
                    {"num_shared_experts", 1},
                    {"expert_hidden_dim", 4096},
                    {"first_k_dense_replace", 3},
                    {"route_every_n", 1},
                    {"num_expert_groups", 1},
                    {"num_expert_groups_per_tok", 1},
                    {"routed_scale", 1.0}}}};
  const ModelSpec m = load_model(write_params(p, "large3"));
  CHECK(m.architecture == "MistralLarge3ForCausalLM");
  CHECK(m.mla.enabled());
  CHECK(m.moe.num_experts == 128);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.moe.dense_layers == 3);
  CHECK(m.total_params() == 673421089792LL);
  CHECK(m.active_params() == 39007443968LL);
}
