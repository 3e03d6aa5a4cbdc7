// Architectures imported from config.json (tests/fixtures/arch_configs/, see PROVENANCE.md):
// each parameter count against the figure its publisher gives. Publishers round to two
// or three significant figures and count a few small tensors (router biases, q/k norms)
// servesim leaves out, so a total must be within 0.5% of the published figure and an
// active count within 2% (figures of two significant digits, e.g. "3.3B").
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "model/model_spec.h"

using namespace servesim;

namespace {
ModelSpec arch(const std::string& name) {
  return load_model(std::string(SERVESIM_TEST_FIXTURES) + "/arch_configs/" + name);
}
double billions(std::int64_t n) { return static_cast<double>(n) / 1e9; }
bool within(double value, double published, double rel) { return std::fabs(value - published) <= rel * published; }
}  // namespace

TEST_CASE("architectures: Qwen3-MoE", "[hf][arch]") {
  SECTION("Qwen3-30B-A3B: 30.5B total, 3.3B activated (Qwen3 model card)") {
    const ModelSpec m = arch("qwen3-30b-a3b");
    CHECK(m.moe.num_experts == 128);
    CHECK(m.moe.experts_per_token == 8);
    CHECK(m.moe.dense_layers == 0);  // decoder_sparse_step 1, no mlp_only_layers: every layer MoE
    CHECK(m.head_dim == 128);        // explicit head_dim (hidden 2048 / 32 heads would be 64)
    // Per layer: attention 2048 x (4096 + 2 x 512) + 4096 x 2048 = 18.87M; experts
    // 128 x 3 x 2048 x 768 = 603.98M; router 2048 x 128. 48 layers + 2 x 151936 x 2048 tables.
    CHECK(within(billions(m.total_params()), 30.5, 0.005));
    CHECK(within(billions(m.active_params()), 3.3, 0.02));
  }
  SECTION("Qwen3-235B-A22B: 235B total, 22B activated") {
    const ModelSpec m = arch("qwen3-235b-a22b");
    CHECK(within(billions(m.total_params()), 235.0, 0.005));
    CHECK(within(billions(m.active_params()), 22.0, 0.02));
  }
  SECTION("mlp_only_layers and decoder_sparse_step make dense layers") {
    // Qwen3MoeDecoderLayer: MoE when i is not in mlp_only_layers and (i + 1) % step == 0.
    // Step 2 over 48 layers: the odd i (24 layers) are MoE; listing i = 1 and 3 too leaves 22.
    std::ifstream in(std::string(SERVESIM_TEST_FIXTURES) + "/arch_configs/qwen3-30b-a3b/config.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j["decoder_sparse_step"] = 2;
    j["mlp_only_layers"] = {1, 3};
    const auto dir = std::filesystem::temp_directory_path() / "servesim-arch" / "qwen3-sparse";
    std::filesystem::create_directories(dir);
    std::ofstream((dir / "config.json").string()) << j.dump(2) << "\n";
    const ModelSpec m = load_model(dir.string());
    CHECK(m.moe_layers() == 22);
    CHECK(m.moe.dense_layers == 26);
    // 26 dense layers of 3 x 2048 x 6144 in place of 26 MoE layers of 128 experts + router.
    const ModelSpec all = arch("qwen3-30b-a3b");
    CHECK(all.total_params() - m.total_params() ==
          26 * (all.moe_params_per_layer() - 3LL * 2048 * 6144));
  }
}

TEST_CASE("architectures: DeepSeek-V2/V3 (MLA, shared experts, MTP)", "[hf][arch]") {
  SECTION("DeepSeek-V3: 671B main model, 685B with its MTP module (model card)") {
    const ModelSpec m = arch("deepseek-v3");
    CHECK(m.mla.enabled());
    CHECK(m.moe.dense_layers == 3);
    CHECK(m.mtp_layers == 1);
    CHECK(m.native_dtype == DType::fp8);  // quantization_config fp8, 128 x 128 blocks
    CHECK(m.weight_groups.size == 128 * 128);
    CHECK(within(billions(m.total_params()), 671.0, 0.005));
    CHECK(within(billions(m.active_params()), 37.0, 0.02));
    // The MTP module: one MoE decoder layer (11.5B), the 2h x h projection, three norms, and
    // the embedding and head the checkpoint stores again (2 x 129280 x 7168 = 1.85B): 13.5B.
    CHECK(within(billions(m.checkpoint_params()), 685.0, 0.005));
    CHECK(within(billions(m.mtp_params()), 14.0, 0.05));  // published as "14B": two digits
  }
  SECTION("DeepSeek-V2-Lite: 15.7B total (model card); no q compression (q_lora_rank null)") {
    const ModelSpec m = arch("deepseek-v2-lite");
    CHECK(m.mla.q_lora_rank == 0);
    CHECK(m.moe.shared_experts == 2);
    CHECK(m.mtp_layers == 0);
    CHECK(m.checkpoint_params() == m.total_params());
    CHECK(within(billions(m.total_params()), 15.7, 0.005));
  }
}

TEST_CASE("architectures: Mistral variants", "[hf][arch]") {
  SECTION("Mistral-7B-Instruct-v0.3: 7.25B (Hugging Face's count of the safetensors)") {
    const ModelSpec m = arch("mistral-7b-instruct-v0.3");
    CHECK(m.vocab == 32768);
    CHECK(within(billions(m.total_params()), 7.25, 0.005));
  }
  SECTION("Mistral-Small-24B-Instruct-2501: 23.6B; head_dim 128 given, not hidden / heads") {
    const ModelSpec m = arch("mistral-small-24b-instruct-2501");
    CHECK(m.head_dim == 128);
    // 40 x (5120 x (4096 + 2 x 1024) + 4096 x 5120 + 3 x 5120 x 32768) + 2 x 131072 x 5120 = 23.57B.
    CHECK(within(billions(m.total_params()), 23.6, 0.005));
  }
}

TEST_CASE("architectures: Nemotron (squared-ReLU MLP, not gated)", "[hf][arch]") {
  // Nemotron-4 340B technical report: 9.4B embedding + 331.6B non-embedding parameters.
  const ModelSpec m = arch("nemotron-4-340b");
  CHECK(!m.gated_mlp);  // hidden_act relu2: up and down projections only
  CHECK(m.head_dim == 192);
  CHECK(within(billions(m.embedding_params()), 9.4, 0.005));
  CHECK(within(billions(m.total_params() - m.embedding_params()), 331.6, 0.005));
}
