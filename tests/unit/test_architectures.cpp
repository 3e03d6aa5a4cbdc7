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

TEST_CASE("architectures: Gemma 2/3 (sliding window) and Llama 4 (chunked attention, interleaved MoE)",
          "[hf][arch][local]") {
  SECTION("Gemma 2 9B: 9.24B (Gemma 2 report, table 1: 918M embedding + 8,324M non-embedding)") {
    const ModelSpec m = arch("gemma-2-9b");
    CHECK(m.local.kind == LocalAttention::Kind::sliding);
    CHECK(m.local.span == 4096);
    CHECK(m.local.layers == 21);  // transformers' Gemma2: layers 0, 2, ..., 40
    CHECK(m.tied_embeddings);     // Gemma2Config default
    CHECK(m.gated_mlp);           // hidden_activation gelu_pytorch_tanh: GeGLU
    // Per layer: 3584 x (4096 + 2 x 2048) + 4096 x 3584 = 44.0M attention, 3 x 3584 x 14336
    // = 154.1M MLP; 42 layers + 256000 x 3584 tied embedding = 9.241B.
    CHECK(within(billions(m.total_params()), 9.24, 0.005));
  }
  SECTION("Gemma 3 12B: text_config with Gemma3TextConfig defaults; 1,012M + 10,759M (Gemma 3 report, table 1)") {
    const ModelSpec m = arch("gemma-3-12b-it");
    CHECK(m.architecture == "Gemma3ForConditionalGeneration");
    CHECK(m.head_dim == 256);      // default (hidden 3840 / 16 heads would be 240)
    CHECK(m.vocab == 262208);      // default
    CHECK(m.max_context == 131072);
    CHECK(m.local.span == 1024);
    CHECK(m.local.layers == 40);   // sliding_window_pattern 6: 8 of 48 global
    // The language model only: the report's embedding + non-embedding parameters (the
    // 417M vision encoder is not served by servesim's model).
    CHECK(within(billions(m.total_params()), 1.012 + 10.759, 0.005));
  }
  SECTION("Llama 4 Scout: 17B active, 109B total with the vision encoder (model card)") {
    const ModelSpec m = arch("llama-4-scout-17b-16e-instruct");
    CHECK(m.local.kind == LocalAttention::Kind::chunked);
    CHECK(m.local.span == 8192);
    CHECK(m.local.layers == 36);   // no_rope_layers empty: NoPE every 4th layer (12), chunked on the rest
    CHECK(m.moe.num_experts == 16);
    CHECK(m.moe.shared_experts == 1);
    CHECK(m.moe_layers() == 48);   // interleave_moe_layer_step 1
    // The published total counts the vision encoder too, from the config's vision_config:
    // 34 layers of 4 x 1408^2 attention + 2 x 1408 x 5632 MLP (0.81B), and its adapter and
    // projector (5632 x 4096 + 4096 x 4096 + 4096 x 5120: 0.06B).
    const double vision = 34.0 * (4.0 * 1408 * 1408 + 2.0 * 1408 * 5632) + 5632.0 * 4096 + 4096.0 * 4096 + 4096.0 * 5120;
    CHECK(within(billions(m.total_params()) + vision / 1e9, 109.0, 0.005));
    CHECK(within(billions(m.active_params()), 17.0, 0.02));
  }
  SECTION("Llama 4 Maverick: MoE on every other layer, dense intermediate_size_mlp between; 400B total") {
    const ModelSpec m = arch("llama-4-maverick-17b-128e-instruct");
    CHECK(m.moe.layer_step == 2);
    CHECK(m.moe_layers() == 24);   // layers 1, 3, ..., 47
    CHECK(m.ffn == 16384);         // intermediate_size_mlp, the 24 dense layers
    CHECK(m.moe.expert_ffn == 8192);
    const double vision = 34.0 * (4.0 * 1408 * 1408 + 2.0 * 1408 * 5632) + 5632.0 * 4096 + 4096.0 * 4096 + 4096.0 * 5120;
    CHECK(within(billions(m.total_params()) + vision / 1e9, 400.0, 0.005));
    CHECK(within(billions(m.active_params()), 17.0, 0.02));
  }
  SECTION("Mistral 7B v0.1: a 4096-token window on every layer; 7.24B (Hugging Face page)") {
    const ModelSpec m = arch("mistral-7b-v0.1");
    CHECK(m.local.layers == 32);
    CHECK(m.local.span == 4096);
    CHECK(within(billions(m.total_params()), 7.24, 0.005));
  }
  SECTION("catalog YAMLs count the same as their config.json imports") {
    CHECK(load_model("gemma-2-9b").total_params() == arch("gemma-2-9b").total_params());
    CHECK(load_model("gemma-3-12b").total_params() == arch("gemma-3-12b-it").total_params());
    CHECK(load_model("llama-4-scout-17b-16e").total_params() == arch("llama-4-scout-17b-16e-instruct").total_params());
    CHECK(load_model("llama-4-maverick-17b-128e").total_params() ==
          arch("llama-4-maverick-17b-128e-instruct").total_params());
    CHECK(load_model("mistral-7b-v0.1").total_params() == arch("mistral-7b-v0.1").total_params());
    CHECK(load_model("llama-4-maverick-17b-128e").local.layers == 36);
    // Gemma 2 27B, Gemma 3 27B (no fixture): the reports' totals (27.2B; 1,416M + 25,600M).
    CHECK(within(billions(load_model("gemma-2-27b").total_params()), 27.2, 0.005));
    CHECK(within(billions(load_model("gemma-3-27b").total_params()), 1.416 + 25.600, 0.005));
    CHECK(within(billions(load_model("mistral-small-24b").total_params()), 23.6, 0.005));
  }
}
