// Ouro (hf_looped_family.cpp), a looped model: its 24 layers run total_ut_steps = 4 times a
// token, one set of weights, each pass with its own KV cache (vLLM's ouro.py). Counted by
// hand on Ouro-1.4B's config (tests/fixtures/hf_configs_from_fields/ouro-1.4b), and set against
// Llama-shaped configs of the same widths: a step and the KV are those of the 96 layers run,
// the weights held those of the 24 layers stored.
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
using servesim::testing::hf::setup_of;
using servesim::testing::hf::write_edited;
using Catch::Contains;

namespace {

std::string ouro_14b() { return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/ouro-1.4b"; }

nlohmann::json config_14b() {
  std::ifstream in(ouro_14b() + "/config.json");
  return nlohmann::json::parse(in);
}

// The same widths as a plain Llama of `layers` layers (no biases, SiLU-gated MLP, MHA).
std::string llama_shaped(int layers) {
  nlohmann::json j = config_14b();
  j["architectures"] = {"LlamaForCausalLM"};
  j["model_type"] = "llama";
  j.erase("total_ut_steps");
  j.erase("early_exit_threshold");
  j["num_hidden_layers"] = layers;
  return write_edited(j, "servesim-ouro-", "llama" + std::to_string(layers));
}

}  // namespace

TEST_CASE("Ouro-1.4B counted by hand: 24 layers stored, run 4 times, each pass with its own KV", "[hf][looped]") {
  const ModelSpec m = load_model(ouro_14b());
  CHECK(m.layer_passes == 4);
  CHECK(m.layers == 96);  // the layers run: 24 x 4
  CHECK(m.attention_layers() == 96);
  // hidden 2048, 16 heads of 2048 / 16 = 128 (16 KV heads), MLP 5632, vocabulary 49,152 untied.
  // A layer: q, k, v, o 4 x 2048 x 2048 = 16,777,216; MLP 3 x 2048 x 5632 = 34,603,008; two
  // norms 4,096: 51,384,320; x 24 = 1,233,223,680.
  // Tables 2 x 49,152 x 2048 = 201,326,592; the final norm 2,048.
  // Total 1,233,223,680 + 201,326,592 + 2,048 = 1,434,552,320 (the BF16 safetensors' 2.87 GB / 2 B).
  CHECK(m.total_params() == 1434552320);
  CHECK(m.active_params() == 1434552320);  // dense: every weight is touched, 4 times
  // The three passes after the first reuse 3/4 of the unrolled 96 layers' 96 x 51,384,320
  // = 4,932,894,720: 3,699,671,040, of which norms 3/4 x 96 x 4,096 = 294,912.
  CHECK(m.repeated_pass_params() == 3699671040);
  CHECK(m.repeated_pass_norm_params() == 294912);
  // KV: 96 cache layers x 16 KV heads x 128 x 2 (K and V) x 2 B = 786,432 bytes a token,
  // 4 times a 24-layer model's.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 786432.0);
}

TEST_CASE("Ouro: the weights are held once, a step runs every pass, as a 96-layer model of its widths",
          "[hf][looped]") {
  const Setup s = setup_of(ouro_14b(), 1);
  const CostModel cost = make_cost_model(s);
  const Setup l24 = setup_of(llama_shaped(24), 1), l96 = setup_of(llama_shaped(96), 1);
  const CostModel c24 = make_cost_model(l24), c96 = make_cost_model(l96);
  // Held: bf16 on one GPU, 2 x 1,434,552,320 bytes, the 24-layer model's.
  CHECK(weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism()) == Approx(2.0 * 1434552320).epsilon(1e-12));
  CHECK(weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism()) ==
        Approx(weight_bytes_per_gpu(l24.model, c24.precision(), c24.parallelism())).epsilon(1e-12));
  // At TP 2 the held layers split as a plain model's do.
  const Setup s2 = setup_of(ouro_14b(), 2), l24_2 = setup_of(llama_shaped(24), 2);
  const CostModel cost2 = make_cost_model(s2), c24_2 = make_cost_model(l24_2);
  CHECK(weight_bytes_per_gpu(s2.model, cost2.precision(), cost2.parallelism()) ==
        Approx(weight_bytes_per_gpu(l24_2.model, c24_2.precision(), c24_2.parallelism())).epsilon(1e-12));
  // Run: each pass streams the layers' weights again (a 2.9 GB stack does not stay in a 50 MB
  // L2) and attends over its own KV, so a decode step of 64 sequences at 2,000 tokens is the
  // 96-layer model's: FLOPs, bytes and time.
  const StepCost a = decode_step(cost, 64, 2000), b = decode_step(c96, 64, 2000), one = decode_step(c24, 64, 2000);
  CHECK(a.flops == Approx(b.flops).epsilon(1e-12));
  CHECK(a.bytes == Approx(b.bytes).epsilon(1e-12));
  CHECK(a.time == Approx(b.time).epsilon(1e-9));
  CHECK(a.time > 3.0 * one.time);  // about 4 passes' work; the tables and the head are once a step
  // The KV cache a GPU can hold: a quarter of the tokens a 24-layer model of the same weights holds.
  CHECK(s.model.kv_bytes_per_token(DType::bf16) == 4.0 * l24.model.kv_bytes_per_token(DType::bf16));
}

TEST_CASE("Ouro: total_ut_steps is read, 1 is a plain model, and a bad value is refused", "[hf][looped]") {
  auto load = [&](nlohmann::json j, const std::string& tag) {
    return servesim::testing::hf::load_edited(j, "servesim-ouro-", tag);
  };
  nlohmann::json j = config_14b();
  j["total_ut_steps"] = 1;
  const ModelSpec one = load(j, "one");
  CHECK(one.layers == 24);
  CHECK(one.total_params() == 1434552320);
  j["total_ut_steps"] = 3;
  const ModelSpec three = load(j, "three");
  CHECK(three.layers == 72);
  CHECK(three.total_params() == 1434552320);  // the passes change the work, not the weights
  CHECK(three.kv_bytes_per_token(DType::bf16) == 3.0 * one.kv_bytes_per_token(DType::bf16));
  j.erase("total_ut_steps");
  CHECK(load(j, "default").layer_passes == 4);  // vLLM's getattr default
  j["total_ut_steps"] = 0;
  CHECK_THAT(error_of([&] { load(j, "zero"); }), Contains("total_ut_steps must be a whole number of passes"));
  j = config_14b();
  j["hidden_act"] = "gelu";
  CHECK_THAT(error_of([&] { load(j, "gelu"); }), Contains("SiLU-gated"));
}

// IQuest-Loop-Coder (IQuestLoopCoderForCausalLM): 80 Llama layers run twice a token; the second
// loop reads the first loop's KV of its layer (and its own 64-token window, left out) and
// caches none of the whole context (vLLM's iquest_loopcoder.py).
namespace {

std::string iquest_40b() {
  return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_from_fields/iquest-coder-v1-40b-loop";
}

nlohmann::json iquest_config() {
  std::ifstream in(iquest_40b() + "/config.json");
  return nlohmann::json::parse(in);
}

// The same widths as a plain Llama of `layers` layers.
std::string iquest_as_llama(int layers) {
  nlohmann::json j = iquest_config();
  j["architectures"] = {"LlamaForCausalLM"};
  j["model_type"] = "llama";
  j.erase("loop_num");
  j.erase("loop_window_size");
  j["num_hidden_layers"] = layers;
  return write_edited(j, "servesim-iquest-", "llama" + std::to_string(layers));
}

}  // namespace

TEST_CASE("IQuest-Loop-Coder 40B counted by hand: 80 layers stored, run twice, KV of the first loop only",
          "[hf][looped]") {
  const ModelSpec m = load_model(iquest_40b());
  CHECK(m.layer_passes == 2);
  CHECK(m.layers == 160);  // the layers run: 80 x 2
  CHECK(m.kv_shared_global_layers == 80);
  CHECK(m.cached_attention_layers() == 80);
  // hidden 5120, 40 heads of 128, 8 KV heads, MLP 27648, vocabulary 76,800 untied.
  // A layer: q 5120 x 5120 = 26,214,400; k, v 2 x 5120 x 1024 = 10,485,760; o 26,214,400;
  // MLP 3 x 5120 x 27648 = 424,673,280; two norms 10,240: 487,598,080; x 80 = 39,007,846,400.
  // Gates: 80 x (128 x 40 + 40) = 412,800. Tables 2 x 76,800 x 5120 = 786,432,000; final norm 5,120.
  // Total 39,007,846,400 + 412,800 + 786,432,000 + 5,120 = 39,794,696,320 (IQuestLab: 40B).
  CHECK(m.loop_gate_params == 412800);
  CHECK(m.total_params() == 39794696320);
  CHECK(m.active_params() == 39794696320);
  // KV: 80 cache layers x 8 KV heads x 128 x 2 (K and V) x 2 B = 327,680 bytes a token,
  // an 80-layer Llama's: the second loop's keys live in its 64-token window only.
  CHECK(m.kv_bytes_per_token(DType::bf16) == 327680.0);
}

TEST_CASE("IQuest-Loop-Coder: a step runs both loops as a 160-layer model, the weights and KV are an 80-layer one's",
          "[hf][looped]") {
  const Setup s = setup_of(iquest_40b(), 2);
  const Setup l80 = setup_of(iquest_as_llama(80), 2), l160 = setup_of(iquest_as_llama(160), 2);
  const CostModel cost = make_cost_model(s), c80 = make_cost_model(l80), c160 = make_cost_model(l160);
  // Held at TP 2: the 80-layer model's bytes plus the gates, 412,800 / 2 x 2 B = 412,800 B.
  CHECK(weight_bytes_per_gpu(s.model, cost.precision(), cost.parallelism()) ==
        Approx(weight_bytes_per_gpu(l80.model, c80.precision(), c80.parallelism()) + 412800.0).epsilon(1e-12));
  // Run: every loop computes q, k, v, o and the MLP again and the second loop's attention reads
  // the whole context (loop 1's KV), so a decode step of 32 sequences at 4,000 tokens is the
  // 160-layer model's, but for the KV the second loop does not write: the FLOPs alike, the bytes
  // less 32 tokens x 80 layers x (4 KV heads a GPU x 128 x 2) x 2 B, written once from the
  // activations and once into the cache: 32 x 80 x 4,096 = 10,485,760 B.
  const StepCost a = decode_step(cost, 32, 4000), b = decode_step(c160, 32, 4000);
  CHECK(a.flops == Approx(b.flops).epsilon(1e-12));
  CHECK(a.bytes == Approx(b.bytes - 10485760.0).epsilon(1e-12));
  CHECK(a.time < b.time);
  CHECK(a.time == Approx(b.time).epsilon(1e-3));
  CHECK(s.model.kv_bytes_per_token(DType::bf16) == l80.model.kv_bytes_per_token(DType::bf16));
}

TEST_CASE("IQuest-Loop-Coder: loop_num is read, 1 is a plain model, bad values are refused", "[hf][looped]") {
  auto load = [&](nlohmann::json j, const std::string& tag) {
    return servesim::testing::hf::load_edited(j, "servesim-iquest-", tag);
  };
  nlohmann::json j = iquest_config();
  j["loop_num"] = 1;
  const ModelSpec one = load(j, "one");
  CHECK(one.layers == 80);
  CHECK(one.kv_shared_global_layers == 0);
  CHECK(one.total_params() == 39794696320 - 412800);  // no later loop: no gates
  j["loop_num"] = 3;
  const ModelSpec three = load(j, "three");
  CHECK(three.layers == 240);
  CHECK(three.kv_shared_global_layers == 160);
  CHECK(three.total_params() == 39794696320);
  CHECK(three.kv_bytes_per_token(DType::bf16) == one.kv_bytes_per_token(DType::bf16));
  j.erase("loop_num");
  CHECK(load(j, "default").layer_passes == 2);  // vLLM's getattr default
  j["loop_num"] = 0;
  CHECK_THAT(error_of([&] { load(j, "zero"); }), Contains("loop_num must be a whole number of loops"));
  j = iquest_config();
  j["loop_window_size"] = 0;
  CHECK_THAT(error_of([&] { load(j, "window"); }), Contains("loop_window_size must be at least 1"));
  j = iquest_config();
  j["hidden_act"] = "gelu";
  CHECK_THAT(error_of([&] { load(j, "gelu"); }), Contains("SiLU-gated"));
}
