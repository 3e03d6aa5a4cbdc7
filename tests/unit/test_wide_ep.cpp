// Wide expert parallelism and attention data parallelism (cost/parallelism.h,
// cost/replica_layout.h, cost/all_to_all.h, cost/expert_load.h, cost/wide_ep_step.cpp):
// the layout's checks, memory and KV per DP rank, all-to-all bytes and time, the
// busiest expert GPU, and the step's shares, each against its closed form.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "config/catalog_reader.h"
#include "cost/all_to_all.h"
#include "cost/expert_load.h"
#include "cost/memory_plan.h"
#include "cost/replica_layout.h"
#include "cost/step_cost.h"
#include "util/error.h"

using namespace servesim;
using Catch::Contains;

namespace {
Parallelism layout(int tp, int dp, int ep, int redundant = 0) {
  Parallelism p;
  p.tp = tp;
  p.attention_dp = dp;
  p.ep = ep;
  p.redundant_experts = redundant;
  return p;
}

CostModel deepseek(const std::string& gpu_name, const Parallelism& par, const MoeDeployment& moe = {}) {
  const GpuSpec gpu = load_gpu(gpu_name);
  PrecisionSpec p;
  p.weights = DType::fp8;
  p.activations = DType::fp8;
  p.kv_cache = DType::bf16;
  return CostModel(gpu, load_model("deepseek-v3"), resolve_precision(p, gpu), par, AttentionKernel::flash, GgmlKernels{}, moe);
}

BatchSummary decode_batch(std::int64_t n, double context) {
  BatchSummary b;
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
  b.decode_kv_tokens = static_cast<double>(n) * (context + 1.0);
  return b;
}
}  // namespace

TEST_CASE("wide EP: the layout is checked with the numbers", "[wide_ep]") {
  const ModelSpec ds = load_model("deepseek-v3");
  // ep must divide tp x attention_dp (the stage's GPUs): 16 does not divide 1 x 8.
  CHECK_THROWS_WITH(validate_parallelism(layout(1, 8, 16), ds), Contains("ep=16 must divide the 8 GPUs"));
  // DP attention needs experts to share: Llama-3.1-8B is dense.
  CHECK_THROWS_WITH(validate_parallelism(layout(1, 4, 1), load_model("llama-3.1-8b")),
                    Contains("not a mixture-of-experts model"));
  // Redundant slots need an EP group, and ep must divide 256 + redundant: 288 / 72 = 4, 288 / 64 is not whole.
  CHECK_THROWS_WITH(validate_parallelism(layout(8, 1, 1, 32), ds), Contains("needs expert parallelism"));
  CHECK_NOTHROW(validate_parallelism(layout(1, 72, 72, 32), ds));
  CHECK_THROWS_WITH(validate_parallelism(layout(1, 64, 64, 32), ds), Contains("288 expert slots"));
  // nodes must match: 16 GPUs at 8 per node span 2 nodes.
  Parallelism p = layout(1, 16, 16);
  p.nodes = 3;
  CHECK_THROWS_WITH(resolve_layout(p, load_gpu("h200-sxm")), Contains("set nodes=2"));
  p.nodes = 2;
  const ReplicaLayout l = resolve_layout(p, load_gpu("h200-sxm"));
  CHECK(l.nodes == 2);
  CHECK(l.ep_nodes == 2);
  CHECK(l.ep_per_node == 8);
  CHECK(l.moe_tp == 1);
  // The same 16-way EP inside a GB200 NVL72 rack stays in one NVLink domain.
  const ReplicaLayout rack = resolve_layout(layout(1, 16, 16), load_gpu("gb200"));
  CHECK(rack.ep_nodes == 1);
  CHECK(rack.ep_per_node == 16);
}

TEST_CASE("wide EP: weights per GPU and KV per DP rank by the closed form", "[wide_ep]") {
  // DeepSeek-V3 in fp8 on 16 H200, attention tp=1 x dp=16, EP16 with 32 redundant experts.
  const CostModel cost = deepseek("h200-sxm", layout(1, 16, 16, 32));
  const ModelSpec& m = cost.model();
  // Per GPU, 1 byte per fp8 weight: every layer's attention whole (dp replicas, tp=1),
  // the 3 dense MLPs whole, per MoE layer (256 + 32) experts x 3 x 7168 x 2048 / 16 GPUs
  // plus the shared expert (3 x 7168 x 2048) whole and the router (7168 x 256) whole in bf16
  // (2 B: no checkpoint quantizes it), the embedding and LM head in bf16 (2 x 129280 x 7168 x 2 B)
  // and the norms in bf16.
  const double expert = 3.0 * 7168 * 2048;
  const double moe_layer = 288.0 * expert / 16 + (7168.0 * 256 * 2.0 + expert);
  const double expected = 61.0 * static_cast<double>(m.attention_params_per_layer()) +
                          3.0 * static_cast<double>(m.dense_mlp_params_per_layer()) + 58.0 * moe_layer +
                          2.0 * 129280.0 * 7168.0 * 2.0 + static_cast<double>(m.norm_params()) * 2.0;
  CHECK(weight_bytes_per_gpu(m, cost.precision(), cost.parallelism()) == Approx(expected).epsilon(1e-12));

  MemoryConfig cfg;
  const MemoryPlan plan = plan_memory(cost, cfg);
  REQUIRE(plan.fits);
  // MLA caches the 512-wide latent plus the 64-wide rotary key per token and layer on
  // every GPU of a rank: 61 x 576 x 2 B (bf16) = 70,272 B per token.
  CHECK(plan.kv_bytes_per_token == 61.0 * 576.0 * 2.0);
  // Each of the 16 ranks has floor(KV bytes / (70,272 x 16)) blocks; the replica 16 x that.
  const auto per_rank = static_cast<std::int64_t>(std::floor(plan.kv_bytes / (70272.0 * 16)));
  CHECK(plan.kv_blocks_per_rank == per_rank);
  CHECK(plan.kv_blocks == 16 * per_rank);
  // Tensor parallelism over the same 16 GPUs replicates the latent on every GPU: one
  // rank's blocks for the whole replica, far fewer tokens than DP attention holds.
  const MemoryPlan tp16 = plan_memory(deepseek("h200-sxm", layout(16, 1, 1)), cfg);
  REQUIRE(tp16.fits);
  CHECK(tp16.kv_blocks == tp16.kv_blocks_per_rank);
  CHECK(plan.kv_blocks > 5 * tp16.kv_blocks);
}

TEST_CASE("wide EP: all-to-all copies, bytes and time by the closed form", "[wide_ep]") {
  const GpuSpec h200 = load_gpu("h200-sxm");
  const ReplicaLayout l = resolve_layout(layout(1, 16, 16), h200);
  const AllToAllKernel& ll = find_all_to_all_kernel("deepep_low_latency", "test");
  // One copy per routed expert: of 8, a share (16 - 8)/16 lands in the other node and
  // (8 - 1)/16 on the other GPUs of the sender's node.
  const TokenCopies c = token_copies(ll, l, 256, 8);
  CHECK(c.network == Approx(8.0 * 8 / 16));
  CHECK(c.nvlink == Approx(8.0 * 7 / 16));
  // 128 tokens, fp8 dispatch with one fp32 scale per 128 values: 7168 x (1 + 4/128) = 7,392 B.
  const double fp8 = activation_payload_bytes(7168, DType::fp8);
  CHECK(fp8 == 7392.0);
  CHECK(activation_payload_bytes(7168, DType::fp4) == 4032.0);
  CHECK(activation_payload_bytes(7168, DType::bf16) == 14336.0);
  const AllToAllTime t = all_to_all_time(ll, c, h200, 128, fp8, 14336.0);
  // Dispatch: 29.9 us + max(128 x 4 x 7392 B / (50 GB/s x 0.88), 128 x 3.5 x 7392 B / (450 GB/s x 0.73))
  //         = 29.9 + max(86.02, 10.08) = 115.92 us; bytes moved 128 x 7.5 x 7392.
  CHECK(t.dispatch == Approx(29.9e-6 + 128.0 * 4 * 7392 / (50e9 * 0.88)).epsilon(1e-12));
  CHECK(t.dispatch_bytes == Approx(128.0 * 7.5 * 7392));
  // Combine: 28.0 us + 128 x 4 x 14336 B / 44 GB/s = 28.0 + 166.82 = 194.82 us.
  CHECK(t.combine == Approx(28.0e-6 + 128.0 * 4 * 14336 / (50e9 * 0.88)).epsilon(1e-12));

  // One copy per destination GPU (NVLinkOneSided, GB200 EP8 in one domain): a token's
  // 8 experts hit 8 (1 - C(224, 8)/C(256, 8)) = 8 (1 - 0.338168) = 5.2947 GPUs, 7/8 of them others.
  const ReplicaLayout rack = resolve_layout(layout(1, 8, 8), load_gpu("gb200"));
  const TokenCopies one_sided = token_copies(find_all_to_all_kernel("nvlink_one_sided", "test"), rack, 256, 8);
  double miss = 1;
  for (int i = 0; i < 8; ++i) miss *= (224.0 - i) / (256.0 - i);
  CHECK(one_sided.nvlink == Approx(8.0 * (1.0 - miss) * 7.0 / 8.0).epsilon(1e-12));
  CHECK(one_sided.network == 0.0);
  CHECK(8.0 * (1.0 - miss) == Approx(5.29465).epsilon(1e-5));

  // An NVLink-only kernel refuses an EP group across nodes.
  MoeDeployment nvl;
  nvl.decode_all_to_all = "nvlink_one_sided";
  CHECK_THROWS_WITH(deepseek("h200-sxm", layout(1, 16, 16), nvl), Contains("inside one NVLink domain"));
  CHECK_THROWS_WITH(find_all_to_all_kernel("deepep_low_latncy", "moe.decode_all_to_all"),
                    Contains("did you mean 'deepep_low_latency'"));
}

TEST_CASE("wide EP: the busiest expert GPU under a given skew", "[wide_ep]") {
  // Four experts with shares 0.4, 0.2, 0.2, 0.2 on 2 GPUs. In order: GPU 0 holds experts
  // 0 and 1 = 0.6 of the load, 1.2 x the mean of 0.5.
  const std::vector<double> pop = {0.4, 0.2, 0.2, 0.2};
  CHECK(hottest_gpu_ratio(pop, 2, 2, ExpertBalancer::none) == Approx(1.2));
  // EPLB without spare slots packs 0.4 alone first, then 0.2s: GPU 0 gets 0.4 + 0.2 = 0.6.
  CHECK(hottest_gpu_ratio(pop, 2, 2, ExpertBalancer::eplb) == Approx(1.2));
  // Two redundant slots (3 per GPU): EPLB gives each new copy to the expert of the largest
  // load per copy, the first such expert on a tie (github deepseek-ai/EPLB eplb.py,
  // replicate_experts: (weight / logcnt).max(dim=-1).indices). First 0.4 > 0.2: expert 0
  // gets a 2nd copy; then 0.4/2 = 0.2 ties the others and expert 0 wins again: copies
  // (3, 1, 1, 1), slots 0.2 x 3 and 0.4/3 x 3. Packing, heaviest first onto the lightest
  // GPU with room: GPU 0 gets 0.2 + 0.2 + 0.4/3 = 8/15, GPU 1 0.2 + 0.4/3 + 0.4/3 = 7/15
  // (the best any split of these slots 3 + 3 can do): 8/15 over the mean 1/2 = 16/15.
  CHECK(hottest_gpu_ratio(pop, 2, 3, ExpertBalancer::eplb) == Approx(16.0 / 15.0));
  // Six redundant slots (5 per GPU): loads per copy go (0.4, .2, .2, .2) -> expert 0 ->
  // (.2, .2, .2, .2) -> expert 0 (tie) -> (.4/3, .2, .2, .2) -> experts 1, 2, 3 in turn ->
  // (.4/3, .1, .1, .1) -> expert 0: copies (4, 2, 2, 2), ten slots of 0.1, five per GPU: 1.0.
  CHECK(hottest_gpu_ratio(pop, 2, 5, ExpertBalancer::eplb) == Approx(1.0));
  CHECK(hottest_gpu_ratio(pop, 2, 2, ExpertBalancer::perfect) == 1.0);

  // No skew: every layer's hottest GPU expects the mean, and the noise of T k pairs over
  // 16 GPUs adds z_16 / sqrt(T k / 16), z_16 = Phi^-1((16 - 0.375)/16.25) = 1.76883.
  const ModelSpec ds = load_model("deepseek-v3");
  const ExpertLoad uniform(ds, layout(1, 16, 16), ExpertBalancer::none, 0.0);
  CHECK(uniform.static_ratio() == Approx(1.0));
  CHECK(normal_quantile((16 - 0.375) / 16.25) == Approx(1.768825).epsilon(1e-6));
  // T = 2048 tokens: 2048 x 8 / 16 = 1024 pairs per GPU on average: 1 + 1.76883 / 32 = 1.055276.
  CHECK(uniform.max_over_mean(2048) == Approx(1.0 + 1.768825 / 32.0).epsilon(1e-6));
  // A skewed popularity loads the busiest GPU more without EPLB than with it.
  const ExpertLoad skewed(ds, layout(1, 32, 32), ExpertBalancer::none, kDefaultRoutingSkew);
  const ExpertLoad balanced(ds, layout(1, 36, 36, 32), ExpertBalancer::eplb, kDefaultRoutingSkew);
  CHECK(skewed.static_ratio() > 2.0);
  CHECK(balanced.static_ratio() < 1.05);
  CHECK(ExpertLoad(ds, layout(1, 16, 16), ExpertBalancer::perfect, 1.0).max_over_mean(1) == 1.0);
}

TEST_CASE("wide EP: the busiest DP rank's share of a step", "[wide_ep]") {
  const CostModel cost = deepseek("h200-sxm", layout(1, 16, 16));
  // One 2000-token prefill chunk and 100 decoders on 16 ranks: the chunk lands on one rank
  // (ceil(1/16) = 1 chunk), which also holds ceil(100/16) = 7 decoders: 2007 tokens.
  BatchSummary b = decode_batch(100, 1000);
  b.add(SeqWork{2000, 0, true});
  const WideLoad w = cost.wide_load(b);
  CHECK(w.rank_tokens == 2007);
  CHECK(w.total_tokens == 2100);
  CHECK(w.prefill);
  const BatchSummary r = cost.rank_batch(b);
  CHECK(r.decode_seqs == 7);
  CHECK(r.decode_kv_tokens == Approx(100.0 * 1001.0 * 7.0 / 100.0));
  CHECK(r.prefill_pairs == Approx(2000.0 * 2001.0 / 2.0));
  // 320 decoders: 20 per rank, a twentieth... of the tokens, and a decode step (no prefill).
  const WideLoad d = cost.wide_load(decode_batch(320, 2000));
  CHECK(d.rank_tokens == 20);
  CHECK_FALSE(d.prefill);
}

TEST_CASE("wide EP: no DP attention and ep = 1 is the tensor-parallel step, unchanged", "[wide_ep]") {
  // tp=8 alone is not a wide layout: the classic step prices it, whatever moe: says.
  MoeDeployment moe;
  moe.overlap = MoeOverlap::two_batch;
  const CostModel plain = deepseek("h200-sxm", layout(8, 1, 1));
  const CostModel with_moe = deepseek("h200-sxm", layout(8, 1, 1), moe);
  CHECK_FALSE(plain.wide());
  const BatchSummary b = decode_batch(64, 3000);
  CHECK(plain.totals(b).time == with_moe.totals(b).time);
  CHECK(plain.breakdown(b).time == plain.totals(b).time);
}
