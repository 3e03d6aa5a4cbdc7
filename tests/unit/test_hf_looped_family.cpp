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
