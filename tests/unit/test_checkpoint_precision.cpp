// A checkpoint's own precision, read from its quantization config per tensor group
// (model_spec.h CheckpointPrecision; hf_quantization.cpp, hf_quant_groups.cpp), and never
// silently overridden: a scenario that asks for another precision is warned naming both,
// and `--set model.name=FOLDER` keeps the checkpoint's precision over the scenario file's.
// Fixtures: tests/fixtures/hf_configs_2026/ (published configs, PROVENANCE.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "config/edits.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/memory_plan.h"
#include "test_sim_helpers.h"
#include "util/warnings.h"

using namespace servesim;
using Catch::Contains;

namespace {
std::string fixture(const std::string& name) { return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_2026/" + name; }

Setup setup_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  ConfigNode doc = parse_yaml_text(text);
  apply_edits(doc, parse_edits(sets));
  return parse_setup_only(doc, "s.yaml");
}

std::string all_warnings() {
  std::string out;
  for (const std::string& w : take_warnings()) out += w + "\n";
  return out;
}

double group_bytes(const ModelSpec& m, TensorGroup g) { return m.checkpoint.bytes(g); }
}  // namespace

TEST_CASE("checkpoint precision: MXFP4 experts beside bf16 attention (gpt-oss)", "[hf][precision]") {
  // quantization_config {quant_method: mxfp4, modules_to_not_convert: self_attn, router, embed, lm_head}:
  // the experts in 4-bit E2M1 blocks of 32 with an 8-bit E8M0 scale (0.5 + 1/32 bytes a weight).
  const ModelSpec m = load_model(fixture("gpt-oss-120b"));
  CHECK(m.native_dtype == DType::fp4);
  CHECK(m.weight_groups.size == 32);
  CHECK(m.weight_element_bytes(DType::fp4, TensorGroup::experts) == 0.5 + 1.0 / 32);
  CHECK(group_bytes(m, TensorGroup::attention) == 2.0);
  CHECK_FALSE(m.checkpoint.has_activations);  // weight-only
  // The memory plan on one H100: experts 36 x 128 x 24,891,840 weights at 0.53125 bytes
  // (60.9 GB), the router (2880 x 128 and its 128 biases) at 2, attention 36 x 26.55M at 2,
  // tables 2 x 201,088 x 2880 at 2, norms.
  const Setup s = setup_of("hardware: {gpu: h100-sxm}\nmodel: {name: " + fixture("gpt-oss-120b") +
                           "}\nengine: {prefix_caching: false}\n");
  CHECK(s.resolved.weights == DType::fp4);
  CHECK(s.resolved.compute == DType::bf16);  // W4A16
  const double experts = 36.0 * (128.0 * (3.0 * 2880 * 2880 + 3 * 2880) * (0.5 + 1.0 / 32) + (2880.0 * 128 + 128) * 2.0);
  const double attention = 36.0 * static_cast<double>(m.attention_params_per_layer()) * 2.0;
  const double tables = 2.0 * 201088 * 2880 * 2.0, norms = (2.0 * 36 + 1) * 2880 * 2.0;
  CHECK(weight_bytes_per_gpu(s.model, s.resolved, s.parallelism) == Approx(experts + attention + tables + norms));
  (void)take_warnings();
}

TEST_CASE("checkpoint precision: NVFP4 runs W4A4 with an FP8 KV cache where FP4 tensor cores exist",
          "[hf][precision]") {
  // nvidia/Qwen3-30B-A3B-NVFP4: config.json has no quantization_config; hf_quant_config.json beside
  // it says quant_algo NVFP4, kv_cache_quant_algo FP8, group_size 16, router (mlp.gate) excluded.
  const std::string model = fixture("qwen3-30b-a3b-nvfp4");
  const ModelSpec m = load_model(model);
  CHECK(m.native_dtype == DType::fp4);
  CHECK(m.checkpoint.has_activations);
  CHECK(m.checkpoint.activations == DType::fp4);
  CHECK(m.checkpoint.kv_cache == DType::fp8);
  CHECK(m.weight_element_bytes(DType::fp4) == 0.5 + 1.0 / 16);  // an E4M3 scale per 16
  const Setup b200 = setup_of("hardware: {gpu: b200}\nmodel: {name: " + model + "}\n");
  CHECK(b200.resolved.weights == DType::fp4);
  CHECK(b200.resolved.compute == DType::fp4);  // W4A4
  CHECK(b200.resolved.kv_cache == DType::fp8);
  (void)take_warnings();
  // An H100 has no FP4 tensor cores: weight-only, said so; the KV cache stays FP8.
  const Setup h100 = setup_of("hardware: {gpu: h100-sxm}\nmodel: {name: " + model + "}\n");
  CHECK(h100.resolved.compute == DType::bf16);
  CHECK(h100.resolved.kv_cache == DType::fp8);
  CHECK_THAT(all_warnings(), Contains("computes in fp4") && Contains("no tensor cores"));
}

TEST_CASE("checkpoint precision: int4 experts with the rest in bf16 (Kimi-K2.5, compressed-tensors)",
          "[hf][precision]") {
  // text_config.quantization_config: int4 groups of 32 (symmetric, a 16-bit scale), ignore
  // lm_head, self_attn, shared_experts and the dense MLP: only the routed experts are int4.
  const ModelSpec m = load_model(fixture("kimi-k2.5"));
  CHECK(m.native_dtype == DType::int4);
  CHECK(m.weight_element_bytes(DType::int4, TensorGroup::experts) == 0.5 + 2.0 / 32);
  CHECK(group_bytes(m, TensorGroup::attention) == 2.0);
  CHECK(group_bytes(m, TensorGroup::shared_experts) == 2.0);
  CHECK(group_bytes(m, TensorGroup::dense_mlp) == 2.0);
}

TEST_CASE("checkpoint precision: MIXED_PRECISION per module (Qwen3.6-27B NVFP4)", "[hf][precision]") {
  // hf_quant_config.json quantized_layers: linear_attn and self_attn projections FP8, the MLP
  // W4A16_NVFP4 (groups of 16, an E4M3 scale). The MLP is the largest group: native fp4.
  const ModelSpec m = load_model(fixture("qwen3.6-27b-nvfp4"));
  CHECK(m.native_dtype == DType::fp4);
  CHECK(group_bytes(m, TensorGroup::dense_mlp) == Approx(0.5 + 1.0 / 16));
  CHECK(group_bytes(m, TensorGroup::state_layers) == Approx(1.0));
  CHECK(group_bytes(m, TensorGroup::attention) == Approx(1.0));
}

TEST_CASE("checkpoint precision: hf_quant_config.json beside a quantization_config without quant_method",
          "[hf][precision]") {
  const auto dir = std::filesystem::temp_directory_path() / "servesim-precision" / "no-method";
  std::filesystem::create_directories(dir);
  std::ifstream in(fixture("qwen3-30b-a3b/config.json"));
  nlohmann::json j = nlohmann::json::parse(in);
  j["quantization_config"] = {{"producer", {{"name", "modelopt"}}}};  // no quant_method
  std::ofstream((dir / "config.json").string()) << j.dump(2) << "\n";
  std::filesystem::copy_file(fixture("qwen3-30b-a3b-nvfp4/hf_quant_config.json"), dir / "hf_quant_config.json",
                             std::filesystem::copy_options::overwrite_existing);
  const ModelSpec m = load_model(dir.string());
  CHECK(m.native_dtype == DType::fp4);
  CHECK(m.checkpoint.kv_cache == DType::fp8);
}


TEST_CASE("checkpoint precision: a config.json silent on its KV cache takes hf_quant_config.json's",
          "[hf][precision]") {
  // NVIDIA's Qwen3.6-35B-A3B-NVFP4 writes its scheme (quant_method modelopt, quantized_layers)
  // into config.json without kv_cache_scheme; hf_quant_config.json beside it says
  // kv_cache_quant_algo FP8. The weights stay config.json's (experts W4A16 NVFP4), the KV is FP8.
  const ModelSpec m = load_model(fixture("qwen3.6-35b-a3b-nvfp4"));
  CHECK(m.native_dtype == DType::fp4);
  CHECK(m.checkpoint.has_kv_cache);
  CHECK(m.checkpoint.kv_cache == DType::fp8);
  CHECK(m.checkpoint.source.find("KV cache fp8 from hf_quant_config.json") != std::string::npos);
  // Qwen3.6-27B-NVFP4's config.json names its kv_cache_scheme itself: nothing is borrowed.
  const ModelSpec dense = load_model(fixture("qwen3.6-27b-nvfp4"));
  CHECK(dense.checkpoint.kv_cache == DType::fp8);
  CHECK(dense.checkpoint.source.find("beside it") == std::string::npos);
}
TEST_CASE("checkpoint precision: a scenario asking otherwise is warned, --set model.name keeps the checkpoint's",
          "[hf][precision]") {
  // DeepSeek-V3.2's checkpoint: fp8 block-wise weights, W8A8. The quickstart pins bf16.
  const std::string model = fixture("deepseek-v3.2");
  const std::string quickstart =
      "hardware: {gpu: h200-sxm}\nmodel: {name: llama-3.1-8b, weights: bf16, activations: bf16, kv_cache: bf16}\n"
      "parallelism: {tp: 8}\nengine: {prefix_caching: false}\n";
  (void)take_warnings();
  SECTION("the model given on the command line keeps its checkpoint's precision") {
    const Setup s = setup_of(quickstart, {"model.name=" + model});
    CHECK(s.resolved.weights == DType::fp8);
    CHECK(s.resolved.compute == DType::fp8);
    CHECK(s.resolved.kv_cache == DType::bf16);  // the checkpoint states no KV precision
    const std::string w = all_warnings();
    CHECK_THAT(w, Contains("the scenario's weights (bf16) is not applied to deepseek-v3.2") && Contains("fp8"));
  }
  SECTION("precision set on the command line wins, and the difference is said") {
    const Setup s = setup_of(quickstart, {"model.name=" + model, "model.weights=bf16"});
    CHECK(s.resolved.weights == DType::bf16);
    CHECK_THAT(all_warnings(), Contains("weights bf16 differs from the checkpoint's own weights fp8"));
  }
  SECTION("a scenario naming the folder itself and pinning bf16 runs bf16, warned") {
    const Setup s = setup_of("hardware: {gpu: h200-sxm}\nmodel: {name: " + model +
                             ", weights: bf16, activations: bf16}\nparallelism: {tp: 8}\n"
                             "engine: {prefix_caching: false}\n");
    CHECK(s.resolved.weights == DType::bf16);
    CHECK(s.resolved.compute == DType::bf16);  // bf16 weights cannot compute in fp8: said once, for the weights
    const std::string w = all_warnings();
    CHECK_THAT(w, Contains("weights bf16 differs from the checkpoint's own weights fp8"));
  }
  SECTION("a catalog model is not an imported checkpoint: the file's precision applies, nothing said") {
    const Setup s = setup_of(quickstart, {"model.name=llama-3.1-70b"});
    CHECK(s.resolved.weights == DType::bf16);
    CHECK(all_warnings().empty());
  }
}
