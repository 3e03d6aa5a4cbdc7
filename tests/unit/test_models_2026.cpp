// The current model families read from their published config.json files
// (tests/fixtures/hf_configs_2026/, PROVENANCE.md there): every one loads, and each total
// and active parameter count is within 2% of the figure its publisher gives (cited per
// case). Publishers round to two or three significant figures and define "active" their
// own way (model_spec.h ActiveCount: both embedding tables, only the LM head, or neither),
// which the importer sets per family and each case names.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "model/hf_json.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using servesim::testing::error_of;
using Catch::Contains;

namespace {
std::string fixture(const std::string& name) { return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_2026/" + name; }
ModelSpec load(const std::string& name) { return load_model(fixture(name)); }
double billions(std::int64_t n) { return static_cast<double>(n) / 1e9; }
bool within(double value, double published, double rel) { return std::fabs(value - published) <= rel * published; }

// The fixtures of architectures servesim does not describe (kept to test the refusal).
bool refused(const std::string& name) {
  return name == "deepseek-v4-flash" || name == "step-3.7-flash" || name == "mimo-v2-flash";
}
}  // namespace

TEST_CASE("models 2026: every collected config.json of a known family loads", "[hf][models2026]") {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixture(""))) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    if (refused(name)) continue;
    INFO(name);
    ModelSpec m;
    REQUIRE_NOTHROW(m = load_model(entry.path().string()));
    CHECK(m.total_params() > 0);
    CHECK(m.active_params() <= m.total_params());
    ++loaded;
  }
  CHECK(loaded >= 40);
}

TEST_CASE("models 2026: an unknown architecture is refused naming what is missing", "[hf][models2026]") {
  // DeepSeek-V4 (compressed sparse attention), Step-3.7, MiMo-V2: no description of their layers.
  for (const char* name : {"deepseek-v4-flash", "step-3.7-flash", "mimo-v2-flash"}) {
    INFO(name);
    const std::string e = error_of([&] { load(name); });
    CHECK_THAT(e, Contains("is not supported: servesim has no description of its layers"));
    CHECK_THAT(e, Contains("model_type"));
    CHECK_THAT(e, Contains("Supported:"));
  }
  CHECK_THAT(error_of([&] { load("deepseek-v4-flash"); }), Contains("'DeepseekV4ForCausalLM' (model_type 'deepseek_v4')"));
}

TEST_CASE("models 2026: gpt-oss", "[hf][models2026]") {
  // OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card" (2025), table 1: total 116.83B / 20.91B;
  // active 5.13B / 3.61B, counting the unembedding and not the embedding.
  const ModelSpec big = load("gpt-oss-120b"), small = load("gpt-oss-20b");
  CHECK(big.attention_sinks);
  CHECK(big.local.kind == LocalAttention::Kind::sliding);
  CHECK(big.local.span == 128);
  CHECK(big.local.layers == 18);  // layer_types: sliding on the even layers
  CHECK(big.active_count == ModelSpec::ActiveCount::lm_head_only);
  CHECK(within(billions(big.total_params()), 116.83, 0.005));
  CHECK(within(billions(big.active_params()), 5.13, 0.01));
  CHECK(within(billions(small.total_params()), 20.91, 0.005));
  CHECK(within(billions(small.active_params()), 3.61, 0.01));
  // One layer of gpt-oss-20b by hand: attention 2880 x (4096 + 2 x 512) + its biases (4096 +
  // 1024 + 2880) + o_proj 4096 x 2880 + 64 sinks = 26,550,336; 32 experts of 3 x 2880 x 2880
  // plus biases 2 x 2880 + 2880 = 24,891,840 each, the router 2880 x 32 + 32.
  CHECK(small.attention_params_per_layer() == 2880LL * 5120 + 4096 + 1024 + 2880 + 4096LL * 2880 + 64);
  CHECK(small.moe_params_per_layer() == 32LL * (3LL * 2880 * 2880 + 3 * 2880) + 2880 * 32 + 32);
}

TEST_CASE("models 2026: DeepSeek-V3.2 and the Kimi-K2 family", "[hf][models2026]") {
  // DeepSeek-V3 technical report: 671B total, 37B activated; V3.2 adds the indexer (0.85B).
  const ModelSpec v32 = load("deepseek-v3.2");
  CHECK(v32.indexer.enabled());
  CHECK(v32.local.kind == LocalAttention::Kind::topk);
  CHECK(v32.local.span == 2048);
  CHECK(v32.local.layers == 61);
  CHECK(within(billions(v32.total_params()), 671.0, 0.02));
  CHECK(within(billions(v32.active_params()), 37.0, 0.02));
  // Kimi K2 report ("Kimi K2: Open Agentic Intelligence", 2025): 1.04T total, 32B activated. Its
  // K2.5 wraps the same text model (text_config: DeepseekV3ForCausalLM) beside a vision encoder.
  for (const char* name : {"kimi-k2-instruct", "kimi-k2-thinking", "kimi-k2.5"}) {
    INFO(name);
    const ModelSpec k = load(name);
    CHECK(k.moe.num_experts == 384);
    CHECK(within(billions(k.total_params()), 1040.0, 0.02));
    CHECK(within(billions(k.active_params()), 32.0, 0.02));
  }
  CHECK(load("kimi-k2.5").vision_params_estimate > 0);  // said to be left out
}

TEST_CASE("models 2026: Qwen3 MoE, Qwen3-Next and Qwen3.5 totals", "[hf][models2026]") {
  // Model cards: Qwen3-235B-A22B 235B / 22B; Qwen3-30B-A3B 30.5B / 3.3B (both tables counted);
  // Qwen3-Next-80B-A3B 80B total; Qwen3.5-397B-A17B 397B, 122B-A10B 122B, 27B 27B (their active
  // figures are the names' rounded "A3B", "A17B": see the report for the error against them).
  CHECK(within(billions(load("qwen3-235b-a22b").total_params()), 235.0, 0.02));
  CHECK(within(billions(load("qwen3-235b-a22b").active_params()), 22.0, 0.02));
  CHECK(within(billions(load("qwen3-30b-a3b").total_params()), 30.5, 0.02));
  CHECK(within(billions(load("qwen3-30b-a3b").active_params()), 3.3, 0.02));
  const ModelSpec next = load("qwen3-next-80b-a3b-thinking");
  CHECK(next.state.kind == StateLayers::Kind::gated_delta);
  CHECK(next.state.layers == 36);  // full_attention_interval 4: 12 of 48 layers attend
  CHECK(next.attention_layers() == 12);
  CHECK(next.attention_output_gate);
  CHECK(within(billions(next.total_params()), 80.0, 0.02));
  CHECK(within(billions(load("qwen3.5-397b-a17b").total_params()), 397.0, 0.02));
  CHECK(within(billions(load("qwen3.5-122b-a10b").total_params()), 122.0, 0.02));
  CHECK(within(billions(load("qwen3.5-27b").total_params()), 27.0, 0.02));
  const ModelSpec q35 = load("qwen3.5-397b-a17b");
  CHECK(q35.state.state_dtype == DType::fp32);  // mamba_ssm_dtype float32
  CHECK(q35.state.layers == 45);               // layer_types: 45 linear, 15 full
  CHECK(q35.mtp_layers == 1);
}

TEST_CASE("models 2026: GLM, MiniMax, Nemotron and Jamba", "[hf][models2026]") {
  // GLM-4.5 model card (GLM-4.7's architecture): 355B total, 32B active, neither table counted.
  const ModelSpec glm = load("glm-4.7-fp8-trimmed");
  CHECK(within(billions(glm.total_params()), 355.0, 0.02));
  CHECK(within(billions(glm.active_params()), 32.0, 0.02));
  // MiniMax-M2 model card: 230B total, 10B active (M2.5 has the M2's shapes).
  const ModelSpec mm = load("minimax-m2.5");
  CHECK(within(billions(mm.total_params()), 230.0, 0.02));
  CHECK(within(billions(mm.active_params()), 10.0, 0.02));
  // NVIDIA Nemotron 3 Nano model card: 31.6B total, 3.2B active (3.6B with embeddings).
  const ModelSpec nano = load("nemotron-3-nano-30b-a3b");
  CHECK(nano.state.kind == StateLayers::Kind::mamba2);
  CHECK(nano.state.layers == 23);
  CHECK(nano.attention_layers() == 6);
  CHECK(nano.moe_layers() == 23);
  CHECK(nano.dense_mlp_layers() == 0);
  CHECK(within(billions(nano.total_params()), 31.6, 0.02));
  CHECK(within(billions(nano.active_params()), 3.2, 0.02));
  CHECK(within(billions(nano.active_params_all_tables()), 3.6, 0.02));
  // Nemotron 3 Super 120B-A12B (its name): latent MoE of 512 experts, top-22.
  const ModelSpec super = load("nemotron-3-super-120b-a12b-fp8");
  CHECK(super.moe.latent == 1024);
  CHECK(within(billions(super.total_params()), 120.0, 0.02));
  CHECK(within(billions(super.active_params()), 12.0, 0.02));
  // Nemotron-H-56B (its name; "Nemotron-H" report, 2025): 54 Mamba-2, 10 attention, 54 MLP blocks.
  const ModelSpec h56 = load("nemotron-h-56b-base-8k");
  CHECK(h56.attention_layers() == 10);
  CHECK(within(billions(h56.total_params()), 56.0, 0.02));
  // Jamba (transformers' Jamba docs, model card): 52B total, 12B active; attention on 4 of 32
  // layers (i % 8 == 4), MoE on 16 (i % 2 == 1).
  const ModelSpec jamba = load("jamba-v0.1");
  CHECK(jamba.state.kind == StateLayers::Kind::mamba1);
  CHECK(jamba.attention_layers() == 4);
  CHECK(jamba.moe_layers() == 16);
  CHECK(within(billions(jamba.total_params()), 52.0, 0.02));
  CHECK(within(billions(jamba.active_params()), 12.0, 0.02));
}

TEST_CASE("models 2026: JSON as Hugging Face writes it", "[hf][models2026]") {
  // Python's json writes non-finite floats bare; they become strings, and strings stay as they are.
  CHECK(quote_nonfinite_json_tokens(R"({"a": [0.0, Infinity], "b": -Infinity, "c": NaN})") ==
        R"({"a": [0.0, "Infinity"], "b": "-Infinity", "c": "NaN"})");
  CHECK(quote_nonfinite_json_tokens(R"({"s": "Infinity \" NaN", "InfinityX": 1})") ==
        R"({"s": "Infinity \" NaN", "InfinityX": 1})");
  // Nemotron-H-56B's config.json holds "time_step_limit": [0.0, Infinity].
  CHECK_NOTHROW(load("nemotron-h-56b-base-8k"));
}

TEST_CASE("models 2026: wrappers and hybrids built from their documented fields", "[hf][models2026]") {
  // Configs written here from the fields the families document (no published file among the
  // fixtures): a Mistral 3 wrapper around a "ministral3" text model, and a Granite 4.0-H hybrid.
  const auto dir = std::filesystem::temp_directory_path() / "servesim-models2026";
  auto write = [&](const std::string& name, const nlohmann::json& j) {
    std::filesystem::create_directories(dir / name);
    std::ofstream((dir / name / "config.json").string()) << j.dump(2) << "\n";
    return (dir / name).string();
  };
  SECTION("Mistral3ForConditionalGeneration reads its text_config by model_type") {
    // Ministral 3 8B's text shapes (34 layers of 4096, 32 heads, 8 KV heads of 128).
    const nlohmann::json j = {
        {"architectures", {"Mistral3ForConditionalGeneration"}},
        {"model_type", "mistral3"},
        {"torch_dtype", "bfloat16"},
        {"text_config",
         {{"model_type", "ministral3"}, {"hidden_size", 4096}, {"num_hidden_layers", 34}, {"num_attention_heads", 32},
          {"num_key_value_heads", 8}, {"head_dim", 128}, {"intermediate_size", 14336}, {"vocab_size", 131072},
          {"max_position_embeddings", 262144}, {"hidden_act", "silu"}, {"tie_word_embeddings", false}}},
        {"vision_config", {{"hidden_size", 1024}, {"num_hidden_layers", 24}, {"intermediate_size", 4096},
                           {"patch_size", 14}}}};
    const ModelSpec m = load_model(write("ministral3", j));
    CHECK(m.layers == 34);
    CHECK(!m.moe.enabled());
    // 34 x (4096 x (4096 + 2 x 1024) + 4096 x 4096 + 3 x 4096 x 14336) + 2 x 131072 x 4096 + norms.
    CHECK(m.total_params() ==
          34LL * (4096LL * 6144 + 4096LL * 4096 + 3LL * 4096 * 14336) + 2LL * 131072 * 4096 + (2LL * 34 + 1) * 4096);
    // The vision encoder, estimated and left out: 24 x (4 x 1024^2 + 2 x 1024 x 4096) + 3 x 14^2 x 1024.
    CHECK(m.vision_params_estimate == 24LL * (4LL * 1024 * 1024 + 2LL * 1024 * 4096) + 3LL * 14 * 14 * 1024);
  }
  SECTION("GraniteMoeHybrid: Mamba-2 layers from layer_types, a shared MLP") {
    // Granite 4.0-H-Micro's fields: 40 layers, attention on 4 (5, 15, 25, 35), 64 Mamba-2 heads of
    // 64, d_state 128, one group, conv 4; a shared MLP of 8192, no routed experts.
    nlohmann::json types = nlohmann::json::array();
    for (int i = 0; i < 40; ++i) types.push_back(i % 10 == 5 ? "attention" : "mamba");
    const nlohmann::json j = {{"architectures", {"GraniteMoeHybridForCausalLM"}},
                              {"model_type", "granitemoehybrid"},
                              {"hidden_size", 2048},
                              {"num_hidden_layers", 40},
                              {"num_attention_heads", 32},
                              {"num_key_value_heads", 8},
                              {"intermediate_size", 8192},
                              {"shared_intermediate_size", 8192},
                              {"num_local_experts", 0},
                              {"layer_types", types},
                              {"mamba_n_heads", 64},
                              {"mamba_d_head", 64},
                              {"mamba_d_state", 128},
                              {"mamba_n_groups", 1},
                              {"mamba_d_conv", 4},
                              {"vocab_size", 100352},
                              {"max_position_embeddings", 131072},
                              {"tie_word_embeddings", true}};
    const ModelSpec m = load_model(write("granite-h", j));
    CHECK(m.state.kind == StateLayers::Kind::mamba2);
    CHECK(m.state.layers == 36);
    CHECK(m.attention_layers() == 4);
    CHECK(m.ffn == 8192);
    // State per sequence (bf16): 36 x (64 x 64 x 128 x 2 + (64 x 64 + 2 x 128) x 3 x 2).
    CHECK(m.state_bytes_per_sequence(DType::bf16) == 36.0 * (64.0 * 64 * 128 * 2 + (64.0 * 64 + 2 * 128) * 3 * 2));
    // KV only in the 4 attention layers: 4 x 2 x 8 x 64 x 2 bytes a token.
    CHECK(m.kv_bytes_per_token(DType::bf16) == 4.0 * 2 * 8 * 64 * 2);
  }
}
