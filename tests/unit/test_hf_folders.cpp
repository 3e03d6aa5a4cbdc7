// Hugging Face model folders (`model.name: path/to/folder`, `--model folder`): config.json
// plus ModelOpt's hf_quant_config.json; quantized checkpoints are sized at their stored
// precision, with the group scales of group-wise schemes. Fixtures:
// tests/fixtures/model_folders/ (Llama-3.1-8B-Instruct's config with hand-written
// quantization descriptions, see its README.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/memory_plan.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using servesim::testing::error_of;
using Catch::Contains;

namespace {
std::string folder(const std::string& name) { return std::string(SERVESIM_TEST_FIXTURES) + "/model_folders/" + name; }

Scenario scenario_with(const std::string& model, const std::string& extra = "") {
  return parse_scenario(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: " + model + extra + "}\n"), "f.yaml",
                        false);
}

double weights_per_gpu(const Scenario& sc) { return weight_bytes_per_gpu(sc.model, sc.resolved, sc.parallelism); }

// Llama-3.1-8B's weights by kind: the embedding and LM head tables and the norms stay
// 16-bit; the rest (attention and MLP matrices) is stored at the checkpoint's precision.
struct Split {
  double matrices, tables_and_norms;
};
Split split(const ModelSpec& m) {
  const double tables = static_cast<double>(m.embedding_params()), norms = static_cast<double>(m.norm_params());
  return {static_cast<double>(m.total_params()) - tables - norms, tables + norms};
}
}  // namespace

TEST_CASE("hf folders: an FP8 checkpoint folder is sized as FP8", "[hf][folders]") {
  const Scenario bf16 = scenario_with(std::string(SERVESIM_TEST_FIXTURES) + "/model_configs/llama-3.1-8b-instruct");
  const Scenario fp8 = scenario_with(folder("llama-3.1-8b-fp8-compressed-tensors"));
  CHECK(bf16.model.native_dtype == DType::bf16);
  CHECK(fp8.model.native_dtype == DType::fp8);
  CHECK(fp8.model.name == "llama-3.1-8b-fp8-compressed-tensors");  // the folder's name
  CHECK(fp8.precision.weights == DType::fp8);
  CHECK(fp8.resolved.compute == DType::fp8);  // H100 has fp8 tensor cores: W8A8
  CHECK(!fp8.model.weight_groups.enabled());  // per-channel scales: not counted
  // Llama-3.1-8B: 6,979,321,856 matrix weights and 1,050,943,488 + 266,240 table and norm
  // weights (4096 x 128256 x 2; (2 x 32 + 1) x 4096). bf16: 2 bytes each; FP8: the matrices at 1.
  const Split s = split(fp8.model);
  CHECK(s.matrices == 6979321856.0);
  CHECK(weights_per_gpu(bf16) == Approx(2.0 * (s.matrices + s.tables_and_norms)));
  CHECK(weights_per_gpu(fp8) == Approx(1.0 * s.matrices + 2.0 * s.tables_and_norms));  // 9.08e9 bytes
  // The scenario's explicit model.weights still wins over the checkpoint's.
  const Scenario over = scenario_with(folder("llama-3.1-8b-fp8-compressed-tensors"), ", weights: bf16");
  CHECK(over.precision.weights == DType::bf16);
  CHECK(weights_per_gpu(over) == Approx(weights_per_gpu(bf16)));
}

TEST_CASE("hf folders: ModelOpt's hf_quant_config.json beside config.json", "[hf][folders]") {
  SECTION("FP8: the same bytes as the compressed-tensors FP8 folder") {
    const ModelSpec m = load_model(folder("llama-3.1-8b-fp8-modelopt"));
    CHECK(m.native_dtype == DType::fp8);
    CHECK(!m.weight_groups.enabled());
    const Scenario a = scenario_with(folder("llama-3.1-8b-fp8-modelopt"));
    const Scenario b = scenario_with(folder("llama-3.1-8b-fp8-compressed-tensors"));
    CHECK(weights_per_gpu(a) == weights_per_gpu(b));
  }
  SECTION("NVFP4: 4-bit float weights plus an FP8 scale per group of 16") {
    const ModelSpec m = load_model(folder("llama-3.1-8b-nvfp4-modelopt"));
    CHECK(m.native_dtype == DType::fp4);
    CHECK(m.weight_groups.size == 16);
    CHECK(m.weight_groups.scale_bytes == 1.0);
    // 0.5 byte per weight + 1 byte per 16 weights = 0.5625 (4.5 bits).
    CHECK(m.weight_element_bytes(DType::fp4) == 0.5625);
    CHECK(m.weight_element_bytes(DType::bf16) == 2.0);  // scales belong to the stored precision only
    const Scenario sc = scenario_with(folder("llama-3.1-8b-nvfp4-modelopt"), ", weights: fp4");
    const Split s = split(sc.model);
    CHECK(weights_per_gpu(sc) == Approx(0.5625 * s.matrices + 2.0 * s.tables_and_norms));
  }
  SECTION("a config.json path finds its sibling too") {
    CHECK(load_model(folder("llama-3.1-8b-nvfp4-modelopt") + "/config.json").native_dtype == DType::fp4);
  }
}

TEST_CASE("hf folders: AWQ int4 groups of 128 carry a 2-byte scale and a 4-bit zero", "[hf][folders]") {
  const ModelSpec m = load_model(folder("llama-3.1-8b-awq-int4"));
  CHECK(m.native_dtype == DType::int4);
  CHECK(m.weight_groups.size == 128);
  CHECK(m.weight_groups.scale_bytes == 2.5);
  CHECK(m.weight_element_bytes(DType::int4) == 0.5 + 2.5 / 128);  // 0.51953125 bytes = 4.156 bits
  const Scenario sc = scenario_with(folder("llama-3.1-8b-awq-int4"));
  CHECK(sc.precision.weights == DType::int4);
  const Split s = split(sc.model);
  CHECK(weights_per_gpu(sc) == Approx((0.5 + 2.5 / 128) * s.matrices + 2.0 * s.tables_and_norms));
}

TEST_CASE("hf folders: quantization descriptions that cannot be placed are refused by name", "[hf][folders][errors]") {
  const auto dir = std::filesystem::temp_directory_path() / "servesim-hf-folders";
  auto make = [&](const std::string& name, const nlohmann::json& quant) {
    const auto d = dir / name;
    std::filesystem::create_directories(d);
    std::filesystem::copy_file(folder("llama-3.1-8b-fp8-modelopt") + "/config.json", d / "config.json",
                               std::filesystem::copy_options::overwrite_existing);
    std::ofstream(d / "hf_quant_config.json") << quant.dump(2) << "\n";
    return d.string();
  };
  SECTION("mixed precision varies by layer") {
    const auto d = make("mixed", {{"quantization", {{"quant_algo", "MIXED_PRECISION"}}}});
    CHECK_THAT(error_of([&] { load_model(d); }), Contains("hf_quant_config.json") && Contains("MIXED_PRECISION"));
  }
  SECTION("no quant_algo") {
    const auto d = make("noalgo", {{"quantization", {{"kv_cache_quant_algo", "FP8"}}}});
    CHECK_THAT(error_of([&] { load_model(d); }), Contains("quantization.quant_algo must be a string"));
  }
  SECTION("a folder without config.json") {
    const auto d = dir / "empty";
    std::filesystem::create_directories(d);
    CHECK_THAT(error_of([&] { load_model(d.string()); }), Contains("without a config.json"));
  }
  SECTION("compressed-tensors groups need a group size") {
    const auto d = dir / "ct-group";
    std::filesystem::create_directories(d);
    std::ifstream in(folder("llama-3.1-8b-fp8-modelopt") + "/config.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j["quantization_config"] = {{"quant_method", "compressed-tensors"},
                                {"config_groups", {{"g", {{"weights", {{"num_bits", 4}, {"type", "int"},
                                                                       {"strategy", "group"}}}}}}}};
    std::ofstream(d / "config.json") << j.dump(2) << "\n";
    CHECK_THAT(error_of([&] { load_model(d.string()); }), Contains("without a group_size"));
  }
}
