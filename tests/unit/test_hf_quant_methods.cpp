// The quantizers read by hf_quant_methods.cpp: AMD Quark, Intel AutoRound, HQQ, torchao,
// optimum-quanto, EETQ and FP-Quant, and the refusal of sub-4-bit schemes. Each config is the
// shape its exporter writes (cited per case) grafted onto Llama-3.1-8B's shipped config.json
// (or Qwen3-30B-A3B's, for a MoE), as test_hf_quantization.cpp does.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using servesim::testing::error_of;
using Catch::Contains;
using nlohmann::json;

namespace {
json read_json(const std::string& relative) {
  std::ifstream in(std::string(SERVESIM_TEST_FIXTURES) + relative);
  return json::parse(in);
}
json llama() { return read_json("/model_configs/llama-3.1-8b-instruct/config.json"); }
json qwen3_moe() { return read_json("/hf_configs_2026/qwen3-30b-a3b/config.json"); }

ModelSpec with(json j, const json& quantization, const std::string& name) {
  j["quantization_config"] = quantization;
  const auto dir = std::filesystem::temp_directory_path() / "servesim-quant-methods" / name;
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << j.dump(2);
  return load_model(dir.string());
}

double group_bytes(const ModelSpec& m, TensorGroup g) { return m.checkpoint.bytes(g); }

// An OCP MXFP4 tensor spec as Quark exports it (vLLM QuarkConfig._is_mx_fp4 reads dtype fp4,
// qscheme per_group, group_size 32, scale_format e8m0).
json mxfp4(bool dynamic) {
  return {{"dtype", "fp4"},           {"qscheme", "per_group"}, {"group_size", 32}, {"ch_axis", -1},
          {"scale_format", "e8m0"},   {"scale_type", "float"},  {"is_dynamic", dynamic},
          {"observer_cls", "PerBlockMXObserver"}};
}
json fp8_per_tensor(bool dynamic) {
  return {{"dtype", "fp8_e4m3"}, {"qscheme", "per_tensor"}, {"is_dynamic", dynamic}, {"symmetric", true}};
}
}  // namespace

TEST_CASE("quark: FP8 weights and activations with the KV cache of kv_cache_group", "[hf][quant][quark]") {
  // amd/*-FP8-KV checkpoints: global fp8_e4m3 per-tensor weights and static inputs, and
  // "*k_proj" / "*v_proj" entries whose output_tensors are fp8 (vLLM QuarkConfig.from_config
  // takes the KV cache from the layers export.kv_cache_group names).
  const json kv_layer = {{"weight", fp8_per_tensor(false)},
                         {"input_tensors", fp8_per_tensor(false)},
                         {"output_tensors", fp8_per_tensor(false)}};
  const json q = {{"quant_method", "quark"},
                  {"global_quant_config", {{"weight", fp8_per_tensor(false)}, {"input_tensors", fp8_per_tensor(false)},
                                           {"output_tensors", nullptr}}},
                  {"layer_quant_config", {{"*k_proj", kv_layer}, {"*v_proj", kv_layer}}},
                  {"exclude", {"lm_head"}},
                  {"export", {{"kv_cache_group", {"*k_proj", "*v_proj"}}, {"pack_method", "reorder"}}}};
  const ModelSpec m = with(llama(), q, "fp8-kv");
  CHECK(m.native_dtype == DType::fp8);
  CHECK(!m.weight_groups.enabled());  // per-tensor scales: a few bytes a tensor, not counted
  CHECK(m.checkpoint.has_activations);
  CHECK(m.checkpoint.activations == DType::fp8);
  CHECK(m.checkpoint.has_kv_cache);
  CHECK(m.checkpoint.kv_cache == DType::fp8);
  CHECK(m.checkpoint.source == "config.json quantization_config (quant_method quark)");
  // The KV layers repeat the global weights: no per-module scheme, every group at fp8.
  CHECK(group_bytes(m, TensorGroup::attention) == 0.0);
  CHECK(group_bytes(m, TensorGroup::dense_mlp) == 0.0);

  SECTION("without kv_cache_group the KV cache stays the scenario's") {
    json q2 = q;
    q2["export"]["kv_cache_group"] = json::array();
    CHECK(!with(llama(), q2, "fp8-no-kv").checkpoint.has_kv_cache);
  }
}

TEST_CASE("quark: MXFP4 W4A4 and NVFP4's two-element specs", "[hf][quant][quark]") {
  SECTION("MXFP4 weights and dynamic MXFP4 inputs (amd/*-MXFP4 exports)") {
    const json q = {{"quant_method", "quark"},
                    {"global_quant_config", {{"weight", mxfp4(false)}, {"input_tensors", mxfp4(true)}}},
                    {"exclude", {"lm_head"}},
                    {"export", {{"kv_cache_group", json::array()}}}};
    const ModelSpec m = with(llama(), q, "mxfp4");
    CHECK(m.native_dtype == DType::fp4);
    CHECK(m.weight_groups.size == 32);
    CHECK(m.weight_groups.scale_bytes == 1.0);
    // 0.5 byte a weight + 1 e8m0 byte per 32 = 0.53125 (4.25 bits).
    CHECK(m.weight_element_bytes(DType::fp4) == 0.53125);
    CHECK(m.checkpoint.activations == DType::fp4);
  }
  SECTION("NVFP4: [fp4 per_group 16, fp8 per_tensor] lists (vLLM QuarkConfig._is_nvfp4)") {
    const json w16 = {{"dtype", "fp4"}, {"qscheme", "per_group"}, {"group_size", 16}, {"is_dynamic", false}};
    json a16 = w16;
    a16["is_dynamic"] = true;
    const json q = {{"quant_method", "quark"},
                    {"global_quant_config",
                     {{"weight", {w16, fp8_per_tensor(false)}}, {"input_tensors", {a16, fp8_per_tensor(false)}}}},
                    {"export", {{"kv_cache_group", json::array()}}}};
    const ModelSpec m = with(llama(), q, "nvfp4");
    CHECK(m.native_dtype == DType::fp4);
    CHECK(m.weight_groups.size == 16);
    CHECK(m.weight_element_bytes(DType::fp4) == 0.5625);  // 0.5 + 1/16
    CHECK(m.checkpoint.activations == DType::fp4);
  }
  SECTION("W4A16 int4 groups of 128, asymmetric uint4: a 16-bit scale and a 4-bit zero") {
    const json q = {{"quant_method", "quark"},
                    {"global_quant_config",
                     {{"weight", {{"dtype", "uint4"}, {"qscheme", "per_group"}, {"group_size", 128},
                                  {"symmetric", false}, {"scale_format", "bf16"}}},
                      {"input_tensors", nullptr}}},
                    {"export", {{"kv_cache_group", json::array()}}}};
    const ModelSpec m = with(llama(), q, "uint4");
    CHECK(m.native_dtype == DType::int4);
    CHECK(m.weight_groups.size == 128);
    CHECK(m.weight_groups.scale_bytes == 2.5);  // 2 (bf16 scale) + 4/8 (zero point)
    CHECK(!m.checkpoint.has_activations);       // weight-only
  }
}

TEST_CASE("quark: experts-only MXFP4 leaves the other groups at 16 bits, and FP8 + MXFP4 experts mix",
          "[hf][quant][quark]") {
  SECTION("no global weights, a layer_quant_config for the experts only") {
    // The shape of Quark exports that quantize only the routed experts ("*mlp.experts*").
    const json q = {{"quant_method", "quark"},
                    {"global_quant_config", {{"weight", nullptr}, {"input_tensors", nullptr}}},
                    {"layer_quant_config", {{"*mlp.experts*", {{"weight", mxfp4(false)}, {"input_tensors", mxfp4(true)}}}}},
                    {"export", {{"kv_cache_group", json::array()}}}};
    const ModelSpec m = with(qwen3_moe(), q, "experts-only");
    CHECK(m.native_dtype == DType::fp4);  // the experts hold most weights: their scheme stands
    CHECK(group_bytes(m, TensorGroup::experts) == 0.53125);
    CHECK(group_bytes(m, TensorGroup::attention) == 2.0);  // not listed: bf16
  }
  SECTION("global FP8, experts MXFP4: attention keeps the global FP8") {
    const json q = {{"quant_method", "quark"},
                    {"global_quant_config", {{"weight", fp8_per_tensor(false)}, {"input_tensors", fp8_per_tensor(true)}}},
                    {"layer_quant_config", {{"*mlp.experts*", {{"weight", mxfp4(false)}, {"input_tensors", mxfp4(true)}}}}},
                    {"export", {{"kv_cache_group", json::array()}}}};
    const ModelSpec m = with(qwen3_moe(), q, "fp8-mxfp4");
    CHECK(group_bytes(m, TensorGroup::experts) == 0.53125);
    CHECK(group_bytes(m, TensorGroup::attention) == 1.0);  // fp8, per-tensor scales
  }
  SECTION("global FP8 with attention excluded: attention bf16, experts MXFP4") {
    const json q = {{"quant_method", "quark"},
                    {"global_quant_config", {{"weight", fp8_per_tensor(false)}}},
                    {"layer_quant_config", {{"*mlp.experts*", {{"weight", mxfp4(false)}}}}},
                    {"exclude", {"*self_attn*", "lm_head"}},
                    {"export", {{"kv_cache_group", json::array()}}}};
    const ModelSpec m = with(qwen3_moe(), q, "fp8-mxfp4-noattn");
    CHECK(group_bytes(m, TensorGroup::experts) == 0.53125);
    CHECK(group_bytes(m, TensorGroup::attention) == 2.0);
  }
}

TEST_CASE("quark: what cannot be priced is refused by name", "[hf][quant][quark]") {
  const json fp6 = {{"dtype", "fp6_e2m3"}, {"qscheme", "per_group"}, {"group_size", 32}, {"scale_format", "e8m0"}};
  json q = {{"quant_method", "quark"},
            {"global_quant_config", {{"weight", mxfp4(false)}, {"input_tensors", fp6}}},
            {"export", {{"kv_cache_group", json::array()}}}};
  CHECK_THAT(error_of([&] { with(llama(), q, "w4a6"); }),
             Contains("global_quant_config.input_tensors.dtype: dtype 'fp6_e2m3' (6-bit floats, OCP MXFP6) is not "
                      "modelled"));
  q["global_quant_config"] = {{"weight", {{"dtype", "uint2"}, {"qscheme", "per_group"}, {"group_size", 128}}}};
  CHECK_THAT(error_of([&] { with(llama(), q, "uint2"); }), Contains("dtype 'uint2' is not modelled"));
  q["global_quant_config"] = json::object();
  CHECK_THAT(error_of([&] { with(llama(), q, "none"); }),
             Contains("Quark config without global_quant_config.weight"));
}

TEST_CASE("auto-round, hqq, quanto, eetq, fp_quant, torchao", "[hf][quant]") {
  SECTION("auto-round int4 groups of 128, symmetric (GPTQ packing): W4A16, 2-byte scales") {
    const ModelSpec m = with(llama(),
                             {{"quant_method", "auto-round"}, {"bits", 4}, {"group_size", 128}, {"sym", true},
                              {"data_type", "int"}, {"packing_format", "auto_round:auto_gptq"}},
                             "autoround");
    CHECK(m.native_dtype == DType::int4);
    CHECK(m.weight_groups.scale_bytes == 2.0);
    CHECK(m.weight_element_bytes(DType::int4) == 0.5 + 2.0 / 128);
    CHECK(!m.checkpoint.has_activations);
  }
  SECTION("auto-round's older name intel/auto-round, asymmetric: + a 4-bit zero point") {
    const ModelSpec m = with(llama(), {{"quant_method", "intel/auto-round"}, {"bits", 4}, {"group_size", 128}, {"sym", false}},
                             "autoround-asym");
    CHECK(m.weight_groups.scale_bytes == 2.5);
  }
  SECTION("auto-round MXFP4 with 4-bit activations: W4A4") {
    const ModelSpec m = with(llama(),
                             {{"quant_method", "auto-round"}, {"bits", 4}, {"group_size", 32}, {"data_type", "mx_fp"},
                              {"act_bits", 4}},
                             "autoround-mxfp4");
    CHECK(m.native_dtype == DType::fp4);
    CHECK(m.weight_element_bytes(DType::fp4) == 0.53125);
    CHECK(m.checkpoint.activations == DType::fp4);
  }
  SECTION("hqq 4-bit groups of 64: a 16-bit scale and a 16-bit zero per group") {
    const ModelSpec m = with(llama(),
                             {{"quant_method", "hqq"},
                              {"quant_config", {{"weight_quant_params", {{"nbits", 4}, {"group_size", 64}, {"axis", 1}}}}},
                              {"skip_modules", {"lm_head"}}},
                             "hqq4");
    CHECK(m.native_dtype == DType::int4);
    CHECK(m.weight_element_bytes(DType::int4) == 0.5 + 4.0 / 64);  // 0.5625
  }
  SECTION("quanto int8 weights and float8 activations") {
    const ModelSpec m = with(llama(), {{"quant_method", "quanto"}, {"weights", "int8"}, {"activations", "float8"}}, "quanto");
    CHECK(m.native_dtype == DType::int8);
    CHECK(m.checkpoint.activations == DType::fp8);
  }
  SECTION("eetq int8, weight-only") {
    const ModelSpec m = with(llama(), {{"quant_method", "eetq"}, {"weights", "int8"}}, "eetq");
    CHECK(m.native_dtype == DType::int8);
    CHECK(!m.checkpoint.has_activations);
  }
  SECTION("fp_quant NVFP4: W4A4, an fp8 scale per 16") {
    const ModelSpec m = with(llama(), {{"quant_method", "fp_quant"}, {"forward_dtype", "nvfp4"}}, "fpquant");
    CHECK(m.native_dtype == DType::fp4);
    CHECK(m.weight_element_bytes(DType::fp4) == 0.5625);
    CHECK(m.checkpoint.activations == DType::fp4);
  }
  SECTION("torchao Int4WeightOnlyConfig (transformers TorchAoConfig's serialized form)") {
    const json q = {{"quant_method", "torchao"},
                    {"quant_type", {{"default", {{"_type", "Int4WeightOnlyConfig"}, {"_version", 2},
                                                 {"_data", {{"group_size", 128}}}}}}}};
    const ModelSpec m = with(llama(), q, "torchao-int4");
    CHECK(m.native_dtype == DType::int4);
    CHECK(m.weight_element_bytes(DType::int4) == 0.5 + 4.0 / 128);  // bf16 scale + bf16 zero
  }
  SECTION("torchao float8 dynamic activations (the older string form)") {
    const ModelSpec m = with(llama(), {{"quant_method", "torchao"}, {"quant_type", "float8_dynamic_activation_float8_weight"}},
                             "torchao-fp8");
    CHECK(m.native_dtype == DType::fp8);
    CHECK(m.checkpoint.activations == DType::fp8);
  }
}

TEST_CASE("sub-4-bit and unknown schemes are refused by name", "[hf][quant]") {
  CHECK_THAT(error_of([&] { with(llama(), {{"quant_method", "bitnet"}, {"linear_class", "autobitlinear"}}, "bitnet"); }),
             Contains("BitNet's ternary (1.58-bit) weights is not modelled: servesim prices 16, 8 and 4-bit weights"));
  CHECK_THAT(error_of([&] { with(llama(), {{"quant_method", "aqlm"}, {"nbits_per_codebook", 16}}, "aqlm"); }),
             Contains("quant_method 'aqlm' (codebook / vector quantization"));
  CHECK_THAT(error_of([&] { with(llama(), {{"quant_method", "hqq"}, {"quant_config", {{"weight_quant_params", {{"nbits", 2}}}}}}, "hqq2"); }),
             Contains("hqq 2-bit weights is not modelled"));
  CHECK_THAT(error_of([&] { with(llama(), {{"quant_method", "torchao"}, {"quant_type", "mystery_config"}}, "torchao-x"); }),
             Contains("torchao quant_type 'mystery_config' is not understood"));
}

TEST_CASE("quark: kv_cache_group globs match as fnmatch does, in linear time", "[hf][quant][quark]") {
  const json kv_layer = {{"weight", fp8_per_tensor(false)}, {"output_tensors", fp8_per_tensor(false)}};
  json q = {{"quant_method", "quark"},
            {"global_quant_config", {{"weight", fp8_per_tensor(false)}}},
            {"layer_quant_config", {{"model.layers.*.self_attn.k_proj", kv_layer}}},
            {"export", {{"kv_cache_group", {"*k_pro?"}}}}};
  CHECK(with(llama(), q, "glob-q").checkpoint.has_kv_cache);  // '*' any run, '?' one character
  q["export"]["kv_cache_group"] = {"*v_proj"};
  CHECK(!with(llama(), q, "glob-v").checkpoint.has_kv_cache);
  // A pattern a backtracking regex takes exponential time on ("*a*a...*b" against 500 a's):
  // no match, at once.
  std::string pattern;
  for (int i = 0; i < 40; ++i) pattern += "*a";
  pattern += "*b";
  q["layer_quant_config"] = {{std::string(500, 'a'), kv_layer}};
  q["export"]["kv_cache_group"] = {pattern};
  CHECK(!with(llama(), q, "glob-slow").checkpoint.has_kv_cache);
}
