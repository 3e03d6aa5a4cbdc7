// Zamba2 (hf_zamba2_family.cpp): Mamba-2 on every layer, and on the hybrid layers a shared
// transformer block (attention over [hidden; embedding] and a gated GELU MLP) run first, its
// weights held num_mem_blocks times, each use with its own KV cache, adapters and linear map
// (transformers' modeling_zamba2.py, vLLM's zamba2.py). Counted by hand on Zamba2-7B's and
// Zamba2-2.7B's configs (tests/fixtures/hf_configs_from_fields/zamba2-*; see its PROVENANCE.md).
#include <catch2/catch.hpp>

#include <fstream>
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
using servesim::testing::hf::op_named;
using servesim::testing::hf::setup_of;
using Catch::Contains;

namespace {

std::string fixture(const std::string& name) {
  return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/" + name;
}

nlohmann::json config_7b() {
  std::ifstream in(fixture("zamba2-7b") + "/config.json");
  return nlohmann::json::parse(in);
}

ModelSpec load(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-zamba2-", tag);
}

}  // namespace

TEST_CASE("Zamba2-7B counted by hand: 81 Mamba-2 layers, 2 shared blocks run on 13 of them", "[hf][zamba2]") {
  const ModelSpec m = load_model(fixture("zamba2-7b"));
  CHECK(m.state.layers == 81);
  CHECK(m.attention_layers() == 13);
  CHECK(m.mlp_layers() == 13);
  CHECK(m.shared_blocks.blocks == 2);
  CHECK(m.shared_blocks.uses == 13);
  CHECK(m.head_dim == 224);  // 2 x 3584 / 32
  // hidden h = 3584, d_inner = 2 h = 7168, 112 heads of 64, 2 groups of state 64, conv of 4 taps.
  // Mamba-2 layer: in_proj 3584 x (2 x 7168 + 2 x 2 x 64 + 112 = 14,704) = 52,699,136; conv
  // (7168 + 256 = 7424 channels) x 4 taps + 7424 biases = 37,120; dt_bias, A, D 3 x 112 = 336;
  // gated norm 7168; out_proj 7168 x 3584 = 25,690,112: 78,433,872; x 81 = 6,353,143,632, and 81
  // RMSNorms of 3584 = 290,304.
  // A shared block: q, k, v 3 x 7168 x 7168 = 154,140,672 (input [hidden; embedding] 7168 wide),
  // o_proj 7168 x 3584 = 25,690,112, MLP gate_up 3584 x 28,672 = 102,760,448 and down 14,336 x
  // 3584 = 51,380,224, norms 7168 + 3584 = 10,752: 333,982,208; x 2 blocks = 667,964,416.
  // Each of the 13 uses: the MLP adapter 3584 x 128 + 128 x 28,672 = 4,128,768 and the linear map
  // 3584 x 3584 = 12,845,056: 16,973,824; x 13 = 220,659,712.
  // Tied table 32,000 x 3584 = 114,688,000; final norm 3,584.
  // Total 6,353,143,632 + 290,304 + 667,964,416 + 220,659,712 + 114,688,000 + 3,584
  //     = 7,356,749,648 (Zyphra: 7.4B, -0.6%).
  CHECK(m.total_params() == 7356749648);
  CHECK(m.active_params() == 7356749648);
  // KV: 13 uses, each its own cache of K and V 32 heads x 224 = 7168 wide: 13 x 2 x 7168 x 2 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 13.0 * 2 * 7168 * 2);
  // State per sequence, whatever its length: 81 x (112 x 64 x 64 recurrent + 3 x 7424 conv) x 2 B
  // = 81 x 962,048 = 77,925,888 bytes.
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 77925888.0);
}

TEST_CASE("Zamba2: Zyphra's first config spelling reads as the transformers one", "[hf][zamba2]") {
  const ModelSpec legacy = load_model(fixture("zamba2-7b-legacy"));
  const ModelSpec now = load_model(fixture("zamba2-7b"));
  CHECK(legacy.total_params() == now.total_params());
  CHECK(legacy.kv_bytes_per_token(DType::bf16) == now.kv_bytes_per_token(DType::bf16));
  CHECK(legacy.state_bytes_per_sequence(DType::bf16) == now.state_bytes_per_sequence(DType::bf16));
  CHECK(legacy.ffn == 14336);
  CHECK(legacy.shared_blocks.mlp_adapters);
  CHECK_FALSE(legacy.shared_blocks.attention_adapters);
}

TEST_CASE("Zamba2-2.7B counted by hand: 54 layers, 2 shared blocks on 9", "[hf][zamba2]") {
  const ModelSpec m = load_model(fixture("zamba2-2.7b"));
  // h = 2560, d_inner 5120, 80 heads of 64, 1 group of state 64.
  // Mamba-2 layer: in_proj 2560 x (10,240 + 128 + 80) = 26,746,880; conv 5248 x 4 + 5248 = 26,240;
  // 3 x 80 = 240; norm 5120; out_proj 5120 x 2560 = 13,107,200: 39,885,680; x 54 = 2,153,826,720;
  // norms 54 x 2560 = 138,240.
  // A block: q, k, v 3 x 5120 x 5120 = 78,643,200; o 13,107,200; MLP 2560 x 20,480 + 10,240 x
  // 2560 = 78,643,200; norms 7,680: 170,401,280; x 2 = 340,802,560.
  // A use: 2560 x 128 + 128 x 20,480 = 2,949,120 and 2560 x 2560 = 6,553,600; x 9 = 85,524,480.
  // Tied table 32,000 x 2560 = 81,920,000; final norm 2,560.
  // Total 2,662,214,560 (Zyphra: 2.7B, -1.4%).
  CHECK(m.total_params() == 2662214560);
  CHECK(m.kv_bytes_per_token(DType::bf16) == 9.0 * 2 * 5120 * 2);
}

TEST_CASE("Zamba2: the blocks are held once, a step streams them on every use", "[hf][zamba2]") {
  const Setup s = setup_of(fixture("zamba2-7b"), 1);
  const CostModel cost = make_cost_model(s);
  // Held in bf16 on one GPU: 2 B x 7,356,749,648.
  CHECK(weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism()) == Approx(2.0 * 7356749648).epsilon(1e-12));
  const StepCost d = decode_step(cost, 32, 2000);
  // q, k, v read 7168 wide and write 3 x 7168, on each of the 13 uses: 13 x 7168 x 21,504 x 2 B.
  CHECK(op_named(d, "qkv_proj").weight_bytes == Approx(13.0 * 7168 * 21504 * 2).epsilon(1e-12));
  // The MLP's gate_up and down (3 x 3584 x 14,336 weights) on each use.
  CHECK(op_named(d, "mlp_up").weight_bytes + op_named(d, "mlp_down").weight_bytes ==
        Approx(13.0 * 3 * 3584 * 14336 * 2).epsilon(1e-12));
  // Each use's adapter and linear map: 13 x 16,973,824 x 2 B; 2 x 32 tokens x them FLOPs.
  const OpCost& own = op_named(d, "shared_block_adapters");
  CHECK(own.weight_bytes == Approx(13.0 * 16973824 * 2).epsilon(1e-12));
  CHECK(own.flops == Approx(2.0 * 32 * 13 * 16973824).epsilon(1e-12));
}

TEST_CASE("Zamba2: attention adapters, the default layer list, and bad configs", "[hf][zamba2]") {
  nlohmann::json j = config_7b();
  j["use_shared_attention_adapter"] = true;
  // q, k and v adapters on each of the 13 uses: 3 x (7168 x 128 + 128 x 7168) = 5,505,024.
  CHECK(load(j, "attn").total_params() == 7356749648 + 13LL * 5505024);
  // No layer list: Zamba2Config's 54-layer default, hybrid at 6, 12, ..., 42, 47, 51.
  j = config_7b();
  j.erase("layers_block_type");
  j.erase("hybrid_layer_ids");
  j["num_hidden_layers"] = 54;
  CHECK(load(j, "default").shared_blocks.uses == 9);
  j["num_hidden_layers"] = 81;
  CHECK_THAT(error_of([&] { load(j, "nolist"); }), Contains("list the hybrid layers"));
  j = config_7b();
  j["hybrid_layer_ids"] = {6, 11};
  CHECK_THAT(error_of([&] { load(j, "ids"); }), Contains("hybrid_layer_ids does not list"));
  j = config_7b();
  j["add_bias_linear"] = true;
  CHECK_THAT(error_of([&] { load(j, "bias"); }), Contains("add_bias_linear"));
  j = config_7b();
  j["hidden_act"] = "silu";
  CHECK_THAT(error_of([&] { load(j, "silu"); }), Contains("gated GELU"));
  j = config_7b();
  j["num_mem_blocks"] = 14;
  CHECK_THAT(error_of([&] { load(j, "blocks"); }), Contains("more than the 13 hybrid layers"));
  j = config_7b();
  j["attention_hidden_size"] = 3584;
  CHECK_THAT(error_of([&] { load(j, "width"); }), Contains("attention_hidden_size"));
  j = config_7b();
  j["layers_block_type"][3] = "attention";
  CHECK_THAT(error_of([&] { load(j, "kind"); }), Contains("layers_block_type[3]"));
}
