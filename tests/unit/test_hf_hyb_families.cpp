// The hybrid families of hf_hyb_families.cpp in closed form: MiniMax-Text-01 / MiniMax-M1
// (lightning attention, StateLayers::Kind::lightning, beside softmax attention and MoE) and
// Nemotron-H Puzzle (Nemotron-H blocks whose MoE blocks each have their own width and top-k).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "hf_fixtures.h"
#include "model/hf_json.h"
#include "test_sim_helpers.h"
#include "util/warnings.h"

using namespace servesim;
using servesim::testing::decode_step;
using servesim::testing::error_of;
using servesim::testing::find_op;
using servesim::testing::hf::within;
using Catch::Contains;

namespace {

ModelSpec load_edited(const nlohmann::json& j, const std::string& tag) {
  return servesim::testing::hf::load_edited(j, "servesim-hyb-", tag);
}

// MiniMax-Text-01's config.json (MiniMaxAI/MiniMax-Text-01 on Hugging Face), the fields that
// shape it: as its model card lists them (MiniMax-AI/MiniMax-01's MiniMax-Text-01-Model-Card.md,
// read in the mirror mahmoudgaza2023/MiniMax-01@0633f4eafc7b3cfec2c80d006e75f685a4f34631: 80
// layers, "a softmax attention is positioned after every 7 lightning attention", 64 heads of
// 128, 32 experts of 9216, top-2, hidden 6144, vocabulary 200,064) and as the config writes them
// (num_key_value_heads 8, attn_type_list [0,0,0,0,0,0,0,1] x 10, untied table, postnorm).
nlohmann::json minimax_text01() {
  std::vector<int> types;
  for (int i = 0; i < 80; ++i) types.push_back(i % 8 == 7 ? 1 : 0);
  return {{"architectures", {"MiniMaxText01ForCausalLM"}},
          {"model_type", "minimax_text_01"},
          {"hidden_size", 6144},
          {"intermediate_size", 9216},
          {"num_hidden_layers", 80},
          {"num_attention_heads", 64},
          {"num_key_value_heads", 8},
          {"head_dim", 128},
          {"rotary_dim", 64},
          {"vocab_size", 200064},
          {"max_position_embeddings", 10240000},
          {"rope_theta", 10000000},
          {"rms_norm_eps", 1e-5},
          {"hidden_act", "silu"},
          {"num_local_experts", 32},
          {"num_experts_per_tok", 2},
          {"attn_type_list", types},
          {"layernorm_full_attention_alpha", 3.5565588200778455},
          {"layernorm_full_attention_beta", 1.0},
          {"layernorm_linear_attention_alpha", 3.5565588200778455},
          {"layernorm_linear_attention_beta", 1.0},
          {"layernorm_mlp_alpha", 3.5565588200778455},
          {"layernorm_mlp_beta", 1.0},
          {"postnorm", true},
          {"tie_word_embeddings", false},
          {"torch_dtype", "bfloat16"}};
}

double billions(std::int64_t n) { return static_cast<double>(n) / 1e9; }

}  // namespace

TEST_CASE("MiniMax-Text-01: lightning and softmax layers counted by hand, and the model card's figures",
          "[hf][hyb][minimax]") {
  const ModelSpec m = load_edited(minimax_text01(), "text01");
  REQUIRE(m.state.kind == StateLayers::Kind::lightning);
  CHECK(m.state.layers == 70);
  CHECK(m.attention_layers() == 10);
  CHECK(m.moe.num_experts == 32);
  CHECK(m.moe.experts_per_token == 2);
  CHECK(m.moe_layers() == 80);
  // Lightning layer (P = 64 x 128 = 8192): qkv_proj 6144 x 3P + output_gate 6144 x P + out_proj
  // P x 6144 = 5 x 8192 x 6144 = 251,658,240, and the RMSNorm over P: 8,192  -> 251,666,432
  CHECK(m.state.params_per_layer(m.hidden) == 251666432);
  // Softmax layer: q 6144 x 8192 + k, v 6144 x 1024 each + o 8192 x 6144           -> 113,246,208
  CHECK(m.attention_params_per_layer() == 113246208);
  // MoE layer: router 6144 x 32 = 196,608 + 32 experts x 3 x 6144 x 9216 (169,869,312 each)
  //                                                                                 -> 5,436,014,592
  CHECK(m.moe_params_per_layer() == 5436014592LL);
  // total = 70 x 251,666,432 (17,616,650,240) + 10 x 113,246,208 (1,132,462,080)
  //       + 80 x 5,436,014,592 (434,881,167,360) + embedding and head 2 x 200,064 x 6144
  //       (2,458,386,432) + RMSNorms (2 a layer + the final one) 161 x 6144 (989,184)
  //       = 456,089,655,296
  CHECK(m.total_params() == 456089655296LL);
  // active, without the tables as MiniMax counts them: the mixers and norms as above +
  // 80 x (196,608 + 2 x 169,869,312) = 27,193,835,520 -> 45,944,920,064
  CHECK(m.active_params() == 45944920064LL);
  // The model card: "456 billion total parameters, of which 45.9 billion are activated per token".
  CHECK(within(billions(m.total_params()), 456.0, 0.02));   // +0.02%
  CHECK(within(billions(m.active_params()), 45.9, 0.02));   // +0.10%
  // State a sequence holds whatever its length: 70 layers x 64 heads x 128 x 128 at bf16 (vLLM's
  // linear_attention_state_dtype: the model's) = 146,800,640 bytes; no convolution window.
  CHECK(m.state.conv_state_elements() == 0);
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 146800640.0);
  // KV per token: the 10 softmax layers' 8 KV heads x 128 x (K and V) x 2 bytes = 40,960.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 40960.0);
  CHECK(m.state.describe() == "lightning attention on 70 layers (64 heads of 128 x 128 state)");
}

TEST_CASE("MiniMax-M1 and transformers' MiniMaxForCausalLM read as MiniMax-Text-01", "[hf][hyb][minimax]") {
  // MiniMax-M1 (MiniMaxAI/MiniMax-M1-40k / -80k) is MiniMax-Text-01's architecture: its model card
  // gives the same "456 billion parameters with 45.9 billion activated per token".
  nlohmann::json j = minimax_text01();
  j["architectures"] = {"MiniMaxM1ForCausalLM"};
  j["model_type"] = "minimax_m1";
  CHECK(load_edited(j, "m1").total_params() == 456089655296LL);
  // transformers' native config: layer_types names the layers, block_size the lightning block.
  nlohmann::json t = minimax_text01();
  t["architectures"] = {"MiniMaxForCausalLM"};
  t["model_type"] = "minimax";
  std::vector<std::string> types;
  for (int i = 0; i < 80; ++i) types.push_back(i % 8 == 7 ? "full_attention" : "linear_attention");
  t.erase("attn_type_list");
  t["layer_types"] = types;
  t["block_size"] = 256;
  const ModelSpec n = load_edited(t, "native");
  CHECK(n.total_params() == 456089655296LL);
  CHECK(n.state.chunk == 256);
}

TEST_CASE("MiniMax: what the reader refuses and a shared MLP", "[hf][hyb][minimax]") {
  nlohmann::json j = minimax_text01();
  j.erase("attn_type_list");
  CHECK_THAT(error_of([&] { load_edited(j, "notypes"); }), Contains("attn_type_list"));
  j = minimax_text01();
  j["attn_type_list"] = {0, 1};
  CHECK_THAT(error_of([&] { load_edited(j, "short"); }), Contains("each of the 80 layers"));
  j = minimax_text01();
  std::vector<int> experts(80, 32);
  experts[3] = 16;
  j["num_local_experts"] = experts;
  CHECK_THAT(error_of([&] { load_edited(j, "varied"); }), Contains("num_local_experts differs between layers"));
  // vLLM reads shared_intermediate_size[layer] as 0 past the list's end: [0] is no shared MLP,
  // [1024] a shared MLP on layer 0 only (refused: one shape for every layer).
  j = minimax_text01();
  j["shared_intermediate_size"] = {0};
  CHECK(load_edited(j, "shared0").total_params() == 456089655296LL);
  j["shared_intermediate_size"] = {1024};
  CHECK_THAT(error_of([&] { load_edited(j, "shared1"); }), Contains("shared_intermediate_size differs"));
  // shared_intermediate_size: a shared SwiGLU MLP of that width beside the experts on every
  // layer: + 80 x 3 x 6144 x 1024 = 1,509,949,440 in the total and the active figures.
  j = minimax_text01();
  j["shared_intermediate_size"] = 1024;
  const ModelSpec s = load_edited(j, "shared");
  CHECK(s.total_params() == 456089655296LL + 1509949440LL);
  CHECK(s.active_params() == 45944920064LL + 1509949440LL);
}

TEST_CASE("Lightning attention's work per token", "[hf][hyb][minimax]") {
  const ModelSpec m = load_edited(minimax_text01(), "flops");
  // Per head of dk = dv = 128: decode 5 dk dv = 81,920 (decay and rank-1 update 3, read-out 2);
  // prefill in blocks of 256: 4 dk dv + 256 (dk + dv) = 65,536 + 65,536 = 131,072. x 64 heads.
  CHECK(m.state.decode_flops_per_token() == 64.0 * 81920.0);
  CHECK(m.state.prefill_flops_per_token() == 64.0 * 131072.0);
}

TEST_CASE("Lightning attention in a decode step: the state read and written once, no convolution",
          "[hf][hyb][minimax]") {
  const std::string dir = servesim::testing::hf::write_edited(minimax_text01(), "servesim-hyb-", "cost");
  const Setup s = parse_setup_only(parse_yaml_text("hardware: {gpu: h200-sxm}\nmodel: {name: " + dir +
                                                   "}\nparallelism: {tp: 8}\n"
                                                   "engine: {max_num_seqs: 64, prefix_caching: false}\n"),
                                   "s.yaml");
  const CostModel cost = make_cost_model(s);
  const StepCost short_ctx = decode_step(cost, 4, 1000), long_ctx = decode_step(cost, 4, 100000);
  const OpCost* update = find_op(short_ctx, "state_update_decode");
  REQUIRE(update != nullptr);
  // Per GPU (tp 8: 8 of the 64 heads): 4 sequences x 70 layers x 8 heads x 128 x 128 x 2 B, read
  // and written: 2 x 4 x 70 x 262,144 = 146,800,640 B, at any context length.
  CHECK(update->kv_bytes == Approx(2.0 * 4 * 70 * 262144.0).epsilon(1e-12));
  CHECK(find_op(long_ctx, "state_update_decode")->kv_bytes == update->kv_bytes);
  CHECK(find_op(short_ctx, "state_conv") == nullptr);  // no convolution, no launches priced for one
  CHECK(find_op(short_ctx, "state_in_proj") != nullptr);
  CHECK(find_op(short_ctx, "state_out_proj") != nullptr);
}

namespace {

// Nemotron 3 Super (the vendored nemotron-3-super-120b-a12b-fp8 config) written as a Puzzle
// config: block_configs from its hybrid_override_pattern, each MoE block with the model's
// moe_intermediate_size and num_experts_per_tok, which Puzzle configs hold only blockwise
// (Megatron-Bridge's NemotronHPuzzleBridge.megatron_to_hf_config drops the top-level ones), and
// num_hidden_layers null as in Puzzle configs.
nlohmann::json super_as_puzzle() {
  // read_hf_json_file: the file's bare Infinity (time_step_limit) as transformers writes it.
  nlohmann::json j = read_hf_json_file(servesim::testing::hf::fixture("nemotron-3-super-120b-a12b-fp8") + "/config.json");
  j.erase("quantization_config");
  nlohmann::json blocks = nlohmann::json::array();
  for (const char c : j["hybrid_override_pattern"].get<std::string>()) {
    if (c == 'M') blocks.push_back({{"block_type", "mamba"}});
    else if (c == '*') blocks.push_back({{"block_type", "attention"}});
    else blocks.push_back({{"block_type", "moe"}, {"moe_intermediate_size", 2688}, {"num_experts_per_tok", 22}});
  }
  j["architectures"] = {"NemotronHPuzzleForCausalLM"};
  j["model_type"] = "nemotron_h_puzzle";
  j["block_configs"] = blocks;
  j["num_hidden_layers"] = nullptr;
  for (const char* k : {"hybrid_override_pattern", "moe_intermediate_size", "num_experts_per_tok"}) j.erase(k);
  return j;
}

// A small Puzzle: hidden 256, blocks mamba, moe (width 128, top 2), attention, moe (width 384,
// top 8); 64 routed experts, one shared expert of 256; Mamba-2 of 8 heads of 32, 2 groups,
// d_state 16; attention of 4 heads of 64 with 2 KV heads; untied table of 1000.
nlohmann::json small_puzzle() {
  return {{"architectures", {"NemotronHPuzzleForCausalLM"}},
          {"model_type", "nemotron_h_puzzle"},
          {"hidden_size", 256},
          {"num_hidden_layers", nullptr},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"head_dim", 64},
          {"vocab_size", 1000},
          {"n_routed_experts", 64},
          {"n_shared_experts", 1},
          {"moe_shared_expert_intermediate_size", 256},
          {"mamba_num_heads", 8},
          {"mamba_head_dim", 32},
          {"n_groups", 2},
          {"ssm_state_size", 16},
          {"conv_kernel", 4},
          {"mamba_ssm_cache_dtype", "float32"},
          {"mlp_hidden_act", "relu2"},
          {"tie_word_embeddings", false},
          {"block_configs",
           {{{"block_type", "mamba"}},
            {{"block_type", "moe"}, {"moe_intermediate_size", 128}, {"num_experts_per_tok", 2}},
            {{"block_type", "attention"}},
            {{"block_type", "moe"}, {"moe_intermediate_size", 384}, {"num_experts_per_tok", 8}}}}};
}

}  // namespace

TEST_CASE("Nemotron-H Puzzle: uniform blocks read exactly as Nemotron-H", "[hf][hyb][puzzle]") {
  const ModelSpec super = servesim::testing::hf::load("nemotron-3-super-120b-a12b-fp8");
  (void)take_warnings();
  const ModelSpec p = load_edited(super_as_puzzle(), "super");
  CHECK(take_warnings().empty());  // nothing approximated
  CHECK(p.layers == 88);
  CHECK(p.moe.num_experts == 512);
  CHECK(p.moe.expert_ffn == 2688);
  CHECK(p.moe.experts_per_token == 22);
  CHECK(p.total_params() == super.total_params());
  CHECK(p.active_params() == super.active_params());
  CHECK(p.state_bytes_per_sequence(DType::bf16) == super.state_bytes_per_sequence(DType::bf16));
  CHECK(p.kv_bytes_per_token(DType::bf16) == super.kv_bytes_per_token(DType::bf16));
}

TEST_CASE("Nemotron-H Puzzle: blocks of differing widths and top-k, as the uniform MoE of the same sums",
          "[hf][hyb][puzzle]") {
  (void)take_warnings();
  const ModelSpec m = load_edited(small_puzzle(), "small");
  const std::vector<std::string> w = take_warnings();
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Contains("read as a uniform MoE of 69 experts of width 238, top 7"));
  // Blockwise sums over the L = 2 MoE blocks: widths S = 128 + 384 = 512; top-k x width
  // A = 2 x 128 + 8 x 384 = 3,328; experts x width T = 64 x 512 = 32,768.
  // k' = round(A / S) = round(6.5) = 7; f' = round(A / (L k')) = round(237.7) = 238;
  // E' = round(T / (L f')) = round(68.8) = 69.
  CHECK(m.moe.experts_per_token == 7);
  CHECK(m.moe.expert_ffn == 238);
  CHECK(m.moe.num_experts == 69);
  CHECK(m.moe_layers() == 2);
  CHECK(m.state.layers == 1);
  CHECK(m.attention_layers() == 1);
  // Mamba-2 block (d_inner 256, G N = 32): in_proj 256 x (2 x 256 + 2 x 32 + 8) = 149,504;
  //   conv (256 + 64) x 4 + bias 320 = 1,600; dt_bias, A_log, D 3 x 8 + norm 256 = 280;
  //   out_proj 256 x 256 = 65,536                                            ->    216,920
  // attention: 256 x (256 + 128 + 128) + 256 x 256                          ->    196,608
  // MoE block: router 256 x 69 = 17,664; 69 experts of up + down 2 x 256 x 238 (121,856) =
  //   8,408,064; shared expert 2 x 256 x 256 = 131,072                      -> 8,556,800; x 2
  // table and head 2 x 1000 x 256 = 512,000; RMSNorms (4 blocks + final) 5 x 256 = 1,280
  // total = 216,920 + 196,608 + 17,113,600 + 512,000 + 1,280                 = 18,040,408
  CHECK(m.total_params() == 18040408);
  // active (Nemotron's figures: the head, not the embedding): the mixers and norms + 2 x
  // (17,664 + 7 x 121,856 + 131,072) = 2,003,456 + head 256,000            =  2,674,264
  CHECK(m.active_params() == 2674264);
  // Against the blocks themselves: routed weights 64 x 2 x 256 x 512 = 16,777,216 and routers
  // 2 x 256 x 64 = 32,768 (the model above: 2 x (8,408,064 + 17,664) = 16,851,456, +0.25%);
  // routed reads per token 2 x 256 x 3,328 = 1,703,936 (the model: 2 x 7 x 121,856 = 1,705,984).
  const double blockwise_total = 18040408.0 - 16851456.0 + 16777216.0 + 32768.0;
  CHECK(within(static_cast<double>(m.total_params()), blockwise_total, 0.005));
  const double blockwise_active = 2674264.0 - 2.0 * 17664 - 1705984.0 + 1703936.0 + 2.0 * 256 * 64;
  CHECK(within(static_cast<double>(m.active_params()), blockwise_active, 0.005));
  // Mamba-2 state: 8 heads x 32 x 16 fp32 (mamba_ssm_cache_dtype) + the conv window (256 + 64)
  // x 3 at bf16: 16,384 + 1,920 = 18,304 bytes a sequence, whatever its length.
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 18304.0);
}

TEST_CASE("Nemotron-H Puzzle: what the reader refuses", "[hf][hyb][puzzle]") {
  nlohmann::json j = small_puzzle();
  j["block_configs"][0]["ssm_state_size"] = 64;  // vLLM builds every Mamba-2 block from the global config
  CHECK_THAT(error_of([&] { load_edited(j, "mamba"); }), Contains("ssm_state_size"));
  j = small_puzzle();
  j["block_configs"][2]["block_type"] = "linear";
  CHECK_THAT(error_of([&] { load_edited(j, "kind"); }), Contains("block_type 'linear'"));
  j = small_puzzle();
  j.erase("block_configs");
  j["num_hidden_layers"] = 4;
  CHECK_THAT(error_of([&] { load_edited(j, "none"); }), Contains("block_configs"));
  j = small_puzzle();
  j["block_configs"][1]["num_experts_per_tok"] = 65;
  CHECK_THAT(error_of([&] { load_edited(j, "topk"); }), Contains("exceeds its 64 experts"));
}

namespace {

// A small Ling 2.5 (BailingMoeV2_5Config's fields): hidden 256, 4 layers with layer_group_size 4
// (layers 0-2 lightning, layer 3 MLA), 4 heads of 64; MLA without q_lora_rank, kv_lora_rank 128,
// qk_nope 32, qk_rope 16, v_head 32; layer 0 a dense SwiGLU MLP of 512, layers 1-3 8 experts of 64
// (top 2) and one shared expert of 64; untied table of 1000.
nlohmann::json small_ling25() {
  return {{"architectures", {"BailingMoeV2_5ForCausalLM"}},
          {"model_type", "bailing_hybrid"},
          {"hidden_size", 256},
          {"num_hidden_layers", 4},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 4},
          {"head_dim", 64},
          {"intermediate_size", 512},
          {"vocab_size", 1000},
          {"layer_group_size", 4},
          {"kv_lora_rank", 128},
          {"q_lora_rank", nullptr},
          {"qk_nope_head_dim", 32},
          {"qk_rope_head_dim", 16},
          {"v_head_dim", 32},
          {"num_experts", 8},
          {"num_experts_per_tok", 2},
          {"num_shared_experts", 1},
          {"moe_intermediate_size", 64},
          {"first_k_dense_replace", 1},
          {"n_group", 2},
          {"topk_group", 1},
          {"use_qk_norm", true},
          {"tie_word_embeddings", false}};
}

}  // namespace

TEST_CASE("Ling 2.5: lightning layers beside MLA, Ling 2.0's MoE, by hand", "[hf][hyb][ling25]") {
  const ModelSpec m = load_edited(small_ling25(), "ling25");
  REQUIRE(m.state.kind == StateLayers::Kind::lightning);
  CHECK(m.state.layers == 3);  // (i + 1) % 4 != 0: layers 0, 1, 2
  CHECK(m.attention_layers() == 1);
  CHECK(m.mla.enabled());
  // lightning (P = 4 x 64 = 256): query_key_value 256 x 768 + g_proj 256 x 256 + dense 256 x 256
  //   = 327,680, g_norm 256                                                  ->   327,936; x 3
  CHECK(m.state.params_per_layer(m.hidden) == 327936);
  // MLA: q_proj 256 x 4 x 48 = 49,152; kv_a_proj_with_mqa 256 x (128 + 16) = 36,864 and its norm
  //   128; kv_b_proj 128 x 4 x (32 + 32) = 32,768; o_proj 4 x 32 x 256 = 32,768 ->   151,680
  CHECK(m.attention_params_per_layer() == 151680);
  // dense MLP (layer 0): 3 x 256 x 512 = 393,216; MoE (layers 1-3): router 256 x 8 = 2,048 +
  //   8 experts x 3 x 256 x 64 (49,152 each) = 393,216 + shared 49,152           ->   444,416; x 3
  // table and head 2 x 1000 x 256 = 512,000; RMSNorms (8 sublayers + final) 9 x 256 = 2,304
  // total = 983,808 + 151,680 + 393,216 + 1,333,248 + 512,000 + 2,304            = 3,376,256
  CHECK(m.total_params() == 3376256);
  // active: top 2 of the experts: 3 x (2,048 + 2 x 49,152 + 49,152) = 448,512 -> 2,491,520
  CHECK(m.active_params() == 2491520);
  // State: 3 layers x 4 heads x 64 x 64 at bf16 = 98,304 bytes a sequence, whatever its length;
  // KV per token: the MLA layer's latent 128 + rope key 16 at 2 bytes = 288.
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 98304.0);
  CHECK(m.kv_bytes_per_token(DType::bf16) == 288.0);
  // Ling 3 (Kimi delta attention) fields under this architecture are refused, as are lightning biases.
  nlohmann::json j = small_ling25();
  j["short_conv_kernel_size"] = 4;
  CHECK_THAT(error_of([&] { load_edited(j, "ling3"); }), Contains("Ling 3"));
  j = small_ling25();
  j["use_qkv_bias"] = true;
  CHECK_THAT(error_of([&] { load_edited(j, "bias"); }), Contains("use_qkv_bias"));
}

namespace {

// A small OLMo Hybrid: hidden 256, 4 heads (head_dim 64) with 2 KV heads, layers linear x 3 then
// full attention; Gated DeltaNet of 2 key heads of 32 and 4 value heads of 64, conv of 4 taps; a
// SwiGLU MLP of 512; untied table of 1000.
nlohmann::json small_olmo_hybrid() {
  return {{"architectures", {"OlmoHybridForCausalLM"}},
          {"model_type", "olmo_hybrid"},
          {"hidden_size", 256},
          {"num_hidden_layers", 4},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"intermediate_size", 512},
          {"vocab_size", 1000},
          {"hidden_act", "silu"},
          {"layer_types", {"linear_attention", "linear_attention", "linear_attention", "full_attention"}},
          {"linear_num_key_heads", 2},
          {"linear_num_value_heads", 4},
          {"linear_key_head_dim", 32},
          {"linear_value_head_dim", 64},
          {"linear_conv_kernel_dim", 4},
          {"linear_allow_neg_eigval", true},
          {"tie_word_embeddings", false}};
}

}  // namespace

TEST_CASE("OLMo Hybrid: Gated DeltaNet beside OLMo 2 attention, by hand", "[hf][hyb][olmo_hybrid]") {
  const ModelSpec m = load_edited(small_olmo_hybrid(), "olmoh");
  REQUIRE(m.state.kind == StateLayers::Kind::gated_delta);
  CHECK(m.state.layers == 3);
  CHECK(m.attention_layers() == 1);
  // Gated DeltaNet (Kd = 2 x 32 = 64, Vd = 4 x 64 = 256): in_proj_qkvg 256 x (64 + 64 + 256 + 256)
  //   + b_proj, a_proj 256 x 4 each = 256 x 648 = 165,888; conv (64 + 64 + 256) x 4 = 1,536;
  //   dt_bias, A_log 2 x 4 and o_norm 64 = 72; o_proj 256 x 256 = 65,536       ->   233,032; x 3
  CHECK(m.state.params_per_layer(m.hidden) == 233032);
  // attention: qkv 256 x (256 + 128 + 128) + o 256 x 256 (q/k norms not counted) -> 196,608
  CHECK(m.attention_params_per_layer() == 196608);
  // MLP 4 x 3 x 256 x 512 = 1,572,864; table and head 512,000; norms 9 x 256 = 2,304
  // total = 699,096 + 196,608 + 1,572,864 + 512,000 + 2,304                        = 2,982,872
  CHECK(m.total_params() == 2982872);
  CHECK(m.active_params() == 2982872);  // dense
  // State a sequence: 3 x (4 heads x 64 x 32 at bf16 = 16,384 + conv 384 x 3 at bf16 = 2,304) = 56,064.
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 56064.0);
  nlohmann::json j = small_olmo_hybrid();
  j.erase("layer_types");
  CHECK_THAT(error_of([&] { load_edited(j, "notypes"); }), Contains("layer_types"));
}

TEST_CASE("OLMo Hybrid 7B: the public config's shapes against the released checkpoint's count",
          "[hf][hyb][olmo_hybrid]") {
  // allenai/Olmo-Hybrid-7B's config.json fields as a transformers audit of the public 7B configs
  // tabulates them (OlmoHybridConfig's defaults are the same): hidden 3840, 32 layers, three
  // linear_attention then one full_attention, 30 heads (30 KV heads, head_dim 128), GDN of 30 key
  // heads of 96 and 30 value heads of 192, conv 4, intermediate 11008, vocabulary 100,352, untied.
  nlohmann::json j = small_olmo_hybrid();
  std::vector<std::string> types;
  for (int i = 0; i < 32; ++i) types.push_back(i % 4 == 3 ? "full_attention" : "linear_attention");
  j["hidden_size"] = 3840;
  j["num_hidden_layers"] = 32;
  j["num_attention_heads"] = 30;
  j["num_key_value_heads"] = 30;
  j["intermediate_size"] = 11008;
  j["vocab_size"] = 100352;
  j["layer_types"] = types;
  j["linear_num_key_heads"] = 30;
  j["linear_num_value_heads"] = 30;
  j["linear_key_head_dim"] = 96;
  j["linear_value_head_dim"] = 192;
  j["max_position_embeddings"] = 65536;
  const ModelSpec m = load_edited(j, "olmoh7b");
  // GDN layer: in_proj 3840 x (2 x 2880 + 2 x 5760 + 2 x 30) = 66,585,600; conv 11,520 x 4 =
  //   46,080; dt_bias, A_log 60 and o_norm 192 = 252; o_proj 5760 x 3840 = 22,118,400
  //                                                             -> 88,750,332; x 24 = 2,130,007,968
  // attention: 4 x 3840 x 3840 = 58,982,400; x 8                                =   471,859,200
  // MLP: 3 x 3840 x 11008 = 126,812,160; x 32                                   = 4,057,989,120
  // table and head 2 x 100,352 x 3840 = 770,703,360; norms (64 + 1) x 3840 = 249,600
  // total                                                                       = 7,430,809,248
  CHECK(m.state.params_per_layer(m.hidden) == 88750332);
  CHECK(m.total_params() == 7430809248LL);
  // allenai's open-instruct pins the released checkpoint's count in its OLMo Hybrid tests
  // (olmo_core_hybrid.olmo3_hybrid_7B: "7.43B total / 7.05B non-embedding, per the released
  // checkpoint", num_params 7,430,870,688). The difference, 61,440, is exactly the attention
  // layers' q_norm and k_norm (8 x (3840 + 3840)), which servesim does not count (read_olmo2).
  CHECK(7430870688LL - m.total_params() == 8 * (3840 + 3840));
  CHECK(within(static_cast<double>(m.total_params()), 7430870688.0, 0.02));
  // State a sequence: 24 x (30 x 96 x 192 at bf16 = 1,105,920 + conv 11,520 x 3 at bf16 = 69,120)
  // = 28,200,960 bytes at any context; KV per token: 8 layers x 2 x 30 x 128 x 2 B = 122,880.
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 28200960.0);
  CHECK(m.kv_bytes_per_token(DType::bf16) == 122880.0);
}
