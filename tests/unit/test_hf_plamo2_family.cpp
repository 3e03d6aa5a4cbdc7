// PLaMo 2 (hf_plamo2_family.cpp): Mamba layers whose B, C and dt come from the convolution's
// output (StateLayers' mamba2_bcdt kind) and attention every mamba_step-th layer, a SiLU MLP
// on every layer (vLLM's plamo2.py). Counted by hand on PLaMo 2 1B's config
// (tests/fixtures/hf_configs_from_fields/plamo-2-1b; see its PROVENANCE.md).
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "cost/step_cost.h"
#include "hf_fixtures.h"
#include "hf_step_helpers.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::decode_step;
using servesim::testing::error_of;
using servesim::testing::hf::op_named;
using servesim::testing::hf::setup_of;
using Catch::Contains;

namespace {

std::string plamo2_1b() { return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/plamo-2-1b"; }

nlohmann::json config_1b() {
  std::ifstream in(plamo2_1b() + "/config.json");
  return nlohmann::json::parse(in);
}

ModelSpec load(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-plamo2-", tag);
}

}  // namespace

TEST_CASE("PLaMo 2 1B counted by hand: 8 Mamba layers with B, C, dt from the conv, 8 attention layers",
          "[hf][plamo2]") {
  const ModelSpec m = load_model(plamo2_1b());
  // mamba_step 2: layer i is Mamba unless i mod 2 = 1.
  CHECK(m.state.kind == StateLayers::Kind::mamba2_bcdt);
  CHECK(m.state.layers == 8);
  CHECK(m.attention_layers() == 8);
  CHECK(m.mlp_layers() == 16);
  CHECK(m.state.dt_rank == 128);  // max(64, 2048 / 16)
  // Mamba layer (hidden 2048, 32 heads of 128: d_inner 4096, state 64):
  //   in_proj 2048 x 2 x 4096 = 16,777,216; conv 4096 x 4 = 16,384 (no bias);
  //   bcdt_proj 4096 x (128 + 2 x 64) = 1,048,576; dt_proj 128 x 32 = 4,096;
  //   A, D, dt_bias 3 x 32 = 96; dt, B, C norms 128 + 64 + 64 = 256; out_proj 4096 x 2048 = 8,388,608
  //   = 26,235,232.
  CHECK(m.state.params_per_layer(2048) == 26235232);
  // Attention layer: q, k, v 2048 x (16 + 2) x 128 = 4,718,592; o 2048 x 2048 = 4,194,304.
  CHECK(m.attention_params_per_layer() == 8912896);
  // Total: 8 x 26,235,232 = 209,881,856; 8 x 8,912,896 = 71,303,168; MLP 16 x 3 x 2048 x 8192 =
  // 805,306,368; norms (8 + 8 + 16) x 2048 = 65,536 (the post-norms and per-head q/k norms not
  // counted); tied table 100,000 x 2048 = 204,800,000; final norm 2,048: 1,291,358,976.
  CHECK(m.total_params() == 1291358976);
  // KV: 8 attention layers x 1 KV head x 128 x 2 (K, V) x 2 B = 4,096 bytes a token.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 4096.0);
  // State a sequence: 8 x (32 x 128 x 64 recurrent + 3 x 4096 conv) x 2 B = 8 x 548,864 = 4,390,912.
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 4390912.0);
}

TEST_CASE("PLaMo 2: a decode step prices the bcdt and dt projections and the one-group scan", "[hf][plamo2]") {
  const Setup s = setup_of(plamo2_1b(), 1);
  const CostModel cost = make_cost_model(s);
  const StepCost d = decode_step(cost, 16, 1000);
  // bcdt_proj and dt_proj: 8 layers x 1,052,672 weights x 2 B, 2 x 16 tokens x them FLOPs.
  const OpCost& mid = op_named(d, "state_x_dt_proj");
  CHECK(mid.weight_bytes == Approx(8.0 * 1052672 * 2).epsilon(1e-12));
  CHECK(mid.flops == Approx(2.0 * 16 * 8 * 1052672).epsilon(1e-12));
  // in_proj: hidden -> 2 x d_inner, 8 x 2048 x 8192 x 2 B.
  CHECK(op_named(d, "state_in_proj").weight_bytes == Approx(8.0 * 2048 * 8192 * 2).epsilon(1e-12));
  // The scan per token and layer: 32 heads x 6 x 128 x 64 plus the conv 2 x 4 x 4096 = 1,605,632.
  CHECK(s.model.state.decode_flops_per_token() == 1605632.0);
}

TEST_CASE("PLaMo 2: the layer pattern follows mamba_step and mamba_enabled", "[hf][plamo2]") {
  nlohmann::json j = config_1b();
  j["mamba_step"] = 4;  // attention where i mod 4 = 2: layers 2, 6, 10, 14
  const ModelSpec four = load(j, "step4");
  CHECK(four.state.layers == 12);
  CHECK(four.attention_layers() == 4);
  j["num_hidden_layers"] = 2;  // 2 <= 4 / 2: every layer Mamba but the last
  const ModelSpec two = load(j, "two");
  CHECK(two.state.layers == 1);
  CHECK(two.attention_layers() == 1);
  j = config_1b();
  j["mamba_enabled"] = false;
  const ModelSpec dense = load(j, "dense");
  CHECK_FALSE(dense.state.enabled());
  CHECK(dense.attention_layers() == 16);
  j = config_1b();
  j["hidden_act"] = "gelu";
  CHECK_THAT(error_of([&] { load(j, "gelu"); }), Contains("SiLU-gated"));
  j = config_1b();
  j.erase("hidden_size_per_head");
  CHECK_THAT(error_of([&] { load(j, "nohead"); }), Contains("hidden_size_per_head"));
}
