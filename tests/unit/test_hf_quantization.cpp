// config.json fields that change what a checkpoint is: quantization_config (the
// stored weight precision), sliding_window and a zero expert count. Each is honoured
// or refused by name, never silently read as a bf16 dense full-attention model.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using servesim::testing::error_of;
using Catch::Contains;
using nlohmann::json;

namespace {
json base_config() {
  std::ifstream in(std::string(SERVESIM_TEST_FIXTURES) + "/model_configs/llama-3.1-8b-instruct/config.json");
  return json::parse(in);
}

// Writes `j` as <tmp>/servesim-hf-quant/<name>/config.json and returns the path.
std::string write_config(const std::string& name, const json& j) {
  const auto dir = std::filesystem::temp_directory_path() / "servesim-hf-quant" / name;
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "config.json").string();
  std::ofstream(path) << j.dump(2);
  return path;
}

Scenario scenario_with(const std::string& model_path, const std::string& extra = "") {
  return parse_scenario(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: " + model_path + extra + "}\n"),
                        "q.yaml", false);
}
}  // namespace

TEST_CASE("hf import: quantization_config sets the stored weight precision", "[hf][quant]") {
  SECTION("the shipped Llama-4 FP8 config's scheme: compressed-tensors, 8-bit float weights") {
    // Its config_groups.group_0.weights: {num_bits: 8, type: float} (the model itself is a
    // multimodal wrapper servesim refuses, so the scheme is grafted onto Llama-3.1-8B).
    std::ifstream in(std::string(SERVESIM_TEST_FIXTURES) +
                     "/model_configs/llama-4-scout-17b-16e-instruct-fp8-dynamic/config.json");
    const json llama4 = json::parse(in);
    json j = base_config();
    j["quantization_config"] = llama4["quantization_config"];
    const ModelSpec m = load_model(write_config("ct-fp8", j));
    CHECK(m.native_dtype == DType::fp8);
    // Default weights follow the checkpoint: fp8 on H100, and fp8 compute (H100 has fp8
    // tensor cores).
    const Scenario sc = scenario_with(write_config("ct-fp8", j));
    CHECK(sc.precision.weights == DType::fp8);
    CHECK(sc.resolved.compute == DType::fp8);
    // The scenario's explicit choice still wins.
    const Scenario over = scenario_with(write_config("ct-fp8", j), ", weights: bf16");
    CHECK(over.precision.weights == DType::bf16);
  }
  SECTION("AWQ / GPTQ 4-bit -> int4, 8-bit -> int8; fp8 method -> fp8") {
    json j = base_config();
    j["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}};
    CHECK(load_model(write_config("awq4", j)).native_dtype == DType::int4);
    j["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 8}};
    CHECK(load_model(write_config("gptq8", j)).native_dtype == DType::int8);
    j["quantization_config"] = {{"quant_method", "fp8"}, {"activation_scheme", "dynamic"}};
    CHECK(load_model(write_config("fp8", j)).native_dtype == DType::fp8);
    // int4 weights default to 16-bit compute (weight-only): W4A16.
    j["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}};
    const Scenario sc = scenario_with(write_config("awq4", j));
    CHECK(sc.precision.weights == DType::int4);
    CHECK(sc.resolved.compute == DType::bf16);
  }
  SECTION("no quantization_config: torch_dtype as before") {
    CHECK(load_model(write_config("plain", base_config())).native_dtype == DType::bf16);
  }
  SECTION("an unknown scheme or bit width is refused by name") {
    json j = base_config();
    // (hqq, quark, auto-round and others: test_hf_quant_methods.cpp.)
    j["quantization_config"] = {{"quant_method", "mystery_quant"}, {"nbits", 4}};
    CHECK_THAT(error_of([&] { load_model(write_config("mystery", j)); }),
               Contains("quantization_config: quant_method 'mystery_quant' is not understood"));
    j["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 3}};
    CHECK_THAT(error_of([&] { load_model(write_config("gptq3", j)); }),
               Contains("3-bit integer weights (quant_method 'gptq') are not modelled"));
  }
}

TEST_CASE("hf import: a binding sliding_window is modelled, an inactive one ignored", "[hf][quant]") {
  json j = base_config();  // max_position_embeddings 131072
  j["sliding_window"] = 4096;
  // Without a per-layer pattern (Mistral 7B v0.1's case) the window is on every layer.
  const ModelSpec w = load_model(write_config("swa", j));
  CHECK(w.local.kind == LocalAttention::Kind::sliding);
  CHECK(w.local.span == 4096);
  CHECK(w.local.layers == w.layers);
  // Qwen-style: present but switched off.
  j["use_sliding_window"] = false;
  CHECK(load_model(write_config("swa-off", j)).max_context == 131072);
  CHECK_FALSE(load_model(write_config("swa-off", j)).local.enabled());
  // A window as long as the context changes nothing.
  json k = base_config();
  k["sliding_window"] = 131072;
  CHECK_FALSE(load_model(write_config("swa-full", k)).local.enabled());
  // The shipped Qwen2.5-7B config carries sliding_window 131072 with use_sliding_window false.
  CHECK_NOTHROW(load_model(std::string(SERVESIM_TEST_FIXTURES) + "/model_configs/qwen2.5-7b-instruct/config.json"));
}

TEST_CASE("hf import: Qwen's max_window_layers counts full-attention layers, within the model's", "[hf][quant]") {
  std::ifstream in(std::string(SERVESIM_TEST_FIXTURES) + "/model_configs/qwen3-14b/config.json");
  json j = json::parse(in);  // 40 layers, max_position_embeddings 40960
  j["use_sliding_window"] = true;
  j["sliding_window"] = 4096;
  j["max_window_layers"] = 30;
  // Layers 30..39 use the window: 40 - 30 = 10 local layers.
  const ModelSpec m = load_model(write_config("qwen-swa", j));
  CHECK(m.local.layers == 10);
  for (const json& bad : {json(-1), json(41), json(1000000000)}) {
    j["max_window_layers"] = bad;
    CHECK_THAT(error_of([&] { load_model(write_config("qwen-swa-bad", j)); }),
               Contains("max_window_layers = " + bad.dump() + " must be within [0, num_hidden_layers = 40]"));
  }
  // Switched off (the shipped file): the field is not read, whatever it holds.
  j["use_sliding_window"] = false;
  CHECK_NOTHROW(load_model(write_config("qwen-swa-off", j)));
}

TEST_CASE("hf import: num_local_experts 0 is not read as a dense model", "[hf][quant]") {
  std::ifstream in(std::string(SERVESIM_TEST_FIXTURES) + "/model_configs/mixtral-8x7b-v0.1/config.json");
  json j = json::parse(in);
  j["num_local_experts"] = 0;
  CHECK_THAT(error_of([&] { load_model(write_config("moe0", j)); }),
             Contains("num_local_experts must be at least 1") && Contains("MixtralForCausalLM"));
  // Qwen MoE names its count num_experts; 0 there is refused too (it used to fall through
  // to a dense model).
  json q = base_config();
  q["architectures"] = {"Qwen2MoeForCausalLM"};
  q["num_experts"] = 0;
  CHECK_THAT(error_of([&] { load_model(write_config("qwen-moe0", q)); }),
             Contains("Qwen2MoeForCausalLM is a mixture-of-experts architecture but the config gives no experts"));
}
