// The memory planner (sim/cost/memory_plan.h): weights, activation workspace and
// runtime overhead come out of capacity * gpu_memory_utilization; the rest is KV.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "cost/memory_plan.h"
#include "cost/precision.h"
#include "cost/step_cost.h"
#include "config/catalog_reader.h"
#include "util/error.h"

using namespace servesim;
using Catch::Contains;

namespace {
CostModel make_cost(const std::string& gpu_name, const std::string& model, DType w, DType kv, int tp = 1,
                    int pp = 1) {
  const GpuSpec gpu = load_gpu(gpu_name);
  PrecisionSpec p;
  p.weights = w;
  p.activations = DType::bf16;
  p.kv_cache = kv;
  Parallelism par;
  par.tp = tp;
  par.pp = pp;
  return CostModel(gpu, load_model(model), resolve_precision(p, gpu), par);
}
}  // namespace

TEST_CASE("memory plan: Llama-3.1-8B bf16 on one H100 fits, KV blocks by the closed form", "[memory]") {
  const CostModel cost = make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16);
  const MemoryConfig cfg;  // 0.9 utilization, 16-token blocks, 8192 batched tokens, 256 seqs
  const MemoryPlan plan = plan_memory(cost, cfg);
  REQUIRE(plan.fits);

  // capacity: the 81,559 MiB the H100 reports = 85,520,809,984 B;
  // budget = 0.9 * 85,520,809,984 = 76,968,728,985.6 B.
  CHECK(plan.capacity == Approx(85520809984.0).epsilon(1e-12));
  CHECK(plan.budget == Approx(76968728985.6).epsilon(1e-12));
  // One GPU holds every parameter in bf16: 2 * 8,030,261,248 = 16,060,522,496 B.
  CHECK(plan.weights == Approx(2.0 * 8030261248.0).epsilon(1e-12));
  // Runtime overhead (CUDA context, workspaces, graphs): 1.5 GiB = 1,610,612,736 B.
  CHECK(plan.runtime_overhead == 1610612736.0);
  CHECK(plan.activations > 0);
  CHECK(plan.activations < 0.05 * plan.budget);

  // KV bytes per token: 2 (K,V) * 32 layers * 8 KV heads * 128 head_dim * 2 B = 131,072.
  CHECK(plan.kv_bytes_per_token == 131072.0);
  // KV blocks = floor((0.9*85,520,809,984 - weights - activations - runtime) / (131,072 * 16)),
  // recomputed from the plan's own fields.
  const double kv = 0.9 * 85520809984.0 - plan.weights - plan.activations - plan.runtime_overhead;
  CHECK(plan.kv_bytes == Approx(kv).epsilon(1e-12));
  const auto expected_blocks = static_cast<std::int64_t>(std::floor(kv / (131072.0 * 16)));
  CHECK(plan.kv_blocks == expected_blocks);
  CHECK(plan.kv_tokens == expected_blocks * 16);
  // With the planner's activation estimate (1,336,410,112 B) this is
  // (76,968,728,985.6 - 16,060,522,496 - 1,336,410,112 - 1,610,612,736) / 2,097,152
  // = 57,961,183,641.6 / 2,097,152 = 27,638.05 -> 27,638.
  CHECK(plan.kv_blocks == 27638);
  CHECK_THAT(plan.verdict, Contains("fits") && Contains("27638 KV blocks"));
}

TEST_CASE("memory plan: fp8 KV doubles the blocks up to rounding", "[memory]") {
  const MemoryConfig cfg;
  const MemoryPlan bf16 = plan_memory(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16), cfg);
  const MemoryPlan fp8 = plan_memory(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::fp8), cfg);
  // Same weights and activations; half the bytes per token (65,536).
  CHECK(fp8.kv_bytes == bf16.kv_bytes);
  CHECK(fp8.kv_bytes_per_token == 0.5 * bf16.kv_bytes_per_token);
  // floor(2x) is 2*floor(x) or 2*floor(x) + 1: never fewer than twice as many blocks.
  CHECK(fp8.kv_blocks >= 2 * bf16.kv_blocks);
  CHECK(fp8.kv_blocks <= 2 * bf16.kv_blocks + 1);
  // Here x = 57,961,183,641.6 / 2,097,152 = 27,638.05, so 2x = 55,276.09 -> 55,276 = 2*27,638.
  CHECK(fp8.kv_blocks == 55276);
}

TEST_CASE("memory plan: more utilization or a bigger block never adds the wrong way", "[memory]") {
  const CostModel cost = make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16);
  MemoryConfig lo;
  lo.gpu_memory_utilization = 0.8;
  MemoryConfig hi;
  hi.gpu_memory_utilization = 0.95;
  const MemoryPlan a = plan_memory(cost, lo);
  const MemoryPlan b = plan_memory(cost, hi);
  // 0.15 * 85,520,809,984 = 12,828,121,497.6 B more KV space: / 2,097,152 = 6,116.97
  // blocks more (+-1 rounding).
  CHECK(b.kv_bytes - a.kv_bytes == Approx(12828121497.6).epsilon(1e-9));
  CHECK(b.kv_blocks - a.kv_blocks >= 6116);
  CHECK(b.kv_blocks - a.kv_blocks <= 6117);
  // Blocks of 32 tokens: half as many blocks (floor), about the same number of tokens.
  MemoryConfig big;
  big.block_size = 32;
  const MemoryPlan c = plan_memory(cost, big);
  const MemoryPlan d = plan_memory(cost, MemoryConfig{});
  CHECK(c.kv_blocks == d.kv_blocks / 2);
  CHECK(c.kv_tokens <= d.kv_tokens);
}

TEST_CASE("memory plan: Llama-3.1-405B bf16 does not fit on one H100", "[memory]") {
  const CostModel cost = make_cost("h100-sxm", "llama-3.1-405b", DType::bf16, DType::bf16);
  const MemoryPlan plan = plan_memory(cost, MemoryConfig{});
  // ~405.85e9 params * 2 B = 811.7e9 B of weights against a 72e9 B budget.
  CHECK(plan.weights == Approx(2.0 * 405.85e9).epsilon(0.001));
  CHECK_FALSE(plan.fits);
  CHECK(plan.kv_blocks == 0);
  CHECK(plan.kv_tokens == 0);
  CHECK(plan.kv_bytes < 0);
  CHECK_THAT(plan.verdict, Contains("does not fit") && Contains("llama-3.1-405b") && Contains("h100-sxm") &&
                               Contains("short by") && Contains("Would fit: "));
  // The suggestion: tp=8 still holds 811.7e9/8 = 101e9 B per GPU (> 72e9); tp=16 holds
  // 50.7e9 B, which with half the activations and the runtime stays under 0.8*72e9 = 57.6e9.
  CHECK_THAT(plan.verdict, Contains("tp=16") && !Contains("tp=8 "));
  CHECK_THAT(plan.verdict, Contains("a GPU with more than"));
}

TEST_CASE("memory plan: Llama-3.1-405B bf16 needs 16 H100s, not 8", "[memory]") {
  // Boundary pair for the suggestion above: tp=8 does not fit, tp=16 does.
  const MemoryPlan tp8 = plan_memory(make_cost("h100-sxm", "llama-3.1-405b", DType::bf16, DType::bf16, 8),
                                     MemoryConfig{});
  const MemoryPlan tp16 = plan_memory(make_cost("h100-sxm", "llama-3.1-405b", DType::bf16, DType::bf16, 16),
                                      MemoryConfig{});
  CHECK_FALSE(tp8.fits);
  CHECK(tp16.fits);
}

TEST_CASE("memory plan: Llama-3.1-70B with tp=4 fits on H100", "[memory]") {
  const MemoryPlan tp4 = plan_memory(make_cost("h100-sxm", "llama-3.1-70b", DType::bf16, DType::bf16, 4),
                                     MemoryConfig{});
  CHECK(tp4.fits);
  CHECK(tp4.kv_blocks > 0);
  // Weights per GPU ~ 2 * 70.55e9 / 4 = 35.3e9 B (norm weights are replicated: + ~2 MB).
  CHECK(tp4.weights == Approx(2.0 * 70553706496.0 / 4).epsilon(0.001));
  // Each GPU caches its 2 of the 8 KV heads: 2 * 80 * 2 * 128 * 2 B = 81,920 B per token.
  CHECK(tp4.kv_bytes_per_token == 81920.0);
  // Boundary pair: on one GPU the same model does not fit (141e9 B of weights).
  const MemoryPlan tp1 = plan_memory(make_cost("h100-sxm", "llama-3.1-70b", DType::bf16, DType::bf16, 1),
                                     MemoryConfig{});
  CHECK_FALSE(tp1.fits);
  CHECK_THAT(tp1.verdict, Contains("does not fit"));
}

TEST_CASE("memory plan: weight bytes per GPU under quantization and parallelism", "[memory]") {
  const ModelSpec m = load_model("llama-3.1-8b");
  ResolvedPrecision bf16;
  ResolvedPrecision int4;
  int4.weights = DType::int4;
  Parallelism one;
  // bf16, one GPU: 2 B * every parameter = 16,060,522,496 B.
  CHECK(weight_bytes_per_gpu(m, bf16, one) == Approx(2.0 * 8030261248.0).epsilon(1e-12));
  // int4 layers (0.5 B) with 16-bit embedding + LM head (2*128256*4096*2 = 2,101,346,304 B)
  // and norms (2 * 266,240): 0.5 * 32 * 218,103,808 + 2,101,346,304 + 532,480 = 5,591,539,712 B.
  CHECK(weight_bytes_per_gpu(m, int4, one) == Approx(5591539712.0).epsilon(1e-12));
}

TEST_CASE("memory plan: invalid parallelism is rejected", "[memory][errors]") {
  // 32 attention heads cannot be split 3 ways.
  REQUIRE_THROWS_AS(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, 3), Error);
  REQUIRE_THROWS_WITH(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, 3),
                      Contains("tp=3 does not divide 32") && Contains("llama-3.1-8b"));
  // Boundary pair: tp=2 and tp=4 divide 32 heads and 8 KV heads.
  CHECK(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, 2).shard().heads == 16);
  CHECK(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, 4).shard().heads == 8);
  REQUIRE_THROWS_WITH(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, 0),
                      Contains("parallelism must be >= 1"));
}

TEST_CASE("memory plan: weights held per GPU agree with the weights a decode step reads", "[memory][tp]") {
  // A decode step reads every matrix a GPU holds once, except the input embedding
  // table (one row per token is gathered) and the norm vectors (counted as activation
  // traffic). So for a dense model:
  //   weight_bytes_per_gpu = sum of GEMM weight bytes in the step
  //                          + embedding table (V*h/tp * 2 B) + norms ((2L+1)*h * 2 B)
  // Llama-3.1-8B has 8 KV heads. For tp <= 8 they split evenly; for tp = 16 each KV
  // head is replicated on 2 GPUs (as vLLM does), so each GPU holds a full KV head's
  // K and V projections: 2 * 1 * 128 * 4096 params per layer, not 2*1024*4096/16.
  const ModelSpec m = load_model("llama-3.1-8b");
  for (const int tp : {1, 2, 4, 8, 16}) {
    INFO("tp = " << tp);
    const CostModel cost = make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, tp);
    const StepCost s = cost.breakdown([] {
      BatchSummary b;
      b.add(SeqWork{1, 100, true});
      return b;
    }());
    double read = 0;
    for (const auto& o : s.ops) read += o.weight_bytes;
    const double embedding = static_cast<double>(m.vocab) * m.hidden / tp * 2.0;
    const double norms = static_cast<double>(m.norm_params()) * 2.0;
    const double held = weight_bytes_per_gpu(m, cost.precision(), cost.parallelism());
    CHECK(held == Approx(read + embedding + norms).epsilon(1e-9));
  }
}
