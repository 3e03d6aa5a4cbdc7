// Wide expert parallelism end to end (docs/moe-at-scale.md): a layout written out in
// full changes nothing, the step-cost cache prices wide steps as the model does, one
// request alone runs on one DP rank's steps, the crossover of wide EP + DP attention
// against tensor parallelism, and MTP in a P/D decode pool.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/data_parallel_ranks.h"
#include "engine/step_cost_cache.h"
#include "metrics/summary_json.h"
#include "run/simulation.h"
#include "scenario/disaggregation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

const char* kWorkload =
    "{requests: 300, arrival: {process: poisson, rate: 4}, input_tokens: {dist: fixed, value: 1500}, "
    "output_tokens: {dist: fixed, value: 100}}";

Scenario deepseek(const std::string& parallelism, const std::string& moe = "", const std::string& workload = kWorkload,
                  const std::string& engine = "{max_num_seqs: 256, max_num_batched_tokens: 8192}") {
  std::string text = "hardware: {gpu: h200-sxm}\n"
                     "model: {name: deepseek-v3, weights: fp8, activations: fp8, kv_cache: bf16}\n"
                     "parallelism: " + parallelism + "\n"
                     "engine: " + engine + "\n"
                     "workload: " + workload + "\n";
  if (!moe.empty()) text += "moe: " + moe + "\n";
  ConfigNode doc = parse_yaml_text(text);
  set_number(doc, "engine.frontend_latency", 0.0);
  return parse_scenario(doc, "test.yaml");
}

std::string summary_text(const Scenario& sc) { return summary_json(simulate(sc).summary).dump(); }

BatchSummary decodes(std::int64_t n, double context) {
  BatchSummary b;
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
  b.decode_kv_tokens = static_cast<double>(n) * (context + 1.0);
  return b;
}

}  // namespace

TEST_CASE("wide EP: a 1-node EP=1 layout written out in full reproduces today's run byte for byte", "[wide_ep][sim]") {
  // Llama-3.1-8B on one H100, and DeepSeek-V3 on one 8-GPU H200 node (tp=8: EP inside TP
  // is off), each without and with the layout keys at their plain values.
  const std::string llama_workload =
      "{requests: 200, arrival: {process: poisson, rate: 6}, input_tokens: {dist: fixed, value: 700}, "
      "output_tokens: {dist: fixed, value: 120}}";
  const Scenario a = scenario_from("{kind: vllm}", llama_workload);
  const Scenario b = scenario_from("{kind: vllm}", llama_workload, "llama-3.1-8b",
                                   "{tp: 1, attention_dp: 1, ep: 1, redundant_experts: 0, nodes: 1, gpus_per_node: 8}");
  CHECK(summary_text(a) == summary_text(b));
  const Scenario c = deepseek("{tp: 8}");
  const Scenario d = deepseek("{tp: 8, attention_dp: 1, ep: 1, nodes: 1, gpus_per_node: 8, layout: \"tp8\"}");
  CHECK_FALSE(d.parallelism.wide());
  CHECK(summary_text(c) == summary_text(d));
}

TEST_CASE("wide EP: the step-cost cache prices wide steps bit for bit as the model does", "[wide_ep][cost]") {
  for (const char* overlap : {"none", "two_batch", "single_batch"}) {
    const Scenario sc = deepseek("{tp: 1, attention_dp: 16, ep: 16, redundant_experts: 32}",
                                 std::string("{overlap: ") + overlap + "}");
    const CostModel cost = make_cost_model(sc);
    StepCostCache cache(cost);
    for (std::int64_t n : {1, 7, 16, 300, 4096}) {
      const BatchSummary b = decodes(n, 2000);
      INFO(overlap << " decode of " << n);
      CHECK(cache.totals(b).time == cost.totals(b).time);
      CHECK(cache.decode_time(n, static_cast<std::int64_t>(b.decode_kv_tokens)) == cost.totals(b).time);
      CHECK(cache.totals(b).time == cost.totals(b).time);  // from the table the second time
    }
    BatchSummary mixed = decodes(40, 1000);
    mixed.add(SeqWork{2000, 0, true});
    CHECK(cache.totals(mixed).time == cost.totals(mixed).time);
    CHECK(cost.breakdown(mixed).time == cost.totals(mixed).time);
  }
}

TEST_CASE("wide EP: one request alone runs on one DP rank's steps", "[wide_ep][sim][closed_form]") {
  // DP16 x EP16 on two H200 nodes, no overlap: a lone request's prefill lands on one rank
  // (the batch of one 1000-token sequence), each decode step is one decoder's. The engine
  // charges t = cost.totals(batch).time + step_cpu_overhead + per_seq_cpu_overhead / 16 x seqs.
  const Scenario sc = deepseek("{tp: 1, attention_dp: 16, ep: 16}", "",
                               "{requests: 1, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, "
                               "value: 1000}, output_tokens: {dist: fixed, value: 20}}");
  const CostModel cost = make_cost_model(sc);
  const EngineConfig replica = replica_engine_config(sc.engine, 16);
  CHECK(replica.max_num_seqs == 16 * sc.engine.max_num_seqs);
  CHECK(replica.per_seq_cpu_overhead == sc.engine.per_seq_cpu_overhead / 16);
  const Nanos prefill = step_nanos(cost, replica, batch_of(1, SeqWork{1000, 0, true}));
  double decode = 0;
  for (std::int64_t j = 1; j <= 19; ++j) decode += step_seconds(cost, replica, batch_of(1, SeqWork{1, 1000 + j - 1, true}));
  VectorSource src({make_request(0.0, 1000, 20)});
  SimulationOptions opt;
  opt.fast_forward = false;
  const SimulationResult r = simulate(sc, src, opt);
  REQUIRE(r.summary.completed == 1);
  CHECK(r.summary.ttft_ms.mean == Approx(static_cast<double>(prefill) * 1e-6).margin(1e-6));
  CHECK(r.summary.tpot_ms.mean == Approx(decode / 19 * 1e3).epsilon(1e-6));
}

TEST_CASE("wide EP: wide EP + DP attention wins large-batch decode and loses small-batch latency", "[wide_ep][cost]") {
  // The same 16 H200: two TP8 replicas (one per node) against one DP16 x EP16 replica
  // across both nodes, decode steps at context 2,000.
  const Scenario tp = deepseek("{tp: 8}");
  const Scenario wide = deepseek("{tp: 1, attention_dp: 16, ep: 16, redundant_experts: 32}", "{overlap: two_batch}");
  const CostModel tp_cost = make_cost_model(tp), wide_cost = make_cost_model(wide);
  // Batch 1: one sequence alone is faster on TP8 (its GPUs each read 1/8 of the attention
  // weights; a DP rank reads them whole, and its experts' tokens cross InfiniBand).
  CHECK(tp_cost.totals(decodes(1, 2000)).time < wide_cost.totals(decodes(1, 2000)).time);
  // Large batch: the most either layout's KV cache holds at 2,500 tokens a sequence,
  // tokens per second per GPU. TP8 replicates MLA's latent on its 8 GPUs; DP16 keeps one
  // copy per rank: far more sequences, and the experts' weights read once for all of them.
  const MemoryPlan tp_mem = plan_setup_memory(tp, tp_cost), wide_mem = plan_setup_memory(wide, wide_cost);
  const std::int64_t tp_seqs = std::min<std::int64_t>(tp_mem.kv_tokens / 2500, 4096);
  const std::int64_t wide_seqs = std::min<std::int64_t>(wide_mem.kv_tokens / 2500, 16 * 256);
  REQUIRE(wide_seqs > 4 * tp_seqs);
  const double tp_rate = static_cast<double>(tp_seqs) / tp_cost.totals(decodes(tp_seqs, 2000)).time / 8.0;
  const double wide_rate = static_cast<double>(wide_seqs) / wide_cost.totals(decodes(wide_seqs, 2000)).time / 16.0;
  CHECK(wide_rate > 1.5 * tp_rate);
}

TEST_CASE("wide EP: MTP in a P/D decode pool emits the accepted tokens", "[wide_ep][disagg]") {
  // One request, prompt 500, output 101: its first token comes with the KV, then the decode
  // instance runs MTP with k = 1 at acceptance 1 (E = 2 tokens a step): 100 more tokens in
  // 50 steps. Each step is the drafter's one decode step plus one verification of 2 tokens.
  std::string text =
      "hardware: {gpu: h200-sxm}\n"
      "model: {name: deepseek-v3, weights: fp8, activations: fp8, kv_cache: bf16}\n"
      "parallelism: {tp: 8}\n"
      "engine: {frontend_latency: \"0 ms\", speculative: {method: mtp, num_speculative_tokens: 1, acceptance_rate: 1.0}}\n"
      "disaggregation:\n"
      "  prefill: {replicas: 1, tp: 8}\n"
      "  decode: {replicas: 1, tp: 8}\n"
      "  transfer: {bandwidth: \"400 GB/s\", latency: \"0 us\"}\n"
      "workload: {requests: 1, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: 500}, "
      "output_tokens: {dist: fixed, value: 101}}\n";
  const Scenario sc = parse_scenario(parse_yaml_text(text), "test.yaml");
  const SimulationResult r = simulate(sc);
  REQUIRE(r.summary.completed == 1);
  CHECK(r.summary.output_tokens == 101);
  // The decode pool's steps: 50, each emitting 2 tokens.
  REQUIRE(r.summary.disaggregation);
  CHECK(r.summary.disaggregation->decode.steps == 50);
  const double without_mtp = [&] {
    Scenario plain = sc;
    DisaggregationSpec spec = *sc.disaggregation;
    spec.decode.engine.speculative = SpeculativeConfig{};
    spec.prefill.engine.speculative = SpeculativeConfig{};
    plain.engine.speculative = SpeculativeConfig{};
    plain.disaggregation = std::make_shared<const DisaggregationSpec>(spec);
    return simulate(plain).summary.tpot_ms.mean;
  }();
  // A lone sequence's step reads the same weights with or without the second token: MTP
  // nearly halves its time per token.
  CHECK(r.summary.tpot_ms.mean < 0.7 * without_mtp);
}
