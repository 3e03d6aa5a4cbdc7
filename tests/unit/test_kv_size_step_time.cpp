// The one formula for KV elements per token (cost/kv_size.h) and the one for a step's
// wall time (cost/step_wall_time.h), worked by hand.
#include <catch2/catch.hpp>

#include "cost/kv_size.h"
#include "cost/parallelism.h"
#include "cost/step_wall_time.h"
#include "config/catalog_reader.h"

using namespace servesim;

namespace {
ShardShape shard(const ModelSpec& m, int tp, int pp = 1) {
  Parallelism p;
  p.tp = tp;
  p.pp = pp;
  return shard_shape(p, m);
}
}  // namespace

TEST_CASE("KV per token on one GPU: its KV heads, or the whole MLA latent", "[cost][kv]") {
  // Llama-3.1-8B: 32 layers, 8 KV heads of 128.
  const ModelSpec llama = load_model("llama-3.1-8b");
  // tp=1: 2 (K, V) x 8 heads x 128 = 2,048 elements per layer; x 32 layers x 2 B = 131,072 B.
  CHECK(gpu_kv_elements_per_token_layer(llama, shard(llama, 1)) == 2048.0);
  CHECK(gpu_kv_bytes_per_token(llama, shard(llama, 1), DType::bf16) == 131072.0);
  // tp=2: 4 KV heads per GPU: 1,024 elements; x 32 x 2 B = 65,536 B.
  CHECK(gpu_kv_elements_per_token_layer(llama, shard(llama, 2)) == 1024.0);
  CHECK(gpu_kv_bytes_per_token(llama, shard(llama, 2), DType::bf16) == 65536.0);
  // pp=2: the busiest stage holds 16 layers: 16 x 2,048 x 1 B (fp8) = 32,768 B.
  CHECK(gpu_kv_bytes_per_token(llama, shard(llama, 1, 2), DType::fp8) == 32768.0);

  // DeepSeek-V3 (MLA): the 512-wide latent + 64-wide rotary key, whole on every GPU:
  // 576 elements per layer at tp=1 and tp=8; x 61 layers x 2 B = 70,272 B.
  const ModelSpec ds = load_model("deepseek-v3");
  CHECK(gpu_kv_elements_per_token_layer(ds, shard(ds, 1)) == 576.0);
  CHECK(gpu_kv_elements_per_token_layer(ds, shard(ds, 8)) == 576.0);
  CHECK(gpu_kv_bytes_per_token(ds, shard(ds, 8), DType::bf16) == 70272.0);
}

TEST_CASE("step wall time: GPU time + CPU time per step + CPU time per running sequence", "[cost][engine]") {
  const CpuOverheads cpu{0.5e-3, 5e-6};  // the engine defaults: 0.5 ms per step, 5 us per sequence
  // 10 ms of GPU time with 100 sequences: 10 + 0.5 + 100 x 0.005 = 11 ms.
  CHECK(step_wall_seconds(10e-3, cpu, 100) == Approx(11e-3).epsilon(1e-12));
  // No sequence: the per-step part alone.
  CHECK(step_wall_seconds(0.0, cpu, 0) == 0.5e-3);
  // No overheads: the GPU time itself.
  CHECK(step_wall_seconds(7e-3, CpuOverheads{}, 64) == 7e-3);
}
