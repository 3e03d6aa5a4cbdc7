// Gemma 3n (hf_gemma3n_family.cpp): Gemma 3's layer plus AltUp, LAuReL and per-layer
// embeddings, and KV shared by the last num_kv_shared_layers layers. Counted by hand on the
// E4B's config (tests/fixtures/hf_configs_from_fields/gemma-3n-e4b: transformers'
// Gemma3nTextConfig defaults, which are the E4B's).
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

std::string e4b() { return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/gemma-3n-e4b"; }

nlohmann::json config_e4b() {
  std::ifstream in(e4b() + "/config.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("Gemma 3n E4B counted by hand: its layers, AltUp, LAuReL and per-layer embeddings", "[hf][gemma3n]") {
  const ModelSpec m = load_model(e4b());
  CHECK(m.layers == 35);
  // hidden 2048, 8 heads and 2 KV heads of 256, MLP 16384, vocabulary 262,400 tied.
  // A layer: q 2048 x 2048 + k, v 2048 x 512 each + o 2048 x 2048 = 10,485,760; q/k norms 512;
  // MLP 3 x 2048 x 16384 = 100,663,296; two norms 4,096 (the other two not counted);
  // AltUp 2048 x 4 + 2048 + 4^3 + 4^2 + 2048 = 12,368; LAuReL 2 x 2048 x 64 + 2048 = 264,192;
  // PLE gate and projection 2 x 2048 x 256 + norm 2048 = 1,050,624: 112,480,848; x 35 = 3,936,829,680.
  CHECK(m.gemma3n.params_per_layer(2048) == 12368 + 264192 + 1050624);
  // Beside the layers: the AltUp projections 6 x 2048^2 = 25,165,824, the PLE projection
  // 2048 x 35 x 256 = 18,350,080 and its norm 256: 43,516,160.
  CHECK(m.gemma3n.model_params(2048, 35) == 43516160);
  // The per-layer table 262,144 x 35 x 256 = 2,348,810,240; the token table 262,400 x 2048 =
  // 537,395,200 (tied); the final norm 2048.
  CHECK(m.gemma3n.table_params(35) == 2348810240);
  // Total 3,936,829,680 + 43,516,160 + 2,348,810,240 + 537,395,200 + 2,048 = 6,866,553,328
  // (LM Studio lists the text-only GGUF at 6.9B; the audio and vision encoders are not counted).
  CHECK(m.total_params() == 6866553328);
  // Active, as Google counts its "effective" parameters: all but the two tables (the per-layer
  // one and the token one): 6,866,553,328 - 2,348,810,240 - 537,395,200 = 3,980,347,888
  // (google/gemma3n-slicing-configs: 3.98B for the main E4B model).
  CHECK(m.active_params() == 3980347888);
  CHECK(m.active_params_all_tables() == 6866553328 - 2348810240);
  // KV: full attention on every 5th layer (7 of 35), the others a 512-token window. The last
  // 15 layers (20..34: 3 full, 12 sliding) read layer 19's and layer 18's KV and store none:
  // 4 full and 16 sliding layers cache, 20 x 2 KV heads x 256 x 2 (K and V) x 2 B = 40,960 B a token.
  CHECK(m.local.layers == 28);
  CHECK(m.kv_shared_global_layers == 3);
  CHECK(m.kv_shared_local_layers == 12);
  CHECK(m.cached_attention_layers() == 20);
  CHECK(m.kv_bytes_per_token(DType::bf16) == 40960.0);
}

TEST_CASE("Gemma 3n: the memory plan holds every weight, and a step prices the extra GEMMs", "[hf][gemma3n]") {
  const Setup s = setup_of(e4b(), 1);
  const CostModel cost = make_cost_model(s);
  // bf16 on one GPU: every counted weight at 2 bytes.
  CHECK(weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism()) == Approx(2.0 * 6866553328).epsilon(1e-12));
  // The KV cache per token on that GPU: 40,960 B (the sharing layers hold none).
  CHECK(s.model.kv_bytes_per_token(DType::bf16) == 40960.0);
  // A decode step of 16 sequences at 1,000 tokens: per layer the AltUp router, LAuReL and the
  // PLE gate/projection as one GEMM of 4 + 2 x 64 + 2 x 256 = 644 outputs over 35 layers:
  // 2 x 16 x 2048 x 644 x 35 FLOPs and 2048 x 644 x 35 x 2 B of weights; the PLE projection
  // 2 x 16 x 2048 x 8960; the AltUp projections 2 x 16 x 2048^2 x 6.
  const StepCost d = decode_step(cost, 16, 1000);
  const OpCost& side = op_named(d, "per_layer_side");
  CHECK(side.flops == Approx(2.0 * 16 * 2048 * 644 * 35));
  CHECK(side.weight_bytes == Approx(2048.0 * 644 * 35 * 2));
  CHECK(op_named(d, "per_layer_projection").flops == Approx(2.0 * 16 * 2048 * 8960));
  CHECK(op_named(d, "altup_projections").flops == Approx(2.0 * 16 * 2048 * 2048 * 6));
  // Each sharing layer still attends: the attention reads the KV of all 35 layers.
  ModelSpec unshared = s.model;
  unshared.kv_shared_global_layers = unshared.kv_shared_local_layers = 0;
  Setup s2 = s;
  s2.model = unshared;
  const StepCost u = decode_step(make_cost_model(s2), 16, 1000);
  CHECK(d.flops == Approx(u.flops).epsilon(1e-12));
}

TEST_CASE("Gemma 3n: sharing, widths and activation are checked", "[hf][gemma3n]") {
  auto err = [&](nlohmann::json j, const std::string& tag) {
    return error_of([&] { servesim::testing::hf::load_edited(j, "servesim-gemma3n-", tag); });
  };
  nlohmann::json j = config_e4b();
  j["text_config"]["intermediate_size"][3] = "wide";
  CHECK_THAT(err(j, "widths"), Contains("intermediate_size must be a positive whole number"));
  j = config_e4b();
  j["text_config"]["intermediate_size"].erase(0);
  CHECK_THAT(err(j, "count"), Contains("intermediate_size lists 34 widths for 35 layers"));
  // A MatFormer slice (Google's Mix-and-Match): layers of differing widths, each priced at its own.
  // Layers 0..9 at 8192: 10 x 3 x 2048 x (16384 - 8192) = 503,316,480 fewer weights.
  j = config_e4b();
  for (int i = 0; i < 10; ++i) j["text_config"]["intermediate_size"][i] = 8192;
  const ModelSpec slice = servesim::testing::hf::load_edited(j, "servesim-gemma3n-", "slice");
  REQUIRE(slice.mlp_widths.size() == 2);
  CHECK(slice.mlp_widths[0].ffn == 16384);
  CHECK(slice.mlp_widths[0].layers == 25);
  CHECK(slice.mlp_widths[1].ffn == 8192);
  CHECK(slice.mlp_widths[1].layers == 10);
  CHECK(slice.total_params() == 6866553328 - 503316480);
  j = config_e4b();
  j["text_config"]["num_kv_shared_layers"] = 35;
  CHECK_THAT(err(j, "allshared"), Contains("num_kv_shared_layers 35 must be within"));
  j = config_e4b();
  j["text_config"]["hidden_activation"] = "silu";
  CHECK_THAT(err(j, "silu"), Contains("GeGLU"));
  // Without layer_types the default pattern (every 5th layer full) is read, as transformers writes it.
  j = config_e4b();
  j["text_config"].erase("layer_types");
  const ModelSpec m = servesim::testing::hf::load_edited(j, "servesim-gemma3n-", "notypes");
  CHECK(m.local.layers == 28);
  CHECK(m.cached_attention_layers() == 20);
  // No sharing: every layer caches (35 x 2 x 256 x 2 x 2 B = 71,680 B a token).
  j = config_e4b();
  j["text_config"]["num_kv_shared_layers"] = 0;
  CHECK(servesim::testing::hf::load_edited(j, "servesim-gemma3n-", "noshare").kv_bytes_per_token(DType::bf16) == 71680.0);
}

TEST_CASE("Gemma 4 E2B: per-layer embeddings, KV shared by its last 20 layers without k/v projections, "
          "double-wide MLPs there",
          "[hf][gemma3n][gemma4]") {
  // tests/fixtures/hf_configs_from_fields/gemma-4-e2b: hidden 1536, 35 layers (every 5th full
  // attention with heads of 512, the others a 512-token window with heads of 256), 8 heads, 1
  // KV head, MLP 6144 (12288 on the 20 KV-sharing layers: use_double_wide_mlp), vocabulary
  // 262,144 tied, per-layer embeddings of 256.
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/gemma-4-e2b");
  CHECK(m.layers == 35);
  // Sharing: layers 15..34, of which 19, 24, 29, 34 full: 4 global and 16 local; the caching
  // layers 0..14 are 3 global (4, 9, 14) and 12 local.
  CHECK(m.kv_shared_global_layers == 4);
  CHECK(m.kv_shared_local_layers == 16);
  CHECK_FALSE(m.kv_shared_layers_hold_kv_proj);
  // Missing k/v projections: 16 x 2 x 1536 x 256 + 4 x 2 x 1536 x 512 = 12,582,912 + 6,291,456.
  CHECK(m.kv_shared_missing_kv_proj_params() == 18874368);
  // Per layer, sliding: q 1536 x 2048 + o 2048 x 1536 = 6,291,456 (+ k, v 786,432 where it caches);
  // full: q and o 1536 x 4096 each = 12,582,912 (+ k, v 1,572,864). MLP 3 x 1536 x 6144 =
  // 28,311,552 (x 2 on the sharing layers); two norms 3,072; the PLE gate and projection
  // 2 x 1536 x 256 + its norm 1,536 = 787,968.
  //   caching:  12 x (7,077,888 + 28,311,552) + 3 x (14,155,776 + 28,311,552) = 552,075,264
  //   sharing:  16 x (6,291,456 + 56,623,104) + 4 x (12,582,912 + 56,623,104) = 1,283,457,024
  //   every layer: 35 x (3,072 + 787,968) = 27,686,400
  // Tables: 262,144 x 1536 = 402,653,184 (tied), per-layer 262,144 x 35 x 256 = 2,348,810,240;
  // the PLE projection 1536 x 8960 = 13,762,560 and norm 256; the final norm 1,536.
  // Total 4,628,446,464; without the per-layer table 2,279,636,224 (Google: 2.3B effective,
  // 5.1B with the per-layer embeddings and the audio and vision encoders).
  CHECK(m.total_params() == 4628446464);
  CHECK(m.active_params() == 2279636224);
  // KV a token at bf16: 3 caching full layers x 1 x 512 x 2 x 2 B + 12 sliding x 1 x 256 x 2 x 2 B
  // = 6,144 + 12,288 = 18,432 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 18432.0);
  const Setup s = setup_of(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/gemma-4-e2b", 1);
  const CostModel cost = make_cost_model(s);
  CHECK(weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism()) == Approx(2.0 * 4628446464).epsilon(1e-12));
  // A step streams the q/k/v weights the layers hold: q on all 35 layers, k and v on the 15
  // caching ones only. Sliding q 1536 x 2048 = 3,145,728, full q 1536 x 4096 = 6,291,456; k + v
  // 786,432 (sliding) and 1,572,864 (full). 28 sliding and 7 full layers, 12 and 3 caching:
  //   28 x 3,145,728 + 7 x 6,291,456 + 12 x 786,432 + 3 x 1,572,864 = 146,276,352 weights,
  // the 35 layers' 165,150,720 less the 18,874,368 the sharing layers do not hold; at 2 B.
  const StepCost d = decode_step(cost, 8, 1000);
  CHECK(op_named(d, "qkv_proj").weight_bytes == Approx(2.0 * 146276352).epsilon(1e-9));
  // Only the 15 caching layers write KV: the step's 8 new tokens x the 18,432 B a token the
  // cache holds (the 35 layers' writes would be 8 x 43,008 B).
  CHECK(op_named(d, "kv_cache_write").kv_bytes == Approx(8.0 * 18432).epsilon(1e-12));
}

TEST_CASE("Gemma 4 E4B: 18 of 42 layers share KV, one MLP width", "[hf][gemma3n][gemma4]") {
  // tests/fixtures/hf_configs_from_fields/gemma-4-e4b: hidden 2560, 42 layers (five sliding then
  // one full, seven times), 8 heads, 2 KV heads, MLP 10240 everywhere (use_double_wide_mlp false),
  // per-layer embeddings of 256, the last 18 layers sharing.
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/gemma-4-e4b");
  CHECK(m.mlp_widths.empty());
  // Caching layers 0..23: full 5, 11, 17, 23 and 20 sliding; sharing 24..41: full 29, 35, 41 and 15 sliding.
  CHECK(m.kv_shared_global_layers == 3);
  CHECK(m.kv_shared_local_layers == 15);
  // Sliding: q and o 2 x 2560 x 2048 = 10,485,760 (+ k, v 2 x 2560 x 512 = 2,621,440 where it caches);
  // full: q and o 2 x 2560 x 4096 = 20,971,520 (+ k, v 5,242,880). Every layer: MLP 3 x 2560 x
  // 10240 = 78,643,200, two norms 5,120, the PLE gate, projection and norm 1,313,280.
  //   caching: 20 x 13,107,200 + 4 x 26,214,400                = 367,001,600
  //   sharing: 15 x 10,485,760 + 3 x 20,971,520                = 220,200,960
  //   every layer: 42 x 79,961,600                              = 3,358,387,200
  // Tables 262,144 x 2560 = 671,088,640 (tied) and 262,144 x 42 x 256 = 2,818,572,288; the PLE
  // projection 2560 x 10752 = 27,525,120 and its norm 256; the final norm 2,560: 7,462,778,624.
  CHECK(m.total_params() == 7462778624);
  // Without the per-layer table 4,644,206,336: Google's "4.5B effective" is 3.1% below it (a
  // difference this reading does not explain; its E2B is within 0.9%).
  CHECK(m.active_params() == 4644206336);
  // KV at bf16: 4 full x 2 x 512 x 2 x 2 B + 20 sliding x 2 x 256 x 2 x 2 B = 16,384 + 40,960.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 57344.0);
}
