// Llama 3.2 Vision (hf_mllama_family.cpp): its 40 text layers are 32 Llama 3.1 self-attention
// layers and 8 cross-attention layers that a text request never runs. Counted by hand on the
// 11B's config (tests/fixtures/hf_configs_from_fields/llama-3.2-11b-vision): the cross layers
// are in the weights and the memory plan, not in a step, the KV cache or the active count, and
// the text layers price exactly as Llama-3.1-8B's.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "cost/memory_plan.h"
#include "cost/step_cost.h"
#include "hf_fixtures.h"
#include "hf_step_helpers.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::decode_step;
using servesim::testing::error_of;
using servesim::testing::hf::setup_of;
using Catch::Contains;

namespace {

std::string vision_11b() { return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/llama-3.2-11b-vision"; }

nlohmann::json config_11b() {
  std::ifstream in(vision_11b() + "/config.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("Mllama: Llama 3.2 Vision 11B's text model counted by hand, its cross-attention layers held and not run",
          "[hf][mllama]") {
  const ModelSpec m = load_model(vision_11b());
  CHECK(m.layers == 32);
  CHECK(m.cross_attention_layers == 8);
  // hidden 4096, 32 heads of 128, 8 KV heads, MLP 14336, vocabulary 128,256 untied.
  // A self-attention layer: q 4096 x 4096 + k, v 4096 x 1024 each + o 4096 x 4096 = 41,943,040;
  // MLP 3 x 4096 x 14336 = 176,160,768; two norms 8,192: 218,112,000.
  // A cross-attention layer: the same projections and MLP, q/k norms 2 x 128, two norms 8,192,
  // two gates: 218,112,258; x 8 = 1,744,898,064.
  CHECK(m.cross_attention_params_per_layer() == 218112258);
  CHECK(m.cross_attention_params() == 1744898064);
  // Total: 32 x 218,112,000 + 1,744,898,064 + 2 x 128,256 x 4096 (1,050,673,152) + the final norm
  // 4,096 = 9,775,159,312.
  CHECK(m.total_params() == 9775159312);
  // Touched by a text token: everything but the cross layers, 8,030,261,248: Llama-3.1-8B's count.
  CHECK(m.active_params() == 9775159312 - 1744898064);
  CHECK(m.active_params() == 8030261248);
  // KV of the 32 self-attention layers only: 32 x 8 x 128 x 2 (K and V) x 2 B = 131,072 bytes a token.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 131072.0);
  // The encoder (32 + 8 layers of 1280 wide, MLP 5120, patch 14): estimated, said, not counted:
  // 40 x (4 x 1280^2 + 2 x 1280 x 5120) + 3 x 14^2 x 1280 = 787,184,640.
  CHECK(m.vision_params_estimate == 787184640);
}

TEST_CASE("Mllama: the memory plan holds the cross layers, and a step prices only the text layers as Llama-3.1-8B's",
          "[hf][mllama]") {
  const Setup s = setup_of(vision_11b(), 1);
  const CostModel cost = make_cost_model(s);
  // bf16 on one GPU: every counted weight at 2 bytes, 19,550,318,624 bytes.
  CHECK(weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism()) == Approx(2.0 * 9775159312).epsilon(1e-12));
  // At TP 2 the cross layers split as the self layers do: q/k/v/o and the MLP halve, norms and
  // gates stay whole: 8 x ((41,943,040 + 176,160,768) / 2 + 8,192 + 256 + 2) x 2 B fewer than at TP 1
  // on the cross layers' part.
  const Setup s2 = setup_of(vision_11b(), 2);
  const CostModel cost2 = make_cost_model(s2);
  ModelSpec no_cross = s2.model;
  no_cross.cross_attention_layers = 0;
  CHECK(weight_bytes_per_gpu(s2.model, cost2.precision(), cost2.parallelism()) -
            weight_bytes_per_gpu(no_cross, cost2.precision(), cost2.parallelism()) ==
        Approx(8.0 * ((41943040.0 + 176160768.0) / 2 + 8192 + 256 + 2) * 2).epsilon(1e-12));
  // A decode step of 64 sequences at 2,000 tokens: the same as Llama-3.1-8B's (the catalog's
  // model), whose layers these are: nothing of the cross layers is priced.
  const Setup llama = servesim::parse_setup_only(
      servesim::parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nparallelism: {tp: 1}\n"
                                "engine: {prefix_caching: false}\n"),
      "s.yaml");
  const StepCost a = decode_step(cost, 64, 2000), b = decode_step(make_cost_model(llama), 64, 2000);
  CHECK(a.flops == Approx(b.flops).epsilon(1e-12));
  CHECK(a.time == Approx(b.time).epsilon(1e-9));
}

TEST_CASE("Mllama: a config whose cross_attention_layers cannot be its layers is refused", "[hf][mllama]") {
  auto err = [&](nlohmann::json j, const std::string& tag) {
    return error_of([&] { servesim::testing::hf::load_edited(j, "servesim-mllama-", tag); });
  };
  nlohmann::json j = config_11b();
  j["text_config"].erase("cross_attention_layers");
  CHECK_THAT(err(j, "none"), Contains("missing field 'cross_attention_layers'"));
  j = config_11b();
  j["text_config"]["cross_attention_layers"] = {3, 8, 40};
  CHECK_THAT(err(j, "outside"), Contains("names layer 40, outside the 40 layers"));
  j = config_11b();
  j["text_config"]["cross_attention_layers"] = {3, 3};
  CHECK_THAT(err(j, "twice"), Contains("names layer 3 twice"));
  j = config_11b();
  j["text_config"]["hidden_act"] = "gelu";
  CHECK_THAT(err(j, "gelu"), Contains("SiLU-gated"));
}
