// GPU memory as the devices report it: the catalog's "80 GB" cards hold what
// nvidia-smi / the driver shows (H100 SXM 81,559 MiB), not 80e9 bytes, and the KV
// cache is sized from that, as vLLM sizes it from the device's total memory.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "cost/memory_plan.h"
#include "cost/precision.h"
#include "cost/step_cost.h"
#include "config/catalog_reader.h"

using namespace servesim;

TEST_CASE("gpu memory: capacities are the device-reported totals", "[catalog][gpu][memory]") {
  constexpr double MiB = 1024.0 * 1024.0;
  // H100 SXM: nvidia-smi memory.total 81559 MiB = 81,559 * 1,048,576 = 85,520,809,984 B
  // (the old catalog value was 80e9 B, 6.5% less).
  CHECK(load_gpu("h100-sxm").memory_capacity == 85520809984.0);
  CHECK(load_gpu("h100-sxm").memory_capacity == 81559 * MiB);
  // A100 80GB: 81920 MiB = 80 GiB = 85,899,345,920 B; 40GB: 40960 MiB = 42,949,672,960 B.
  CHECK(load_gpu("a100-sxm4-80gb").memory_capacity == 85899345920.0);
  CHECK(load_gpu("a100-sxm4-40gb").memory_capacity == 42949672960.0);
  // H200: 143771 MiB = 150,754,820,096 B.
  CHECK(load_gpu("h200-sxm").memory_capacity == 150754820096.0);
  // MI300X: 8 CPX partitions of 25,767,706,624 B = 206,141,652,992 B.
  CHECK(load_gpu("mi300x").memory_capacity == 206141652992.0);
}

TEST_CASE("gpu memory: Llama-2-70B fp16 TP2 on H100 holds a 640-token request", "[memory][gpu]") {
  // Splitwise ran this configuration; with 80e9 B per GPU the planner found a few dozen
  // KV blocks (20 here, 320 tokens) and refused a 640-token request.
  const GpuSpec gpu = load_gpu("h100-sxm");
  PrecisionSpec p;
  p.weights = DType::fp16;
  p.activations = DType::fp16;
  p.kv_cache = DType::fp16;
  Parallelism par;
  par.tp = 2;
  const CostModel cost(gpu, load_model("llama-2-70b"), resolve_precision(p, gpu), par);
  const MemoryConfig cfg;  // 0.9 utilization, 16-token blocks, 8192 batched tokens, 256 seqs
  const MemoryPlan plan = plan_memory(cost, cfg);
  REQUIRE(plan.fits);
  // KV per token per GPU: 2 (K,V) * 80 layers * (8 KV heads / 2) * 128 * 2 B = 163,840 B;
  // a 16-token block is 2,621,440 B.
  CHECK(plan.kv_bytes_per_token == 163840.0);
  // budget = 0.9 * 85,520,809,984 = 76,968,728,985.6 B.
  CHECK(plan.budget == Approx(0.9 * 85520809984.0).epsilon(1e-12));
  const double kv = 0.9 * 85520809984.0 - plan.weights - plan.activations - plan.runtime_overhead;
  CHECK(plan.kv_blocks == static_cast<std::int64_t>(std::floor(kv / 2621440.0)));
  // Weights 68,977,967,104 B per GPU (half of 68.98B fp16 parameters), activations
  // 1,358,168,064 B, runtime 1,610,612,736 B: (76,968,728,985.6 - 68,977,967,104 -
  // 1,358,168,064 - 1,610,612,736) / 2,621,440 = 5,021,981,081.6 / 2,621,440 = 1915.7 -> 1915.
  CHECK(plan.weights == 68977967104.0);
  CHECK(plan.kv_blocks == 1915);
  // 640 tokens need ceil(640 / 16) = 40 blocks.
  CHECK(plan.kv_blocks >= 40);
  // The same plan with the old 80e9 B: 72e9 - 68,977,967,104 - 1,358,168,064 -
  // 1,610,612,736 = 53,252,096 B = 20.3 blocks -> 20, fewer than the 40 needed.
  const double old_kv = 0.9 * 80e9 - plan.weights - plan.activations - plan.runtime_overhead;
  CHECK(static_cast<std::int64_t>(std::floor(old_kv / 2621440.0)) == 20);
}
