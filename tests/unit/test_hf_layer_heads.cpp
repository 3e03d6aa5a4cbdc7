// Models whose full-attention and sliding-window layers have their own query head counts
// (ModelSpec::global_heads, heads_of): Step-3.5-Flash (Step3p5ForCausalLM, and the same text model
// inside Step-3.7-Flash's Step3p7ForConditionalGeneration) gives its sliding layers 96 query heads
// in attention_other_setting against 64 on its full layers; poolside's Laguna-XS lists
// num_attention_heads_per_layer, 48 on the full layers and 64 on the sliding ones. Each total is a
// closed form written out from vLLM's modeling code (step3p5.py, laguna.py), checked exactly and
// against the publisher's figure; the step cost model's attention FLOPs and projections are checked
// in closed form per layer kind; a per-layer list that does not follow the layer kinds is refused.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/kv_size.h"
#include "cost/memory_plan.h"
#include "cost/parallelism.h"
#include "hf_fixtures.h"
#include "hf_step_helpers.h"
#include "report/model_json.h"
#include "test_sim_helpers.h"
#include "util/error.h"

using namespace servesim;
using servesim::testing::decode_step;
using servesim::testing::error_of;
using servesim::testing::hf::within;
using Catch::Contains;
using servesim::testing::hf::op_named;
using servesim::testing::hf::setup_of;

namespace {

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-layer-heads-", tag);
}

// poolside/Laguna-XS.2 (Laguna XS 2.1)'s config.json fields as public ports check them against the
// published file ("artifact topology does not match Laguna XS 2.1": vocab_size 100352, hidden_size
// 2048, intermediate_size 8192, num_hidden_layers 40, num_attention_heads 48, num_key_value_heads
// 8, head_dim 128, sliding_window 512, num_experts 256, num_experts_per_tok 8,
// moe_intermediate_size 512, shared_expert_intermediate_size 512, mlp_only_layers [0],
// tie_word_embeddings false, gating "per-head"; layer_types full on every 4th layer from 0; and
// num_attention_heads_per_layer "[48, 64, 64, 64, ...]: 48 on full_attention, 64 on
// sliding_attention"; max_position_embeddings 262144, mlp_layer_types ["dense"] + ["sparse"] x 39).
nlohmann::json laguna_xs() {
  std::vector<std::string> types;
  std::vector<int> heads;
  std::vector<std::string> mlp;
  for (int i = 0; i < 40; ++i) {
    const bool full = i % 4 == 0;
    types.push_back(full ? "full_attention" : "sliding_attention");
    heads.push_back(full ? 48 : 64);
    mlp.push_back(i == 0 ? "dense" : "sparse");
  }
  return {{"architectures", {"LagunaForCausalLM"}},
          {"model_type", "laguna"},
          {"vocab_size", 100352},
          {"hidden_size", 2048},
          {"intermediate_size", 8192},
          {"num_hidden_layers", 40},
          {"num_attention_heads", 48},
          {"num_attention_heads_per_layer", heads},
          {"num_key_value_heads", 8},
          {"head_dim", 128},
          {"max_position_embeddings", 262144},
          {"rms_norm_eps", 1e-6},
          {"hidden_act", "silu"},
          {"tie_word_embeddings", false},
          {"attention_bias", false},
          {"gating", "per-head"},
          {"sliding_window", 512},
          {"layer_types", types},
          {"mlp_layer_types", mlp},
          {"mlp_only_layers", {0}},
          {"num_experts", 256},
          {"num_experts_per_tok", 8},
          {"moe_intermediate_size", 512},
          {"shared_expert_intermediate_size", 512},
          {"norm_topk_prob", true},
          {"moe_routed_scaling_factor", 2.5},
          {"torch_dtype", "bfloat16"}};
}

}  // namespace

TEST_CASE("layer heads: Step-3.5-Flash's sliding layers have their own 96 query heads", "[layer-heads]") {
  // stepfun-ai/Step-3.5-Flash's config.json (tests/fixtures/hf_configs_2026/PROVENANCE.md).
  // StepFun's model card: "it selectively activates only 11B of its 196B parameters per token".
  const ModelSpec m = servesim::testing::hf::load("step-3.5-flash");
  CHECK(m.architecture == "Step3p5ForCausalLM");
  CHECK(m.layers == 45);
  // layer_types lists 48 entries (its 3 MTP layers too): of the first 45, 12 full (0, 4, ..., 44)
  // and 33 sliding with a 512-token window.
  CHECK(m.local.kind == LocalAttention::Kind::sliding);
  CHECK(m.local.span == 512);
  CHECK(m.local.layers == 33);
  CHECK(m.global_attention_layers() == 12);
  CHECK(m.heads_of(true) == 64);   // num_attention_heads
  CHECK(m.heads_of(false) == 96);  // attention_other_setting.num_attention_heads
  CHECK(m.kv_heads_of(true) == 8);
  CHECK(m.kv_heads_of(false) == 8);
  CHECK(m.head_dim_of(true) == 128);
  CHECK(m.head_dim_of(false) == 128);
  CHECK(m.q_dim_of(true) == 64 * 128);
  CHECK(m.q_dim_of(false) == 96 * 128);
  CHECK(m.moe.num_experts == 288);
  CHECK(m.moe.experts_per_token == 8);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.moe.dense_layers == 3);  // moe_layers_enum "3,4,...,44"
  CHECK(m.moe_layers() == 42);
  CHECK(m.mtp_layers == 0);  // num_nextn_predict_layers 3: not counted (read_step3p7 says why)
  CHECK(m.active_count == ModelSpec::ActiveCount::no_tables);

  // vLLM's Step3p5Attention: q 4096 x heads x 128, k and v 4096 x 8 x 128 each, o heads x 128 x
  // 4096, no biases. Full layer (64 heads): 33,554,432 + 8,388,608 + 33,554,432 = 75,497,472.
  // Sliding layer (96 heads): 50,331,648 + 8,388,608 + 50,331,648 = 109,051,904.
  const std::int64_t full = 4096LL * (64 * 128 + 2 * 8 * 128) + 64LL * 128 * 4096;
  const std::int64_t sliding = 4096LL * (96 * 128 + 2 * 8 * 128) + 96LL * 128 * 4096;
  CHECK(full == 75497472);
  CHECK(sliding == 109051904);
  CHECK(m.attention_params_of(true) == full);
  CHECK(m.attention_params_of(false) == sliding);
  // Dense layers 0-2: 3 x 4096 x 11264; an expert (and the shared one, share_expert_dim 1280):
  // 3 x 4096 x 1280; the router 4096 x 288. Tables 2 x 128896 x 4096 (untied); norms 91 x 4096.
  const std::int64_t dense = 3LL * 4096 * 11264, expert = 3LL * 4096 * 1280, router = 4096LL * 288;
  const std::int64_t tables = 2LL * 128896 * 4096, norms = (2LL * 45 + 1) * 4096;
  const std::int64_t total = 12 * full + 33 * sliding + 3 * dense + 42 * (router + 289 * expert) + tables + norms;
  const std::int64_t active_all = 12 * full + 33 * sliding + 3 * dense + 42 * (router + 9 * expert) + tables + norms;
  CHECK(total == 196939984896);
  CHECK(m.total_params() == total);
  CHECK(m.active_params_all_tables() == active_all);  // 11,971,178,496
  CHECK(m.active_params() == active_all - tables);    // 10,915,262,464: neither table
  CHECK(within(static_cast<double>(m.total_params()), 196e9, 0.02));   // +0.48%
  CHECK(within(static_cast<double>(m.active_params()), 11e9, 0.02));   // -0.77%
  // The other accountings, for the record: the LM head counted 11.44B (+4.0%), both tables
  // 11.97B (+8.8%): only "neither table" fits StepFun's 11B.
  CHECK_FALSE(within(static_cast<double>(active_all - 128896LL * 4096), 11e9, 0.02));
  // Not counted: the head-wise output gate (use_head_wise_attn_gate: g_proj 4096 -> heads),
  // 12 x 4096 x 64 + 33 x 4096 x 96 = 16,121,856 weights, 0.15% of the active figure.
  CHECK(12LL * 4096 * 64 + 33LL * 4096 * 96 == 16121856);

  // KV per token: 2 x 8 x 128 on every layer, whatever its query heads (bf16: 2 B).
  CHECK(m.kv_bytes_per_token(DType::bf16) == 45.0 * 2 * 8 * 128 * 2);

  // inspect's JSON and notes say the two head counts.
  const nlohmann::json j = model_json(m);
  CHECK(j["attention_heads_by_kind"]["global"]["heads"] == 64);
  CHECK(j["attention_heads_by_kind"]["local"]["heads"] == 96);
  CHECK(j["attention_heads_by_kind"]["local"]["layers"] == 33);
  bool noted = false;
  for (const std::string& n : model_notes(m)) noted = noted || n.find("96 on the 33 local") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("layer heads: Step-3.7-Flash's wrapper holds the same Step3p5 text model", "[layer-heads]") {
  // Step3p7ForConditionalGeneration's text_config is a "step3p5" config (vLLM's step3p5 loader
  // takes text_config; third-party ports quote its attention_other_setting {num_attention_heads 96,
  // num_attention_groups 8}). The language model's figures are Step-3.5's.
  nlohmann::json text = servesim::testing::hf::read_fixture("step-3.5-flash");
  text.erase("architectures");
  const nlohmann::json j = {{"architectures", {"Step3p7ForConditionalGeneration"}},
                            {"model_type", "step3p7"},
                            {"text_config", text}};
  const ModelSpec m = load_edited(j, "step3p7-wrapper");
  const ModelSpec flash = servesim::testing::hf::load("step-3.5-flash");
  CHECK(m.heads_of(false) == 96);
  CHECK(m.heads_of(true) == 64);
  CHECK(m.total_params() == flash.total_params());
  CHECK(m.active_params() == flash.active_params());
}

TEST_CASE("layer heads: Laguna-XS reads 48 query heads on full layers, 64 on sliding", "[layer-heads]") {
  // poolside, Laguna XS.2 model card (huggingface.co/poolside/Laguna-XS.2): "33B total parameters
  // with 3B activated per token"; SGLang's Laguna-XS.2 cookbook: "33.4B total parameters, 3.0B
  // active per token".
  const ModelSpec m = load_edited(laguna_xs(), "laguna-xs");
  CHECK(m.architecture == "LagunaForCausalLM");
  CHECK(m.local.layers == 30);
  CHECK(m.global_attention_layers() == 10);
  CHECK(m.heads_of(true) == 48);
  CHECK(m.heads_of(false) == 64);
  CHECK(m.global_heads == 48);
  CHECK(m.kv_heads_of(true) == 8);
  CHECK(m.kv_heads_of(false) == 8);
  CHECK(m.moe.dense_layers == 1);
  CHECK(m.moe_layers() == 39);
  CHECK(m.moe.shared_experts == 1);
  CHECK(m.moe.shared_expert_ffn == 512);
  CHECK(m.qk_head_norms);
  CHECK_FALSE(m.attention_output_gate);  // gating "per-head": hidden -> heads, not counted

  // vLLM's LagunaAttention: qkv_proj 2048 -> (heads + 2 x 8) x 128, o_proj heads x 128 -> 2048, no
  // biases. Full (48 heads): 2048 x (6144 + 2048) + 6144 x 2048 = 29,360,128; sliding (64 heads):
  // 2048 x (8192 + 2048) + 8192 x 2048 = 37,748,736.
  const std::int64_t full = 2048LL * (48 * 128 + 2 * 8 * 128) + 48LL * 128 * 2048;
  const std::int64_t sliding = 2048LL * (64 * 128 + 2 * 8 * 128) + 64LL * 128 * 2048;
  CHECK(m.attention_params_of(true) == full);
  CHECK(m.attention_params_of(false) == sliding);
  // Layer 0's LagunaMLP 3 x 2048 x 8192; an expert and the shared one 3 x 2048 x 512; the gate
  // 2048 x 256. Tables 2 x 100352 x 2048; norms 81 x 2048 and the q/k norms 2 x 40 x 128.
  const std::int64_t dense = 3LL * 2048 * 8192, expert = 3LL * 2048 * 512, router = 2048LL * 256;
  const std::int64_t tables = 2LL * 100352 * 2048, norms = 81LL * 2048 + 2LL * 40 * 128;
  const std::int64_t total = 10 * full + 30 * sliding + dense + 39 * (router + 257 * expert) + tables + norms;
  const std::int64_t active = 10 * full + 30 * sliding + dense + 39 * (router + 9 * expert) + tables + norms;
  CHECK(m.total_params() == total);    // 33,437,691,904
  CHECK(m.active_params() == active);  // 3,012,210,688: both tables
  CHECK(total == 33437691904);
  CHECK(within(static_cast<double>(m.total_params()), 33e9, 0.02));    // +1.33%
  CHECK(within(static_cast<double>(m.total_params()), 33.4e9, 0.02));  // +0.11%
  CHECK(within(static_cast<double>(m.active_params()), 3e9, 0.02));    // +0.41%
  // Not counted: the per-head gate g_proj, 10 x 2048 x 48 + 30 x 2048 x 64 = 4,915,200 weights
  // (0.16% of the active figure).

  SECTION("per-element gating is the counted output gate") {
    nlohmann::json j = laguna_xs();
    j["gating"] = "per-element";
    const ModelSpec g = load_edited(j, "laguna-per-element");
    CHECK(g.attention_output_gate);
    // g_proj 2048 -> heads x 128 on each layer.
    CHECK(g.total_params() - m.total_params() == 10LL * 2048 * 48 * 128 + 30LL * 2048 * 64 * 128);
  }
  SECTION("without mlp_layer_types, vLLM's mlp_only_layers rule gives the same layers") {
    nlohmann::json j = laguna_xs();
    j.erase("mlp_layer_types");
    CHECK(load_edited(j, "laguna-only-layers").total_params() == m.total_params());
  }
  SECTION("one head count for every layer (Laguna M.1's uniform shape) needs no list") {
    nlohmann::json j = laguna_xs();
    j.erase("num_attention_heads_per_layer");
    const ModelSpec u = load_edited(j, "laguna-uniform");
    CHECK(u.global_heads == 0);
    CHECK(u.heads == 48);
    CHECK_FALSE(u.mixed_attention_shapes());
  }
}

TEST_CASE("layer heads: a per-layer head list that does not follow the layer kinds is refused", "[layer-heads]") {
  SECTION("two counts among the sliding layers") {
    nlohmann::json j = laguna_xs();
    j["num_attention_heads_per_layer"][5] = 32;
    const std::string e = error_of([&] { load_edited(j, "laguna-three"); });
    CHECK_THAT(e, Contains("num_attention_heads_per_layer gives the full_attention layers 48 query heads and the "
                           "sliding_attention layers 32, 64"));
    CHECK_THAT(e, Contains("one query head count per layer kind"));
  }
  SECTION("a list of the wrong length, or not of head counts") {
    nlohmann::json j = laguna_xs();
    j["num_attention_heads_per_layer"] = {48, 64};
    CHECK_THAT(error_of([&] { load_edited(j, "laguna-short"); }),
               Contains("num_attention_heads_per_layer must list the query heads of each of the 40 layers"));
    j = laguna_xs();
    j["num_attention_heads_per_layer"][3] = "64";
    CHECK_THAT(error_of([&] { load_edited(j, "laguna-string"); }),
               Contains("num_attention_heads_per_layer entries must be positive head counts, got \"64\""));
    j["num_attention_heads_per_layer"][3] = 0;
    CHECK_THAT(error_of([&] { load_edited(j, "laguna-zero"); }),
               Contains("num_attention_heads_per_layer entries must be positive head counts, got 0"));
  }
  SECTION("a list without layer_types") {
    nlohmann::json j = laguna_xs();
    j.erase("layer_types");
    CHECK_THAT(error_of([&] { load_edited(j, "laguna-no-types"); }),
               Contains("num_attention_heads_per_layer needs layer_types"));
  }
  SECTION("a count that is not whole KV groups") {
    nlohmann::json j = laguna_xs();
    for (auto& h : j["num_attention_heads_per_layer"])
      if (h == 48) h = 44;
    CHECK_THAT(error_of([&] { load_edited(j, "laguna-groups"); }),
               Contains("44 attention heads of the global layers are not a multiple of their 8 KV heads"));
  }
  SECTION("a window that does not bind leaves no sliding layer to give the count") {
    nlohmann::json j = laguna_xs();
    j["sliding_window"] = 262144;
    CHECK_THAT(error_of([&] { load_edited(j, "laguna-wide"); }),
               Contains("sliding_window (262144) does not bind below max_position_embeddings"));
  }
  SECTION("Step's attention_other_setting of heads not in whole KV groups") {
    nlohmann::json j = servesim::testing::hf::read_fixture("step-3.5-flash");
    j["attention_other_setting"]["num_attention_heads"] = 92;
    j["attention_other_setting"]["num_attention_groups"] = 8;
    CHECK_THAT(error_of([&] { load_edited(j, "step-92"); }),
               Contains("attention_other_setting gives the sliding layers 92 heads, 8 KV heads"));
    j["attention_other_setting"] = 96;
    CHECK_THAT(error_of([&] { load_edited(j, "step-scalar"); }), Contains("attention_other_setting must be an object"));
  }
  SECTION("tp must divide both kinds' query heads") {
    const ModelSpec m = load_edited(laguna_xs(), "laguna-tp");
    Parallelism p;
    p.tp = 32;  // divides the sliding layers' 64 heads, not the full layers' 48
    CHECK_THAT(error_of([&] { validate_parallelism(p, m); }),
               Contains("tp=32 does not divide 48 attention heads of the full-attention layers"));
    p.tp = 16;
    CHECK_NOTHROW(validate_parallelism(p, m));
  }
}

TEST_CASE("layer heads: attention cost of a full and a sliding layer at their own head counts", "[layer-heads]") {
  // Step-3.5-Flash on 8 H100s (tp 8): per GPU 64 / 8 = 8 query heads on a full layer, 96 / 8 = 12
  // on a sliding one, 8 / 8 = 1 KV head on both; head_dim 128 (scores over 128, values over 128).
  const Setup s = setup_of(servesim::testing::hf::fixture("step-3.5-flash"), 8);
  const CostModel cost = make_cost_model(s);
  const double hd = 128, full_layers = 12, sliding_layers = 33;
  const ShardShape& sh = cost.shard();
  CHECK(gpu_heads_of(s.model, sh, true) == 8);
  CHECK(gpu_heads_of(s.model, sh, false) == 12);

  // Decode of one sequence at context 10,000: a full layer's query scores 10,001 keys, a sliding
  // layer's 512; 2 FLOPs per head and dimension for the scores and again for the values.
  const StepCost step = decode_step(cost, 1, 10000);
  const OpCost& attn = op_named(step, "attention_decode");
  const double full_flops = 2.0 * 8 * (hd + hd) * 10001;     // one full layer
  const double sliding_flops = 2.0 * 12 * (hd + hd) * 512;  // one sliding layer
  CHECK(attn.flops == Approx(full_layers * full_flops + sliding_layers * sliding_flops).epsilon(1e-12));
  // KV read: 1 KV head x (128 + 128) x 2 B per key, whatever the query heads.
  CHECK(attn.kv_bytes == Approx((full_layers * 10001 + sliding_layers * 512) * 256 * 2).epsilon(1e-12));

  // Prefill of 4096 tokens: 4096 x 4097 / 2 causal pairs on a full layer; on a sliding layer
  // 512 x 513 / 2 + (4096 - 512) x 512.
  BatchSummary b = cost.batch();
  b.add(SeqWork{4096, 0, true});
  const StepCost pre = cost.breakdown(b);
  const double full_pairs = 4096.0 * 4097 / 2, sliding_pairs = 512.0 * 513 / 2 + (4096.0 - 512) * 512;
  CHECK(op_named(pre, "attention_prefill").flops ==
        Approx(full_layers * 2.0 * 8 * 2 * hd * full_pairs + sliding_layers * 2.0 * 12 * 2 * hd * sliding_pairs)
            .epsilon(1e-12));
  // The projections at each kind's width: q/k/v out (heads + 2 x 1) x 128 and o_proj in heads x 128,
  // from and to the hidden 4096, over the 4096 tokens.
  const double T = 4096, hidden = 4096;
  CHECK(op_named(pre, "qkv_proj").flops ==
        Approx(2.0 * T * hidden * (full_layers * (8 + 2) * hd + sliding_layers * (12 + 2) * hd)).epsilon(1e-12));
  CHECK(op_named(pre, "o_proj").flops ==
        Approx(2.0 * T * hidden * (full_layers * 8 * hd + sliding_layers * 12 * hd)).epsilon(1e-12));

  // The weights a GPU holds: against the same model priced as if every layer were a full one of
  // 64 heads, the 33 sliding layers' extra 32 heads of q_proj and o_proj (2 x 4096 x 32 x 128 a
  // layer), over 8 GPUs, 2 bytes each (bf16).
  ModelSpec uniform = s.model;
  uniform.global_heads = 0;
  uniform.heads = 64;
  const double all = weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism());
  const double as_full = weight_bytes_per_gpu(uniform, cost.precision(), cost.parallelism());
  CHECK(all - as_full == Approx(33.0 * 2 * 4096 * 32 * 128 / 8 * 2).epsilon(1e-12));
}

TEST_CASE("layer heads: models without a global head count are priced as before", "[layer-heads]") {
  // heads_of(global) is heads on both kinds when global_heads is 0, so Gemma 4's own global
  // shapes (head width and KV heads) keep their figures; docs_outputs.py --check covers the rest.
  const ModelSpec g = servesim::testing::hf::load("gemma-4-26b-a4b");
  CHECK(g.global_heads == 0);
  CHECK(g.heads_of(true) == g.heads);
  CHECK(g.heads_of(false) == g.heads);
  CHECK(g.q_dim_of(false) == g.q_dim());
  const ModelSpec o = servesim::testing::hf::load("gpt-oss-20b");
  CHECK_FALSE(o.mixed_attention_shapes());
  CHECK(o.attention_params_of(true) == o.attention_params_of(false));
}
