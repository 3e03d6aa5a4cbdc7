// Qwen3.8-Flash-Next (Qwen4Exp; hf_qwen4_exp_family.cpp): Qwen3.5-MoE's layers plus low-rank
// hyper-connections, QSA's indexer and the PLE n-gram table. A small config is read against a
// Qwen3.5-MoE config of the same shapes, so the difference is the three new parts, counted by
// hand; the published checkpoint's fields against Qwen's figures.
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
using servesim::testing::error_of;
namespace hf = servesim::testing::hf;
using Catch::Contains;
using servesim::testing::hf::setup_of;

namespace {

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return hf::load_edited(j, "servesim-qwen4-exp-", tag);
}

// A Qwen3.5-MoE text model: hidden 32, layers [linear x 3, full], 2 query heads of 16 with a
// sigmoid output gate and 1 KV head; gated delta rule 1 key head and 2 value heads of 8, conv 4;
// 4 experts of 16, top 2, a shared one of 16; table 100 untied.
nlohmann::json small_qwen35_moe() {
  return {{"architectures", {"Qwen3_5MoeForCausalLM"}},
          {"model_type", "qwen3_5_moe_text"},
          {"hidden_size", 32},
          {"num_hidden_layers", 4},
          {"layer_types", {"linear_attention", "linear_attention", "linear_attention", "full_attention"}},
          {"num_attention_heads", 2},
          {"num_key_value_heads", 1},
          {"head_dim", 16},
          {"attn_output_gate", true},
          {"linear_num_key_heads", 1},
          {"linear_key_head_dim", 8},
          {"linear_num_value_heads", 2},
          {"linear_value_head_dim", 8},
          {"linear_conv_kernel_dim", 4},
          {"num_experts", 4},
          {"num_experts_per_tok", 2},
          {"moe_intermediate_size", 16},
          {"shared_expert_intermediate_size", 16},
          {"vocab_size", 100},
          {"max_position_embeddings", 1024},
          {"tie_word_embeddings", false}};
}

// The same layers as Qwen4Exp: 2 streams mixed at rank 4; QSA with 2 index heads of 8, blocks of
// 2 tokens, a budget of 8 keys; PLE before layer 2 (1-based): 3-grams, 2 heads each (4 rows a
// token), 16 wide (rows of 4), moduli the 4 primes from 10 (11, 13, 17, 19: 60 rows, rounded up
// to 64), a convolution of 4 taps.
nlohmann::json small_qwen4_exp() {
  nlohmann::json j = small_qwen35_moe();
  j["architectures"] = {"Qwen4ExpForCausalLM"};
  j["model_type"] = "qwen4_exp_text";
  j.erase("attn_output_gate");
  j["output_gate_type"] = "sigmoid";
  j["hc_count"] = 2;
  j["hc_lowrank"] = 4;
  j["indexer_n_heads"] = 2;
  j["indexer_head_dim"] = 8;
  j["indexer_kv_heads"] = 1;
  j["indexer_compress_ratio"] = 2;
  j["indexer_budget"] = 8;
  j["ple_layer_ids"] = {2};
  j["ngram_size"] = 3;
  j["heads_per_ngram"] = 2;
  j["ple_embed_dim"] = 16;
  j["ngram_vocab_size_base"] = 10;
  j["make_ngram_vocab_size_divisible_by"] = 8;
  j["ple_conv_kernel_size"] = 4;
  return j;
}

}  // namespace

TEST_CASE("Qwen4Exp: low-rank hyper-connections, QSA and the PLE table over Qwen3.5-MoE's layers, by hand",
          "[hf][qwen4_exp]") {
  const ModelSpec base = load_edited(small_qwen35_moe(), "base");
  const ModelSpec m = load_edited(small_qwen4_exp(), "small");
  CHECK(m.attention_output_gate);
  CHECK_FALSE(m.final_norm);
  CHECK(m.hc_mult == 2);
  CHECK(m.hc_lowrank == 4);
  CHECK(m.local.kind == LocalAttention::Kind::topk);
  CHECK(m.local.span == 8);
  CHECK(m.local.layers == 1);
  CHECK(m.indexer.selected() == 4);  // 8 keys in blocks of 2
  CHECK(m.ple.rows == 64);
  CHECK(m.ple.width == 4);
  CHECK(m.ple.lookups == 4);
  // Hyper-connections, streams 2 x 32 = 64 wide: a mixer is its norm (64) and W_down, W_up,
  // W_inject of (2 x 4 + 2) x 64 = 640: 704; two a layer, 4 layers: 5,632; the head's mixer
  // without W_inject (2 x 4 + 1) x 64 = 576: 6,208.
  CHECK(m.hc_params() == 6208);
  // QSA's indexer on the 1 attention layer: index_qk_proj 32 x (2 x 8 + 8) = 768, its two norms
  // 2 x 8 = 16: 784.
  CHECK(m.indexer.params_per_layer(m.hidden, 0) == 784);
  // PLE: the table 64 x 4 = 256; key_proj 16 x 64 = 1,024, value_proj 16 x 32 = 512, three norms
  // 3 x 64 = 192, the convolution 64 x 4 = 256: 1,984.
  CHECK(m.ple.table_params() == 256);
  CHECK(m.ple.projection_params(m.hidden) == 1984);
  // Against Qwen3.5-MoE: + 6,208 + 784 + 256 + 1,984 - 32 (no final norm) = + 9,200; active
  // (both tables in each) + 6,208 + 784 + 1,984 - 32 = + 8,944 (a row lookup is not a GEMM).
  CHECK(m.total_params() - base.total_params() == 9200);
  CHECK(m.active_params_all_tables() - base.active_params_all_tables() == 8944);
  // Qwen counts its activated parameters without either table: 2 x 100 x 32 = 6,400 fewer.
  CHECK(m.active_params_all_tables() - m.active_params() == 6400);
  // KV a token: + one raw 8-wide index key at 16 bits on the attention layer = + 16 bytes.
  CHECK(m.kv_bytes_per_token(DType::bf16) - base.kv_bytes_per_token(DType::bf16) == 16.0);
  // The PLE convolution keeps (4 - 1) x 3 inputs of 64: 576 values a sequence.
  CHECK(m.ple.conv_state_elements(m.hidden) == 576);

  SECTION("a wrapper's text_config, as the checkpoint ships it") {
    nlohmann::json text = small_qwen4_exp();
    text.erase("architectures");
    const nlohmann::json j = {{"architectures", {"Qwen4ExpForConditionalGeneration"}},
                              {"model_type", "qwen4_exp"},
                              {"text_config", text}};
    CHECK(load_edited(j, "wrapped").total_params() == m.total_params());
  }
  SECTION("a budget of the whole context is dense attention: no indexer") {
    nlohmann::json j = small_qwen4_exp();
    j["indexer_budget"] = 2048;
    const ModelSpec d = load_edited(j, "dense");
    CHECK_FALSE(d.indexer.enabled());
    CHECK(d.local.kind == LocalAttention::Kind::none);
  }
  SECTION("refusals") {
    nlohmann::json j = small_qwen4_exp();
    j["indexer_budget"] = 7;
    CHECK_THAT(error_of([&] { load_edited(j, "budget"); }), Contains("multiple of indexer_compress_ratio"));
    j = small_qwen4_exp();
    j["indexer_kv_heads"] = 2;
    CHECK_THAT(error_of([&] { load_edited(j, "kvheads"); }), Contains("one raw index key"));
    j = small_qwen4_exp();
    j["ple_layer_ids"] = {1, 2};
    CHECK_THAT(error_of([&] { load_edited(j, "two-ple"); }), Contains("must name one layer"));
    j = small_qwen4_exp();
    j["ple_embed_dim"] = 18;
    CHECK_THAT(error_of([&] { load_edited(j, "width"); }), Contains("not a multiple of the 4 rows"));
    j = small_qwen4_exp();
    j["output_gate_type"] = "swish";
    CHECK_THAT(error_of([&] { load_edited(j, "gate"); }), Contains("output_gate_type 'swish'"));
  }
}

TEST_CASE("Qwen4Exp: Qwen3.8-Flash-Next against Qwen's figures", "[hf][qwen4_exp]") {
  // tests/fixtures/hf_configs_from_fields/qwen3.8-flash-next, hidden 2560:
  //   36 gated delta rule layers of 57,958,624 (in_proj_qkvz 2560 x 16,384, in_proj_ba 2560 x 96,
  //     conv 10,240 x 4, dt_bias and A_log 48 each, norm 128, out_proj 6,144 x 2,560);
  //   12 attention layers of 49,807,360 (q and its gate 2560 x 12,288, k and v 2560 x 512 each,
  //     o 6,144 x 2,560) with indexers of 1,638,656 (2560 x 640 + 256);
  //   48 MoE layers of 512 experts of 3 x 2560 x 640 = 4,915,200, a shared one and the router
  //     (512 x 2560): 2,522,808,320 (the shared expert's 2,560-wide gate is not counted);
  //   hyper-connections 48 x 2 x (644 x 10,240 + 10,240) + 641 x 10,240 = 640,624,640;
  //   PLE table 320,001,536 x 160 = 51,200,245,760 (the 16 primes from 20,000,003 to 20,000,171
  //     sum to 320,001,446, rounded up to a multiple of 128), projections 32,839,680;
  //   tables 2 x 248,320 x 2,560; norms 96 x 2,560.
  // Total 176,944,016,256: 125.74B without the PLE table against "125B main-model parameters ...
  // and an additional 51B n-gram embedding table" (Xinference's docs; +0.6%). Active, neither
  // table: 36 x 57,958,624 + 12 x 51,446,016 + 48 x (10 + 1 experts, router) 55,377,920 +
  // 640,624,640 + 32,839,680 + norms = 6,035,712,896 against "6B activated" (+0.6%).
  const ModelSpec m = load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/qwen3.8-flash-next");
  CHECK(m.total_params() == 176944016256LL);
  CHECK(m.total_params() - m.ple.table_params() == 125743770496LL);
  CHECK(m.active_params() == 6035712896LL);
  CHECK(m.ple.table_params() == 51200245760LL);
  // KV a token: 12 layers x (2 x 2 heads x 256 x 2 B + a 128-wide raw index key x 2 B) = 27,648 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 27648.0);
  // The checkpoint's MTP layer (a full QSA layer with its own experts) is outside the total.
  CHECK(m.checkpoint_params() > m.total_params());
}

TEST_CASE("Qwen4Exp: the FP8 checkpoint stores its n-gram table at fp8, as its modules_to_convert says",
          "[hf][qwen4_exp]") {
  // tests/fixtures/hf_configs_from_fields/qwen3.8-flash-next-fp8: the same text_config with the FP8
  // checkpoint's quantization_config (quant_method fp8, modules_to_convert
  // ["ple.ple_embedding.ngram_embedding"]).
  const std::string dir = std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/qwen3.8-flash-next-fp8";
  const Setup s = setup_of(dir, 2);
  CHECK(s.model.ple.table_bytes == 1.0);
  CHECK(load_model(std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/qwen3.8-flash-next").ple.table_bytes ==
        0.0);
  // Against the same checkpoint with the table left 16-bit: each of 2 GPUs holds half the table's
  // 51,200,245,760 weights, 1 byte fewer each: 25,600,122,880 bytes.
  const CostModel cost = make_cost_model(s);
  ModelSpec sixteen = s.model;
  sixteen.ple.table_bytes = 0.0;
  CHECK(weight_bytes_per_gpu(sixteen, cost.precision(), cost.parallelism()) -
            weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism()) ==
        Approx(25600122880.0).epsilon(1e-12));
  // Not a fit to a measurement: a public deployment note gives the FP8 checkpoint as 172.8 GiB,
  // ~86.4 GiB a rank on TP 2 (92.8 GB); servesim's weights a GPU are within 5% of it (90.1 GB).
  CHECK(weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism()) == Approx(86.4 * 1073741824.0).epsilon(0.05));
}
