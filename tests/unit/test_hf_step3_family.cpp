// StepFun's Step3 (hf_step3_family.cpp): MFA attention with a low-rank query (share_q_dim,
// ModelSpec::query_rank) beside one KV head, dense and MoE layers as moe_layers_enum lists them
// (a dense layer after the MoE ones too). Counts of a small in-test config worked out by hand, the
// published model against StepFun's figures (tests/fixtures/hf_configs_from_fields/step3,
// PROVENANCE.md there), the query's weights in the memory plan and its GEMMs in the step cost,
// and the refusals naming the field.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/kv_size.h"
#include "cost/memory_plan.h"
#include "hf_fixtures.h"
#include "hf_step_helpers.h"
#include "report/model_json.h"
#include "test_sim_helpers.h"

using namespace servesim;
using servesim::testing::error_of;
using servesim::testing::hf::within;
using Catch::Contains;
using servesim::testing::hf::op_named;
using servesim::testing::hf::setup_of;

namespace {

std::string step3_dir() { return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/step3"; }

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-step3-", tag);
}

// Four layers of hidden 64: 4 query heads of 16 lifted from a rank-16 query, one KV head of 16,
// layers 1 and 2 MoE (8 experts of 32, top 2, a shared expert of 48), layers 0 and 3 dense (128).
nlohmann::json small_step3() {
  return {{"architectures", {"Step3VLForConditionalGeneration"}},
          {"model_type", "step3_vl"},
          {"text_config",
           {{"architectures", {"Step3TextForCausalLM"}},
            {"model_type", "step3_text"},
            {"hidden_size", 64},
            {"intermediate_size", 128},
            {"num_attention_heads", 4},
            {"num_attention_groups", 1},
            {"num_hidden_layers", 4},
            {"max_position_embedding", 4096},
            {"vocab_size", 100},
            {"moe_intermediate_size", 32},
            {"moe_num_experts", 8},
            {"moe_top_k", 2},
            {"share_expert_dim", 48},
            {"share_q_dim", 16},
            {"head_dim", 16},
            {"moe_layers_enum", "1,2"}}}};
}

}  // namespace

TEST_CASE("Step3: a small config's parameters counted by hand", "[hf][step3]") {
  const ModelSpec m = load_edited(small_step3(), "small");
  CHECK(m.query_rank == 16);
  CHECK(m.kv_heads == 1);
  CHECK(m.max_context == 4096);  // max_position_embedding, Step3's singular name
  CHECK(m.moe_layers() == 2);
  CHECK(m.dense_mlp_layers() == 2);  // layer 0 and layer 3, after the MoE ones
  // Attention a layer: qkv_proj 64 x (16 + 16 + 16) = 3,072, inter_norm 16, wq 16 x 4 x 16 =
  //   1,024, o_proj 4 x 16 x 64 = 4,096: 8,208 (a plain query would be 64 x 64 = 4,096 in place
  //   of 3,072 - 1,024 + 16 + 1,024); x 4                                        =  32,832
  // dense MLPs 3 x 64 x 128 = 24,576; x 2                                          =  49,152
  // MoE layer: router 64 x 8 = 512, experts 8 x 3 x 64 x 32 = 49,152, shared expert
  //   3 x 64 x 48 = 9,216: 58,880; x 2                                              = 117,760
  // RMSNorms: 2 a layer + the final one: 9 x 64                                     =     576
  // embedding and LM head (untied): 2 x 100 x 64                                   =  12,800
  // total                                                                            213,120
  CHECK(m.attention_params_per_layer() == 8208);
  CHECK(m.total_params() == 213120);
  // Active (LM head counted, embedding not): less the 6 of 8 experts a token skips in each MoE
  // layer (2 x 6 x 6,144 = 73,728) and the embedding (6,400): 132,992.
  CHECK(m.active_params() == 132992);
  // KV a token: 4 layers x one head of (16 + 16) x 2 B = 256 B, whatever the query's rank.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 256.0);
  const nlohmann::json j = model_json(m);
  CHECK(j["query_rank"] == 16);

  SECTION("without moe_layers_enum every layer but the first is MoE (vLLM's default)") {
    nlohmann::json c = small_step3();
    c["text_config"].erase("moe_layers_enum");
    const ModelSpec d = load_edited(c, "default-moe");
    CHECK(d.moe_layers() == 3);
    CHECK(d.moe.dense_layers == 1);
    // One dense layer fewer (24,576) and one MoE layer more (58,880): 213,120 + 34,304.
    CHECK(d.total_params() == 247424);
  }
  SECTION("the text model alone, named by its architecture") {
    const nlohmann::json text = small_step3()["text_config"];
    CHECK(load_edited(text, "text").total_params() == 213120);
  }
}

TEST_CASE("Step3: refusals name the field", "[hf][step3]") {
  auto edited = [](const char* key, const nlohmann::json& value) {
    nlohmann::json j = small_step3();
    j["text_config"][key] = value;
    return j;
  };
  CHECK_THAT(error_of([&] { load_edited(edited("num_attention_groups", 2), "groups"); }),
             Contains("num_attention_groups 2: Step3's attention has one KV head"));
  CHECK_THAT(error_of([&] { load_edited(edited("share_q_dim", 0), "rank0"); }),
             Contains("share_q_dim must be at least 1, got 0"));
  CHECK_THAT(error_of([&] { load_edited(edited("share_q_dim", 65), "rank-wide"); }),
             Contains("share_q_dim 65 exceeds hidden_size 64"));
  CHECK_THAT(error_of([&] { load_edited(edited("moe_layers_enum", "1,4"), "past"); }),
             Contains("moe_layers_enum lists layer 4, past the 4 layers"));
  CHECK_THAT(error_of([&] { load_edited(edited("moe_layers_enum", "1,1"), "twice"); }),
             Contains("moe_layers_enum lists layer 1 twice"));
  CHECK_THAT(error_of([&] { load_edited(edited("moe_layers_enum", "1,x"), "word"); }),
             Contains("moe_layers_enum entry 'x' is not a layer index"));
  CHECK_THAT(error_of([&] { load_edited(edited("moe_layers_enum", ""), "empty"); }),
             Contains("moe_layers_enum lists no MoE layer"));
  CHECK_THAT(error_of([&] { load_edited(edited("moe_top_k", 9), "topk"); }),
             Contains("moe_top_k 9 exceeds moe_num_experts 8"));
  CHECK_THAT(error_of([&] { load_edited(edited("hidden_act", "gelu"), "act"); }), Contains("hidden_act 'gelu'"));
  nlohmann::json j = small_step3();
  j["text_config"].erase("share_expert_dim");
  CHECK_THAT(error_of([&] { load_edited(j, "shared"); }), Contains("missing field 'share_expert_dim'"));
  j = small_step3();
  j["text_config"].erase("head_dim");
  CHECK_THAT(error_of([&] { load_edited(j, "head"); }), Contains("missing field 'head_dim'"));
  j = small_step3();
  j["text_config"].erase("intermediate_size");
  CHECK_THAT(error_of([&] { load_edited(j, "ffn"); }), Contains("the 2 dense layers"));
}

TEST_CASE("Step3 against StepFun's figures", "[hf][step3]") {
  // stepfun-ai/step3's text model (tests/fixtures/hf_configs_from_fields/step3):
  // attention a layer: qkv_proj 7168 x (2048 + 256 + 256) = 18,350,080, inter_norm 2,048,
  //   wq 2048 x 64 x 256 = 33,554,432, o_proj 64 x 256 x 7168 = 117,440,512: 169,347,072; x 61
  //                                                                         =  10,330,171,392
  // dense MLPs (layers 0-3 and 60): 3 x 7168 x 18432 = 396,361,728; x 5    =   1,981,808,640
  // MoE layers (4-59): router 7168 x 48 = 344,064, experts 48 x 3 x 7168 x 5120 =
  //   5,284,823,040, shared expert 3 x 7168 x 5120 = 110,100,480: 5,395,267,584; x 56
  //                                                                         = 302,134,984,704
  // norms (2 x 61 + 1) x 7168                                              =         881,664
  // embedding and LM head 2 x 128815 x 7168                                =   1,846,691,840
  // total 316,294,538,240 (StepFun, "Total Parameters (LLM) 316B": +0.09%)
  const ModelSpec m = load_model(step3_dir());
  CHECK(m.layers == 61);
  CHECK(m.moe_layers() == 56);
  CHECK(m.dense_mlp_layers() == 5);  // the model card's "Number of Dense Layers 5"
  CHECK(m.attention_params_per_layer() == 169347072);
  CHECK(m.total_params() == 316294538240LL);
  CHECK(within(static_cast<double>(m.total_params()), 316e9, 0.02));
  // Active, LM head counted: less the 45 experts a token skips in each MoE layer (56 x 45 x
  // 110,100,480 = 277,453,209,600) and the embedding (923,345,920): 37,917,982,720 (StepFun,
  // "Activated Params per Token 38B": -0.22%). Both tables would give 38.84B (+2.2%), neither
  // 36.99B (-2.6%).
  CHECK(m.active_params() == 37917982720LL);
  CHECK(within(static_cast<double>(m.active_params()), 38e9, 0.02));
  // KV a token: 61 layers x one head of (256 + 256) x 2 B = 62,464 B.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 62464.0);
}

TEST_CASE("Step3: the low-rank query in the memory plan and the step cost", "[hf][step3]") {
  // On 8 H100s (tp 8): 64 / 8 = 8 query heads a GPU, the one KV head on every GPU.
  const Setup s = setup_of(step3_dir(), 8);
  const CostModel cost = make_cost_model(s);
  CHECK(gpu_heads_of(s.model, cost.shard(), true) == 8);
  CHECK(gpu_kv_heads_of(s.model, cost.shard(), true) == 1);

  // Weights a GPU holds, against the same model with a plain query (hidden -> this GPU's 8 x 256):
  // the low-rank query holds 7168 x 2048 (qkv_proj's query part, replicated) + 2048 (inter_norm)
  // + 2048 x 8 x 256 (its share of wq) = 18,876,416 weights a layer against 7168 x 2048 =
  // 14,680,064: 4,196,352 more a layer, x 61 layers x 2 B (bf16).
  ModelSpec plain = s.model;
  plain.query_rank = 0;
  const double low_rank = weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism());
  const double as_plain = weight_bytes_per_gpu(plain, cost.precision(), cost.parallelism());
  CHECK(low_rank - as_plain == Approx(4196352.0 * 61 * 2).epsilon(1e-12));
  // With one GPU the attention's weights are the count's, 2 B each: the bytes differ from the
  // plain query's by 61 x (18,350,080 + 2,048 + 33,554,432 - 7168 x (64 x 256 + 512)) x 2.
  const Setup one = setup_of(step3_dir(), 1);
  ModelSpec plain1 = one.model;
  plain1.query_rank = 0;
  const CostModel cost1 = make_cost_model(one);
  CHECK(weight_bytes_per_gpu(one.model, cost1.precision(), cost1.parallelism()) -
            weight_bytes_per_gpu(plain1, cost1.precision(), cost1.parallelism()) ==
        Approx(static_cast<double>(one.model.total_params() - plain1.total_params()) * 2).epsilon(1e-12));

  // Prefill of 4096 tokens: qkv_proj hidden -> 2048 + 256 + 256 (whole on each GPU), q_up_proj
  // (wq) 2048 -> 8 x 256 (this GPU's heads), o_proj 8 x 256 -> hidden, on each of 61 layers.
  BatchSummary b = cost.batch();
  b.add(SeqWork{4096, 0, true});
  const StepCost pre = cost.breakdown(b);
  const double T = 4096, hidden = 7168, L = 61;
  CHECK(op_named(pre, "qkv_proj").flops == Approx(2.0 * T * hidden * (2048 + 256 + 256) * L).epsilon(1e-12));
  CHECK(op_named(pre, "qkv_proj").weight_bytes == Approx(hidden * (2048 + 256 + 256) * L * 2).epsilon(1e-12));
  CHECK(op_named(pre, "q_up_proj").flops == Approx(2.0 * T * 2048 * (8 * 256) * L).epsilon(1e-12));
  CHECK(op_named(pre, "q_up_proj").weight_bytes == Approx(2048.0 * 8 * 256 * L * 2).epsilon(1e-12));
  CHECK(op_named(pre, "o_proj").flops == Approx(2.0 * T * (8 * 256) * hidden * L).epsilon(1e-12));
}
