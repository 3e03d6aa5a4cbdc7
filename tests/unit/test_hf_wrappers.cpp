// Multimodal wrappers that keep their language model under a key other than text_config /
// llm_config (hf_import.cpp, wrapped_text_model): Qwen2.5-Omni / Qwen3-Omni's thinker_config
// .text_config, DeepSeek-VL2's language_config; and DeepSeek-V2 language models with use_mla
// false (DeepSeek-VL2-Tiny). Each is built from a shipped config whose totals other tests check,
// so the expected figures are that config's plus a closed-form difference.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "hf_fixtures.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::hf::load;
using servesim::testing::hf::load_edited;
using servesim::testing::hf::read_fixture;
using nlohmann::json;

TEST_CASE("hf wrappers: Qwen3-Omni's thinker text model is a Qwen3-MoE", "[hf][wrappers]") {
  // Qwen/Qwen3-Omni-30B-A3B-Instruct's thinker_config.text_config (model_type
  // qwen3_omni_moe_text, as transformers' Qwen3OmniMoeTextConfig and third-party code quoting
  // the published config give it): hidden 2048, 48 layers, 32 query / 4 KV heads of 128, 128
  // experts top-8 of width 768, untied, vocabulary 152064 -- Qwen3-30B-A3B's shapes (the
  // shipped fixture) except its vocabulary of 151936.
  const json base = read_fixture("qwen3-30b-a3b");
  json text = base;
  text.erase("architectures");
  text["model_type"] = "qwen3_omni_moe_text";
  text["vocab_size"] = 152064;
  const json omni = {{"architectures", {"Qwen3OmniMoeForConditionalGeneration"}},
                     {"model_type", "qwen3_omni_moe"},
                     {"thinker_config", {{"model_type", "qwen3_omni_moe_thinker"},
                                         {"text_config", text},
                                         {"vision_config", {{"depth", 27}, {"hidden_size", 1152}}}}},
                     {"talker_config", {{"text_config", {{"hidden_size", 1024}, {"num_hidden_layers", 20}}}}}};
  const ModelSpec m = load_edited(omni, "servesim-wrappers-", "qwen3-omni");
  const ModelSpec q = load("qwen3-30b-a3b");
  CHECK(m.moe.num_experts == 128);
  CHECK(m.moe.experts_per_token == 8);
  // Two untied tables, 128 more rows of 2048 each: 2 x 128 x 2048 = 524,288 parameters more.
  CHECK(m.total_params() - q.total_params() == 2LL * 128 * 2048);
  // Counted with both tables, the active parameters differ by the same rows.
  CHECK(m.active_params_all_tables() - q.active_params_all_tables() == 2LL * 128 * 2048);
  CHECK(m.kv_heads == 4);
  CHECK(m.vision_params_estimate > 0);  // the thinker's vision tower is said to be left out

  SECTION("Qwen2.5-Omni's thinker text model (qwen2_5_omni_text) reads as Qwen2 with q/k/v biases") {
    json t2 = read_fixture("qwen2.5-vl-3b-instruct");
    t2.erase("architectures");
    t2.erase("vision_config");
    t2["model_type"] = "qwen2_5_omni_text";
    const json w = {{"architectures", {"Qwen2_5OmniModel"}},
                    {"model_type", "qwen2_5_omni"},
                    {"thinker_config", {{"text_config", t2}}}};
    const ModelSpec o = load_edited(w, "servesim-wrappers-", "qwen25-omni");
    const ModelSpec vl = load("qwen2.5-vl-3b-instruct");
    // The same text model as Qwen2.5-VL-3B's top-level fields: the same parameters.
    CHECK(o.total_params() == vl.total_params());
  }
}

TEST_CASE("hf wrappers: DeepSeek-VL2's language_config, and use_mla false", "[hf][wrappers]") {
  // DeepSeek-VL2 (deepseek-ai/DeepSeek-VL2, DeepseekVLV2ForCausalLM) holds a DeepSeek-V2/V3
  // language model under language_config. Built here from DeepSeek-R1's shipped config.
  json lm = read_fixture("deepseek-r1");
  const json wrapper = {{"architectures", {"DeepseekVLV2ForCausalLM"}},
                        {"model_type", "deepseek_vl_v2"},
                        {"language_config", lm},
                        {"vision_config", {{"width", 1152}, {"layers", 27}}}};
  const ModelSpec m = load_edited(wrapper, "servesim-wrappers-", "dsvl2");
  const ModelSpec r1 = load("deepseek-r1");
  CHECK(m.total_params() == r1.total_params());
  CHECK(m.active_params() == r1.active_params());
  CHECK(m.mla.enabled());

  SECTION("use_mla false: multi-head attention, kv_lora_rank unused (DeepSeek-VL2-Tiny)") {
    json mha = wrapper;
    mha["language_config"]["use_mla"] = false;
    const ModelSpec t = load_edited(mha, "servesim-wrappers-", "dsvl2-mha");
    CHECK(!t.mla.enabled());
    CHECK(t.kv_heads == t.heads);  // DeepSeek-V2 MHA: one KV head per query head
  }
}

namespace {
nlohmann::json model_config(const std::string& name) {
  std::ifstream in(std::string(SERVESIM_TEST_FIXTURES) + "/model_configs/" + name + "/config.json");
  return nlohmann::json::parse(in);
}
}  // namespace

TEST_CASE("hf wrappers: MiniCPM-V's version names its language model", "[hf][wrappers]") {
  // openbmb/MiniCPM-V-2_6 ("built on SigLip-400M and Qwen2-7B", its model card): architectures
  // ["MiniCPMV"], version "2.6", Qwen2-7B's fields at the top level with a vocabulary of 151666.
  // Qwen2.5-7B-Instruct (the shipped fixture) has Qwen2-7B's shapes and 152064 rows.
  json v26 = model_config("qwen2.5-7b-instruct");
  v26["architectures"] = {"MiniCPMV"};
  v26["model_type"] = "minicpmv";
  v26["version"] = "2.6";
  v26["vocab_size"] = 151666;
  v26["query_num"] = 64;
  v26["vision_config"] = {{"hidden_size", 1152}, {"intermediate_size", 4304}, {"num_hidden_layers", 27}};
  const ModelSpec m = load_edited(v26, "servesim-wrappers-", "minicpmv-2.6");
  const ModelSpec qwen = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/model_configs/qwen2.5-7b-instruct");
  CHECK(m.qkv_bias);  // Qwen2's q/k/v biases, as the 2.6 model's LLM has them
  // Untied tables 398 rows shorter: 2 x (152064 - 151666) x 3584 = 2,852,864 fewer parameters.
  CHECK(qwen.total_params() - m.total_params() == 2LL * (152064 - 151666) * 3584);
  CHECK(m.vision_params_estimate > 0);

  SECTION("MiniCPM-o 2.6 is a Qwen2 too; 2.5 and 4.0 a Llama (no biases)") {
    json o = v26;
    o["architectures"] = {"MiniCPMO"};
    CHECK(load_edited(o, "servesim-wrappers-", "minicpmo").qkv_bias);
    json v25 = v26;
    v25["version"] = "2.5";
    CHECK(!load_edited(v25, "servesim-wrappers-", "minicpmv-2.5").qkv_bias);
  }
  SECTION("an unknown version is refused naming the known ones") {
    json bad = v26;
    bad["version"] = "9.1";
    CHECK_THAT(servesim::testing::error_of([&] { load_edited(bad, "servesim-wrappers-", "minicpmv-bad"); }),
               Catch::Contains("MiniCPMV version '9.1' is not known (2.0, 2.5, 2.6, 4.0 and 4.5 are"));
  }
}

TEST_CASE("hf wrappers: Phi-4-multimodal and Phi-3.5-vision read as their Phi-3 decoder", "[hf][wrappers]") {
  // Phi4MMConfig extends Phi3Config: the decoder's fields sit at the top level. The shipped
  // phi-4 config relabelled: the same decoder, so the same parameters (encoders and LoRA
  // adapters left out, docs/models.md).
  json j = read_fixture("phi-4");
  const ModelSpec phi4 = load("phi-4");
  for (const char* arch : {"Phi4MMForCausalLM", "Phi3VForCausalLM"}) {
    j["architectures"] = {arch};
    CHECK(load_edited(j, "servesim-wrappers-", arch).total_params() == phi4.total_params());
  }
}
