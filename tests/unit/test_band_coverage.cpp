// Which scenarios the shipped uncertainty bands cover (uncertainty/scenario_key.h): the measured
// serving runs behind them (data/serving) are dense GQA/MHA models and Mixtral (8 experts, top-2)
// with full attention, under TP. A model with another layer kind, a wider MoE or an
// expert-parallel layout gets no band, and the reason names what no run covered.
#include <catch2/catch.hpp>

#include <algorithm>

#include "config/scenario_reader.h"
#include "uncertainty/scenario_key.h"

using namespace servesim;

namespace {

std::vector<std::string> uncovered(const std::vector<std::string>& sets) {
  const Scenario sc = load_scenario(std::string(SERVESIM_TEST_DATA) + "/../scenarios/quickstart.yaml", sets);
  return bands::uncovered_features(sc, RunSummary{});
}

bool names(const std::vector<std::string>& v, const std::string& what) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(what) != std::string::npos; });
}

}  // namespace

TEST_CASE("band coverage: the shapes the measured runs served are covered", "[bands]") {
  CHECK(uncovered({}).empty());                             // Llama-3.1-8B, the quickstart
  CHECK(uncovered({"model.name=qwen3-14b"}).empty());       // a run's model
  CHECK(uncovered({"model.name=mixtral-8x7b"}).empty());    // 8 experts, top-2: a run's MoE
  CHECK(uncovered({"model.name=mixtral-8x22b", "parallelism.tp=4"}).empty());
}

TEST_CASE("band coverage: other layer kinds, wider MoEs and wide EP are named, not banded", "[bands]") {
  // DeepSeek-V3: MLA and 256 routed experts, top-8, one shared expert.
  const auto v3 = uncovered({"model.name=deepseek-v3", "model.weights=bf16", "parallelism.tp=8"});
  CHECK(names(v3, "multi-head latent attention"));
  CHECK(names(v3, "a MoE of 256 experts, top-8 with shared experts"));
  // DeepSeek-V3.2: its lightning indexer's top-k selection.
  CHECK(names(uncovered({"model.name=deepseek-v3.2", "parallelism.tp=8"}), "top-k sparse attention"));
  // Qwen3-Next: gated delta-rule layers (a constant state per sequence, not a KV cache).
  CHECK(names(uncovered({"model.name=qwen3-next-80b-a3b", "parallelism.tp=2"}),
              "state-space / linear-attention layers"));
  // gpt-oss: alternating sliding-window layers.
  CHECK(names(uncovered({"model.name=gpt-oss-20b"}), "sliding-window or chunked attention"));
  // Mixtral's own shape, laid out expert-parallel: no run had EP.
  CHECK(names(uncovered({"model.name=mixtral-8x7b", "parallelism.tp=1", "parallelism.attention_dp=2",
                         "parallelism.ep=2"}),
              "expert parallelism or DP attention"));
}

TEST_CASE("band coverage: prompts and outputs far longer than the runs' are named", "[bands]") {
  // The runs' prompts averaged 550-1,030 tokens within max_model_len 4,096: a mean above 4,096
  // is outside them. 10 requests of 81,920 prompt tokens in all: 8,192 on average.
  const Scenario sc = load_scenario(std::string(SERVESIM_TEST_DATA) + "/../scenarios/quickstart.yaml", {});
  RunSummary s;
  s.completed = 10;
  s.input_tokens = 81920;
  const auto v = bands::uncovered_features(sc, s);
  CHECK(names(v, "prompts of 8192 tokens on average (the runs': 550-1,030)"));
  s.input_tokens = 40960;  // 4,096 on average: inside
  CHECK(bands::uncovered_features(sc, s).empty());
  // Outputs likewise (the runs': 250-1,450 on average): 10 requests of 163,840 output tokens.
  s.output_tokens = 163840;
  CHECK(names(bands::uncovered_features(sc, s), "outputs of 16384 tokens on average (the runs': 250-1,450)"));
}
