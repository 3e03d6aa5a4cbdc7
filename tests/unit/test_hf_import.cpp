// Hugging Face config.json import (sim/model/hf_import.cpp) against the catalog
// YAMLs, plus its error paths. Fixtures: tests/fixtures/model_configs (copies of real
// configs, see PROVENANCE.md) and tests/fixtures/bad_configs (hand-written, broken).
#include <catch2/catch.hpp>

#include <string>

#include "config/catalog_reader.h"
#include "util/error.h"

using namespace servesim;
using Catch::Contains;

namespace {
std::string config_path(const std::string& dir) {
  return std::string(SERVESIM_TEST_FIXTURES) + "/model_configs/" + dir + "/config.json";
}
std::string bad_path(const std::string& dir) {
  return std::string(SERVESIM_TEST_FIXTURES) + "/bad_configs/" + dir + "/config.json";
}

// The imported spec must describe the same shapes as the hand-written catalog entry.
void check_matches_catalog(const ModelSpec& imported, const ModelSpec& cat, bool same_vocab = true) {
  CHECK(imported.layers == cat.layers);
  CHECK(imported.hidden == cat.hidden);
  CHECK(imported.heads == cat.heads);
  CHECK(imported.kv_heads == cat.kv_heads);
  CHECK(imported.head_dim == cat.head_dim);
  CHECK(imported.ffn == cat.ffn);
  CHECK(imported.gated_mlp == cat.gated_mlp);
  CHECK(imported.qkv_bias == cat.qkv_bias);
  CHECK(imported.tied_embeddings == cat.tied_embeddings);
  CHECK(imported.architecture == cat.architecture);
  if (same_vocab) CHECK(imported.vocab == cat.vocab);
  CHECK(imported.moe.num_experts == cat.moe.num_experts);
  CHECK(imported.moe.experts_per_token == cat.moe.experts_per_token);
  CHECK(imported.moe.shared_experts == cat.moe.shared_experts);
  CHECK(imported.moe.expert_ffn == cat.moe.expert_ffn);
  CHECK(imported.moe.dense_layers == cat.moe.dense_layers);
  // Parameter counts within 0.1% (exact when the shapes agree; the vocab-only
  // difference of Mixtral-8x22B-Instruct is 768*6144*2 = 9.4e6 of 1.4e11, < 0.01%).
  CHECK(static_cast<double>(imported.total_params()) ==
        Approx(static_cast<double>(cat.total_params())).epsilon(1e-3));
  CHECK(static_cast<double>(imported.active_params()) ==
        Approx(static_cast<double>(cat.active_params())).epsilon(1e-3));
  CHECK(imported.kv_bytes_per_token(DType::bf16) == cat.kv_bytes_per_token(DType::bf16));
}
}  // namespace

TEST_CASE("hf import: every supported config matches its catalog entry", "[hf]") {
  // fixture folder -> catalog name
  const std::pair<const char*, const char*> pairs[] = {
      {"codellama-34b-instruct-hf", "codellama-34b"},
      {"llama-2-70b-hf", "llama-2-70b"},
      {"llama-2-7b-hf", "llama-2-7b"},
      {"llama-3.1-70b-instruct", "llama-3.1-70b"},
      {"llama-3.1-8b-instruct", "llama-3.1-8b"},
      {"mistral-nemo-instruct-2407", "mistral-nemo-12b"},
      {"mixtral-8x22b-v0.1", "mixtral-8x22b"},
      {"mixtral-8x7b-v0.1", "mixtral-8x7b"},
      {"qwen2.5-7b-instruct", "qwen2.5-7b"},
      {"qwen3-14b", "qwen3-14b"},
      {"yi-34b", "yi-34b"},
  };
  for (const auto& [dir, name] : pairs) {
    INFO("config " << dir << " vs catalog " << name);
    ModelSpec imported;
    REQUIRE_NOTHROW(imported = import_hf_config(config_path(dir)));
    // The name comes from the folder holding config.json.
    CHECK(imported.name == dir);
    CHECK(imported.source_file == config_path(dir));
    const ModelSpec cat = load_model(name);
    check_matches_catalog(imported, cat);
  }
}

TEST_CASE("hf import: Mixtral-8x22B-Instruct differs from the base only in vocab", "[hf]") {
  const ModelSpec inst = import_hf_config(config_path("mixtral-8x22b-instruct-v0.1"));
  const ModelSpec base = import_hf_config(config_path("mixtral-8x22b-v0.1"));
  // vocab_size 32768 (instruct, v3 tokenizer) vs 32000 (base), as the catalog YAML notes.
  CHECK(inst.vocab == 32768);
  CHECK(base.vocab == 32000);
  check_matches_catalog(inst, load_model("mixtral-8x22b"), /*same_vocab=*/false);
  // Total differs by exactly the two extra embedding tables: 2*(32768-32000)*6144 = 9,437,184.
  CHECK(inst.total_params() - base.total_params() == 2 * 768 * 6144);
}

TEST_CASE("hf import: family-specific fields", "[hf]") {
  // Qwen2 has q/k/v biases by design although its config has no attention_bias field.
  CHECK(import_hf_config(config_path("qwen2.5-7b-instruct")).qkv_bias);
  // Llama 3.1 says attention_bias: false.
  CHECK_FALSE(import_hf_config(config_path("llama-3.1-8b-instruct")).qkv_bias);
  // Mistral-NeMo gives head_dim 128 explicitly, not hidden/heads = 5120/32 = 160.
  CHECK(import_hf_config(config_path("mistral-nemo-instruct-2407")).head_dim == 128);
  // torch_dtype float16 -> fp16, bfloat16 -> bf16.
  CHECK(import_hf_config(config_path("llama-2-7b-hf")).native_dtype == DType::fp16);
  CHECK(import_hf_config(config_path("llama-3.1-8b-instruct")).native_dtype == DType::bf16);
  // Mixtral experts: 8, top-2, each of the dense intermediate size 14336.
  const ModelSpec mx = import_hf_config(config_path("mixtral-8x7b-v0.1"));
  CHECK(mx.moe.num_experts == 8);
  CHECK(mx.moe.experts_per_token == 2);
  CHECK(mx.moe.expert_ffn == 14336);
}

TEST_CASE("hf import: load_model routes a .json path to the importer", "[hf]") {
  const ModelSpec m = load_model(config_path("llama-3.1-8b-instruct"));
  CHECK(m.name == "llama-3.1-8b-instruct");
  // 2*32*8*128*2 = 131,072 B of bf16 KV per token, as the catalog entry.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 131072.0);
}

TEST_CASE("hf import: Llama 4 Scout's multimodal wrapper is read through its text_config", "[hf]") {
  // The shipped FP8 re-upload: Llama4ForConditionalGeneration, text_config nested,
  // quantization_config at the top level.
  const ModelSpec m = import_hf_config(config_path("llama-4-scout-17b-16e-instruct-fp8-dynamic"));
  CHECK(m.architecture == "Llama4ForConditionalGeneration");
  CHECK(m.layers == 48);
  CHECK(m.moe.num_experts == 16);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.local.kind == LocalAttention::Kind::chunked);
  CHECK(m.local.span == 8192);
  CHECK(m.local.layers == 36);  // no_rope_layers []: NoPE on every 4th layer
  CHECK(m.native_dtype == DType::fp8);
  // The same shapes as the catalog entry (bf16 there).
  CHECK(m.total_params() == load_model("llama-4-scout-17b-16e").total_params());
}

TEST_CASE("hf import: malformed JSON names the file", "[hf][errors]") {
  const std::string path = bad_path("malformed");
  REQUIRE_THROWS_WITH(import_hf_config(path), Contains("bad_configs/malformed/config.json") &&
                                                  Contains("not valid JSON"));
}

TEST_CASE("hf import: a missing required field names the file and the field", "[hf][errors]") {
  const std::string path = bad_path("missing_layers");
  REQUIRE_THROWS_WITH(import_hf_config(path), Contains("bad_configs/missing_layers/config.json") &&
                                                  Contains("missing field 'num_hidden_layers'"));
}

TEST_CASE("hf import: a field of the wrong type names the file and the field", "[hf][errors]") {
  // "num_hidden_layers": "32" is a string, not an integer.
  const std::string path = bad_path("wrong_type");
  REQUIRE_THROWS_WITH(import_hf_config(path), Contains("bad_configs/wrong_type/config.json") &&
                                                  Contains("'num_hidden_layers' must be an integer") &&
                                                  Contains("\"32\""));
}

TEST_CASE("hf import: a missing file is reported", "[hf][errors]") {
  const std::string path = bad_path("does-not-exist");
  REQUIRE_THROWS_WITH(import_hf_config(path), Contains("does-not-exist/config.json: cannot open config.json"));
}

TEST_CASE("hf import: heads not divisible by KV heads are rejected", "[hf][errors]") {
  // 32 query heads cannot be grouped over 5 KV heads (32 % 5 = 2).
  REQUIRE_THROWS_WITH(import_hf_config(bad_path("bad_gqa")),
                      Contains("bad_configs/bad_gqa/config.json") &&
                          Contains("32 attention heads are not a multiple of 5 KV heads"));
}

TEST_CASE("hf import: architectures must be present and a list of strings", "[hf][errors]") {
  REQUIRE_THROWS_WITH(import_hf_config(bad_path("no_architectures")),
                      Contains("no_architectures/config.json") && Contains("missing field 'architectures'"));
  // [7] is a list, but not of strings: a servesim::Error, not a JSON library exception.
  REQUIRE_THROWS_AS(import_hf_config(bad_path("bad_architectures")), Error);
  REQUIRE_THROWS_WITH(import_hf_config(bad_path("bad_architectures")),
                      Contains("bad_architectures/config.json") && Contains("'architectures' must be a list of strings"));
}
