// The roofline step-cost model (sim/cost/step_cost.h) against closed forms: weight
// streaming in decode, GEMM and attention FLOPs in prefill, the naive-attention
// penalty, tensor parallelism, bandwidth monotonicity and MoE expert touching.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "cost/batch.h"
#include "cost/collectives.h"
#include "cost/precision.h"
#include "cost/step_cost.h"
#include "config/catalog_reader.h"
#include "util/error.h"

using namespace servesim;
using Catch::Contains;

namespace {

CostModel make_cost(const GpuSpec& gpu, const std::string& model, DType w, DType a, DType kv, int tp = 1,
                    int pp = 1, AttentionKernel kernel = AttentionKernel::flash) {
  PrecisionSpec p;
  p.weights = w;
  p.activations = a;
  p.kv_cache = kv;
  Parallelism par;
  par.tp = tp;
  par.pp = pp;
  return CostModel(gpu, load_model(model), resolve_precision(p, gpu), par, kernel);
}
CostModel make_cost(const std::string& gpu, const std::string& model, DType w, DType a, DType kv, int tp = 1,
                    int pp = 1, AttentionKernel kernel = AttentionKernel::flash) {
  return make_cost(load_gpu(gpu), model, w, a, kv, tp, pp, kernel);
}

// `n` sequences each decoding one token on top of `context` cached tokens.
BatchSummary decode_batch(int n, std::int64_t context) {
  BatchSummary b;
  for (int i = 0; i < n; ++i) b.add(SeqWork{1, context, true});
  return b;
}
// One sequence prefilling `tokens` new tokens on top of `context`.
BatchSummary prefill_batch(std::int64_t tokens, std::int64_t context = 0) {
  BatchSummary b;
  b.add(SeqWork{tokens, context, true});
  return b;
}

const OpCost* find_op(const StepCost& s, const char* name) {
  for (const auto& op : s.ops)
    if (std::strcmp(op.name, name) == 0) return &op;
  return nullptr;
}
const OpCost& op(const StepCost& s, const char* name) {
  const OpCost* o = find_op(s, name);
  INFO("op " << name);
  REQUIRE(o != nullptr);
  return *o;
}
double total_weight_bytes(const StepCost& s) {
  double w = 0;
  for (const auto& o : s.ops) w += o.weight_bytes;
  return w;
}
double sum_flops(const StepCost& s, std::initializer_list<const char*> names) {
  double f = 0;
  for (const char* n : names) f += op(s, n).flops;
  return f;
}

}  // namespace

TEST_CASE("step cost: Llama-2-7B batch-1 decode streams the weights once", "[cost][decode]") {
  const GpuSpec gpu = load_gpu("h100-sxm");
  const CostModel cost = make_cost(gpu, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16);
  const ModelSpec& m = cost.model();
  const StepCost s = cost.breakdown(decode_batch(1, 16));

  // Weights read by one decode step, in fp16 (2 B):
  //   every layer's matrices: L*(4h^2 + 3*h*ffn) = 32*(67,108,864 + 135,266,304) = 6,476,005,376
  //   the LM head: V*h = 32000*4096 = 131,072,000
  //   not the input embedding table (one row per token is gathered: activation traffic)
  //   i.e. params - V*h - norms = 6,738,415,616 - 131,072,000 - 266,240 = 6,607,077,376
  //   bytes = 2 * 6,607,077,376 = 13,214,154,752
  const double weight_params = 6607077376.0;
  CHECK(static_cast<double>(m.total_params() - m.vocab * m.hidden - m.norm_params()) == weight_params);
  CHECK(total_weight_bytes(s) == Approx(2.0 * weight_params).epsilon(1e-12));

  // Closed-form step time: weight bytes / (HBM bandwidth * gemm_memory) plus fixed costs.
  //   streaming = 13,214,154,752 / (3.35e12 * 0.80) = 4.931 ms
  //   kernels   = 10 per layer (2 norms, qkv, rope, KV write, attention, o, up, act, down)
  //             + 6 per step (embedding, final norm, LM head, 3 sampling passes) = 326:
  //     GEMM/attention (kernel_overhead): 5 per layer + LM head = 161
  //     elementwise (elementwise_overhead): 5 per layer + 5 per step = 165
  //   overheads = 161 * 3 us + 165 * 3 us + 0.5 ms step overhead = 1.478 ms (both 3 us by default)
  //   total ~ 6.41 ms; KV (17 tokens) and activations add well under 1%.
  const Efficiency& e = gpu.efficiency;
  const double streaming = 2.0 * weight_params / (3.35e12 * e.gemm_memory);
  const double gemm_kernels = 5.0 * m.layers + 1.0, elementwise_kernels = 5.0 * m.layers + 5.0;
  const double expected = streaming + e.step_overhead + gemm_kernels * e.kernel_overhead +
                          elementwise_kernels * e.elementwise_overhead;
  CHECK(s.time == Approx(expected).epsilon(0.10));
  // The weight stream dominates: more than half of the step.
  CHECK(streaming > 0.5 * s.time);

  // Decode is memory-bound: every weight GEMM and the step as a whole.
  for (const char* name : {"qkv_proj", "o_proj", "mlp_up", "mlp_down", "lm_head"}) {
    INFO("op " << name);
    CHECK(op(s, name).bound == Bound::memory);
    CHECK(op(s, name).memory_time > op(s, name).compute_time);
  }
  // Attention over 17 cached tokens is tiny (its launch overhead dominates), but it
  // is still memory- rather than compute-limited.
  CHECK(op(s, "attention_decode").memory_time > op(s, "attention_decode").compute_time);
  CHECK(s.time_by_bound[static_cast<int>(Bound::memory)] > s.time_by_bound[static_cast<int>(Bound::compute)]);
}

TEST_CASE("step cost: fp8 weights halve the GEMM weight bytes exactly", "[cost][precision]") {
  const BatchSummary b = decode_batch(4, 512);
  const StepCost w16 = make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16).breakdown(b);
  // W8A16 (weight-only) and W8A8 both store one byte per weight instead of two.
  const StepCost w8a16 = make_cost("h100-sxm", "llama-3.1-8b", DType::fp8, DType::bf16, DType::bf16).breakdown(b);
  const StepCost w8a8 = make_cost("h100-sxm", "llama-3.1-8b", DType::fp8, DType::fp8, DType::bf16).breakdown(b);
  for (const char* name : {"qkv_proj", "o_proj", "mlp_up", "mlp_down"}) {
    INFO("op " << name);
    // qkv_proj: 32 layers * 4096 * (4096 + 2*1024) * {2 B, 1 B} = 1,610,612,736 B vs 805,306,368 B.
    CHECK(op(w8a16, name).weight_bytes == 0.5 * op(w16, name).weight_bytes);
    CHECK(op(w8a8, name).weight_bytes == 0.5 * op(w16, name).weight_bytes);
  }
  CHECK(op(w16, "qkv_proj").weight_bytes == 32.0 * 4096 * 6144 * 2);
  // mlp_up (gate + up): 32 * 4096 * 2*14336 * 2 B = 7,516,192,768 B in bf16.
  CHECK(op(w16, "mlp_up").weight_bytes == 32.0 * 4096 * 2 * 14336 * 2);
  // The LM head stays 16-bit in quantized checkpoints: unchanged.
  CHECK(op(w8a8, "lm_head").weight_bytes == op(w16, "lm_head").weight_bytes);
  // Fewer bytes on a memory-bound step: fp8 decode is faster.
  CHECK(w8a16.time < w16.time);
}

TEST_CASE("step cost: long-prompt prefill is compute-bound with the closed-form GEMM FLOPs", "[cost][prefill]") {
  const CostModel cost = make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16);
  const ModelSpec& m = cost.model();
  const std::int64_t T = 4096;
  const StepCost s = cost.breakdown(prefill_batch(T));

  // GEMM parameters per layer of Llama-3.1-8B:
  //   attention = 4096*(4096+2*1024) + 4096*4096 = 41,943,040
  //   MLP       = 3*4096*14336                  = 176,160,768
  //   sum       = 218,103,808
  // FLOPs = 2 * tokens * params * layers = 2 * 4096 * 218,103,808 * 32 = 57,174,604,644,352
  const double per_layer = 218103808.0;
  CHECK(static_cast<double>(m.attention_params_per_layer() + m.dense_mlp_params_per_layer()) == per_layer);
  const double expected = 2.0 * T * per_layer * m.layers;
  CHECK(expected == 57174604644352.0);
  CHECK(sum_flops(s, {"qkv_proj", "o_proj", "mlp_up", "mlp_down"}) == Approx(expected).epsilon(1e-12));
  // The LM head runs only for the sampled (last) token: 2 * 1 * 4096 * 128256.
  CHECK(op(s, "lm_head").flops == Approx(2.0 * 4096 * 128256).epsilon(1e-12));

  for (const char* name : {"qkv_proj", "o_proj", "mlp_up", "mlp_down", "attention_prefill"}) {
    INFO("op " << name);
    CHECK(op(s, name).bound == Bound::compute);
  }
  CHECK(s.time_by_bound[static_cast<int>(Bound::compute)] > s.time_by_bound[static_cast<int>(Bound::memory)]);
  // A compute-bound step cannot beat peak: time >= FLOPs / peak (989.4 TFLOP/s bf16).
  CHECK(s.time > s.flops / cost.peak_flops());
}

TEST_CASE("step cost: causal prefill attention FLOPs", "[cost][prefill][attention]") {
  const CostModel cost = make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16);
  // Causal attention over n new tokens scores n(n+1)/2 query-key pairs; each pair costs
  // 2*head_dim FLOPs for QK^T and 2*head_dim for PV: 4*heads*head_dim*n(n+1)/2 per layer.
  for (const std::int64_t n : {2LL, 1000LL, 8192LL}) {
    INFO("n = " << n);
    const StepCost s = cost.breakdown(prefill_batch(n));
    const double pairs = static_cast<double>(n) * (n + 1) / 2.0;
    const double expected = 4.0 * 32 * 128 * pairs * 32;  // heads=32, head_dim=128, layers=32
    CHECK(op(s, "attention_prefill").flops == Approx(expected).epsilon(1e-12));
  }
  // n = 1000: 4*32*128*500,500*32 = 262,406,144,000 FLOPs.
  CHECK(op(cost.breakdown(prefill_batch(1000)), "attention_prefill").flops ==
        Approx(262406144000.0).epsilon(1e-12));
  // A chunk of n tokens after c cached ones scores n*c + n(n+1)/2 pairs:
  // n=512, c=1024: 524,288 + 131,328 = 655,616 pairs -> 4*32*128*655,616*32.
  const StepCost chunk = cost.breakdown(prefill_batch(512, 1024));
  CHECK(op(chunk, "attention_prefill").flops == Approx(4.0 * 32 * 128 * 655616.0 * 32).epsilon(1e-12));
}

TEST_CASE("step cost: the naive attention kernel moves quadratically more bytes than flash", "[cost][attention]") {
  const CostModel flash = make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16, 1, 1,
                                    AttentionKernel::flash);
  const CostModel naive = make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16, 1, 1,
                                    AttentionKernel::naive);
  // The naive kernel writes and reads the n x n score and probability matrices:
  // 4 passes * heads * n^2 * 2 B * layers extra bytes = 4*32*n^2*2*32 = 8192 n^2.
  auto gap = [&](std::int64_t n) {
    const double f = op(flash.breakdown(prefill_batch(n)), "attention_prefill").bytes();
    const double v = op(naive.breakdown(prefill_batch(n)), "attention_prefill").bytes();
    CHECK(v > f);
    return v - f;
  };
  const double g1 = gap(1024);
  const double g2 = gap(2048);
  CHECK(g1 == Approx(4.0 * 32 * 1024.0 * 1024.0 * 2 * 32).epsilon(1e-9));
  CHECK(g2 == Approx(4.0 * 32 * 2048.0 * 2048.0 * 2 * 32).epsilon(1e-9));
  // Doubling the context quadruples the gap.
  CHECK(g2 / g1 == Approx(4.0).epsilon(1e-9));
  // The naive step is never faster.
  for (const std::int64_t n : {128LL, 1024LL, 8192LL}) {
    INFO("n = " << n);
    CHECK(naive.step_time(prefill_batch(n)) >= flash.step_time(prefill_batch(n)));
  }
}

TEST_CASE("step cost: TP=2 halves weight bytes per GPU and adds 2 all-reduces per layer", "[cost][tp]") {
  const GpuSpec gpu = load_gpu("h100-sxm");
  const CostModel tp1 = make_cost(gpu, "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16, 1);
  const CostModel tp2 = make_cost(gpu, "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16, 2);
  const std::int64_t n = 8;
  const BatchSummary b = decode_batch(static_cast<int>(n), 1024);
  const StepCost s1 = tp1.breakdown(b);
  const StepCost s2 = tp2.breakdown(b);
  // Heads (32 -> 16), KV heads (8 -> 4), FFN (14336 -> 7168) and LM-head rows
  // (128256 -> 64128) all split evenly, so every GEMM's weights halve exactly.
  CHECK(total_weight_bytes(s2) == 0.5 * total_weight_bytes(s1));
  CHECK(tp2.shard().heads == 16);
  CHECK(tp2.shard().kv_heads == 4);
  CHECK(tp2.shard().ffn == 7168);

  CHECK(find_op(s1, "tp_allreduce") == nullptr);
  const OpCost& ar = op(s2, "tp_allreduce");
  // One all-reduce after attention and one after the MLP: 2*32 = 64 per step, each of
  // tokens * hidden * 2 B = 8 * 4096 * 2 = 65,536 B.
  const double msg = static_cast<double>(n) * 4096 * 2;
  const double calls = 2.0 * 32;
  CHECK(ar.comm_bytes == Approx(calls * msg).epsilon(1e-12));
  CHECK(ar.comm_time ==
        Approx(calls * allreduce_time(msg, 2, gpu.intra_node, gpu.efficiency.comm_bandwidth)).epsilon(1e-12));
  CHECK(ar.kind == OpKind::communication);
  // Ring all-reduce of 65,536 B over 2 ranks on NVLink4 (450e9 B/s * 0.75, 3 us):
  // 2*(1/2)*65,536/337.5e9 + 2*ceil(log2 2)*3e-6 = 0.194 us + 6 us = 6.194 us per call.
  CHECK(allreduce_time(msg, 2, gpu.intra_node, gpu.efficiency.comm_bandwidth) ==
        Approx(65536.0 / (450e9 * 0.75) + 6e-6).epsilon(1e-9));
}

TEST_CASE("step cost: more HBM bandwidth never slows decode (H100 vs H200)", "[cost][monotonic]") {
  const GpuSpec h100 = load_gpu("h100-sxm");
  const GpuSpec h200 = load_gpu("h200-sxm");
  // Same Hopper compute (989.4 TFLOP/s bf16), 3.35 vs 4.8 TB/s HBM.
  REQUIRE(h200.peak(DType::bf16) == h100.peak(DType::bf16));
  REQUIRE(h200.memory_bandwidth > h100.memory_bandwidth);
  const CostModel c100 = make_cost(h100, "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16);
  const CostModel c200 = make_cost(h200, "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16);
  for (const int batch : {1, 8, 64, 256}) {
    for (const std::int64_t ctx : {16LL, 2048LL, 32768LL}) {
      INFO("batch " << batch << " context " << ctx);
      const BatchSummary b = decode_batch(batch, ctx);
      CHECK(c200.step_time(b) <= c100.step_time(b));
    }
  }
  // Batch-1 decode is memory-bound, so it is strictly faster on H200.
  CHECK(c200.step_time(decode_batch(1, 16)) < c100.step_time(decode_batch(1, 16)));
  // The same along a sweep of bandwidths on one otherwise fixed GPU.
  double previous = 1e9;
  for (const double bw : {1e12, 2e12, 3.35e12, 5e12, 8e12}) {
    GpuSpec g = h100;
    g.memory_bandwidth = bw;
    const double t = make_cost(g, "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16).step_time(decode_batch(32, 4096));
    INFO("bandwidth " << bw);
    CHECK(t <= previous);
    previous = t;
  }
}

TEST_CASE("step cost: MoE decode reads only the touched experts", "[cost][moe]") {
  const CostModel cost = make_cost("h100-sxm", "mixtral-8x7b", DType::bf16, DType::bf16, DType::bf16);
  // One expert's gate+up weights: 4096 * 2*14336 * 2 B = 234,881,024 B; down: half that.
  const double up_per_expert = 4096.0 * 2 * 14336 * 2;
  const double down_per_expert = 14336.0 * 4096 * 2;
  const double moe_layers = 32;
  // Expected experts touched by T tokens with top-k of E: E*(1-(1-k/E)^T).
  //   T = 1:   8*(1-(1-2/8)^1) = 8*0.25 = 2 (exactly the top-2)
  //   T = 256: 8*(1-0.75^256) = 8*(1-1e-32) ~ 8 (all of them)
  const StepCost one = cost.breakdown(decode_batch(1, 128));
  CHECK(op(one, "moe_experts_up").weight_bytes == Approx(moe_layers * 2 * up_per_expert).epsilon(1e-12));
  CHECK(op(one, "moe_experts_down").weight_bytes == Approx(moe_layers * 2 * down_per_expert).epsilon(1e-12));
  const StepCost many = cost.breakdown(decode_batch(256, 128));
  CHECK(op(many, "moe_experts_up").weight_bytes == Approx(moe_layers * 8 * up_per_expert).epsilon(1e-9));
  CHECK(op(many, "moe_experts_down").weight_bytes == Approx(moe_layers * 8 * down_per_expert).epsilon(1e-9));
  // In between, T = 2: 8*(1-0.75^2) = 8*0.4375 = 3.5 experts.
  const StepCost two = cost.breakdown(decode_batch(2, 128));
  CHECK(op(two, "moe_experts_up").weight_bytes == Approx(moe_layers * 3.5 * up_per_expert).epsilon(1e-12));
  // Expert FLOPs follow the token-expert assignments, not the experts touched:
  // T*k tokens through gate+up: 2 * (256*2) * 4096 * 2*14336 * 32 layers.
  CHECK(op(many, "moe_experts_up").flops == Approx(2.0 * 512 * 4096 * 2 * 14336 * 32).epsilon(1e-12));
}

TEST_CASE("step cost: step_time equals the breakdown's time", "[cost]") {
  std::vector<CostModel> models;
  models.push_back(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16));
  models.push_back(make_cost("a100-sxm4-80gb", "llama-2-7b", DType::fp16, DType::fp16, DType::fp16, 1, 1,
                             AttentionKernel::naive));
  models.push_back(make_cost("h100-sxm", "mixtral-8x7b", DType::fp8, DType::fp8, DType::fp8, 2));
  models.push_back(make_cost("h100-sxm", "llama-3.1-70b", DType::bf16, DType::bf16, DType::bf16, 4, 2));
  models.push_back(make_cost("h200-sxm", "deepseek-v3", DType::fp8, DType::fp8, DType::bf16, 8));
  std::vector<BatchSummary> batches = {decode_batch(1, 10), decode_batch(64, 3000), prefill_batch(2048),
                                       prefill_batch(512, 4096)};
  BatchSummary mixed = decode_batch(32, 1500);
  mixed.add(SeqWork{256, 1024, false});  // a non-final chunked-prefill piece
  batches.push_back(mixed);
  for (std::size_t i = 0; i < models.size(); ++i) {
    for (std::size_t j = 0; j < batches.size(); ++j) {
      INFO("model " << i << " batch " << j);
      const StepCost s = models[i].breakdown(batches[j]);
      CHECK(models[i].step_time(batches[j]) == s.time);
      CHECK(s.time > 0);
      // The parts by bound add up to the step time.
      double by_bound = 0;
      for (double t : s.time_by_bound) by_bound += t;
      CHECK(by_bound == Approx(s.time).epsilon(1e-9));
    }
  }
  // An empty batch costs nothing.
  CHECK(models[0].step_time(BatchSummary{}) == 0.0);
}

TEST_CASE("batch summary: add and remove round-trip to empty", "[cost][batch]") {
  const std::vector<SeqWork> seqs = {
      {1, 100, true}, {1, 4095, true}, {512, 0, true}, {256, 1024, false}, {0, 50, false}, {7, 3, true}};
  BatchSummary b;
  for (const auto& s : seqs) b.add(s);
  CHECK(b.seqs == 6);
  CHECK(b.new_tokens == 1 + 1 + 512 + 256 + 0 + 7);
  CHECK(b.sampled == 4);
  CHECK(b.decode_seqs == 2);
  CHECK(b.decode_kv_tokens == (100 + 1) + (4095 + 1));
  CHECK(b.prefill_seqs == 3);
  CHECK(b.prefill_tokens == 512 + 256 + 7);
  // Causal pairs n*c + n(n+1)/2: 0 + 131,328 | 262,144 + 32,896 | 21 + 28 -> 426,417.
  CHECK(b.prefill_pairs == 426417.0);
  // Full pairs n*(c+n): 262,144 | 256*1280 = 327,680 | 7*10 = 70 -> 589,894.
  CHECK(b.prefill_full_pairs == 589894.0);
  CHECK(b.prefill_kv_tokens == 512.0 + 1280.0 + 10.0);
  // summarize() is the same as adding one by one.
  const BatchSummary s = summarize(seqs);
  CHECK(s.prefill_pairs == b.prefill_pairs);
  CHECK(s.decode_kv_tokens == b.decode_kv_tokens);

  // Remove in a different order than added.
  for (auto it = seqs.rbegin(); it != seqs.rend(); ++it) b.remove(*it);
  CHECK(b.empty());
  CHECK(b.seqs == 0);
  CHECK(b.new_tokens == 0);
  CHECK(b.sampled == 0);
  CHECK(b.prefill_seqs == 0);
  CHECK(b.prefill_tokens == 0);
  CHECK(b.prefill_pairs == 0.0);
  CHECK(b.prefill_full_pairs == 0.0);
  CHECK(b.prefill_kv_tokens == 0.0);
  CHECK(b.decode_seqs == 0);
  CHECK(b.decode_kv_tokens == 0.0);
}

TEST_CASE("step cost: impossible parallelism is rejected when the model is built", "[cost][tp][errors]") {
  REQUIRE_THROWS_WITH(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16, 3),
                      Contains("tp=3 does not divide 32"));
  // 32 % 12 = 8: the attention-head check fails first.
  REQUIRE_THROWS_WITH(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16, 12),
                      Contains("tp=12 does not divide 32"));
  // Boundary: tp=16 exceeds the 8 KV heads but is a multiple of them (KV heads are
  // replicated, 16/8 = 2 ranks per KV head), so it is valid; each GPU keeps 1 KV head.
  CHECK(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16, 16).shard().kv_heads == 1);
  REQUIRE_THROWS_WITH(make_cost("h100-sxm", "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16, 1, 33),
                      Contains("pp=33 exceeds the 32 layers"));
}

TEST_CASE("gemm_overlap adds the unhidden share of the shorter roofline side", "[cost]") {
  // A 128-token prefill of Llama-3.1-8B on A100 sits near the ridge point: its GEMMs'
  // compute and memory times are of the same order. With gemm_overlap o each GEMM
  // takes max(c, m) + (1 - o) * min(c, m) (+ its kernel overheads): o = 1 is the
  // pure roofline, o = 0 the serial sum. Non-GEMM ops do not change.
  GpuSpec gpu = load_gpu("a100-sxm4-80gb");
  const CostModel base = make_cost(gpu, "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16);
  const StepCost b = base.breakdown(prefill_batch(128));
  for (double o : {0.0, 0.4}) {
    INFO("gemm_overlap " << o);
    gpu.efficiency.gemm_overlap = o;
    const CostModel slow = make_cost(gpu, "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16);
    const StepCost s = slow.breakdown(prefill_batch(128));
    REQUIRE(s.ops.size() == b.ops.size());
    double extra = 0;
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      const OpCost& x = s.ops[i];
      const OpCost& y = b.ops[i];
      if (x.kind == OpKind::gemm) {
        const double hidden_less = (1.0 - o) * std::min(y.compute_time, y.memory_time);
        CHECK(x.time == Approx(y.time + hidden_less).epsilon(1e-12));
        extra += hidden_less;
      } else {
        CHECK(x.time == y.time);
      }
    }
    CHECK(extra > 0.1 * b.time);  // near the ridge the overlap matters (> 10% of the step)
    CHECK(s.time == Approx(b.time + extra).epsilon(1e-12));
    // The exposed time is booked to the shorter side's bound: the split still sums up.
    double by_bound = 0;
    for (double t : s.time_by_bound) by_bound += t;
    CHECK(by_bound == Approx(s.time).epsilon(1e-12));
  }
}

TEST_CASE("elementwise_overhead is the floor of elementwise kernels, kernel_overhead that of the others", "[cost]") {
  // Llama-2-7B (32 layers), one sequence decoding one token. Elementwise kernels:
  //   5 per layer (attention norm+residual x2, rope, KV write, activation) = 160
  //   + 5 per step (embedding, final norm, 3 sampling passes)             =   5
  //   = 165.
  // GEMM and attention kernels: 5 per layer (qkv, attention, o, up, down) + the LM head = 161.
  // Raising elementwise_overhead from 0 to 10 us adds 165 * 10 us = 1.65 ms, exactly; raising
  // kernel_overhead from 0 to 10 us adds 161 * 10 us = 1.61 ms.
  GpuSpec gpu = load_gpu("h100-sxm");
  gpu.efficiency.kernel_overhead = 0;
  gpu.efficiency.elementwise_overhead = 0;
  const auto step = [&](const GpuSpec& g) {
    return make_cost(g, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).breakdown(decode_batch(1, 16));
  };
  const StepCost none = step(gpu);
  GpuSpec ew = gpu;
  ew.efficiency.elementwise_overhead = 10e-6;
  const StepCost e = step(ew);
  CHECK(e.time - none.time == Approx(165 * 10e-6).epsilon(1e-9));
  for (std::size_t i = 0; i < e.ops.size(); ++i) {
    INFO("op " << e.ops[i].name);
    CHECK(e.ops[i].overhead_time - none.ops[i].overhead_time ==
          Approx(e.ops[i].kind == OpKind::elementwise ? e.ops[i].count * 10e-6 : 0.0).margin(1e-15));
  }
  GpuSpec k = gpu;
  k.efficiency.kernel_overhead = 10e-6;
  CHECK(step(k).time - none.time == Approx(161 * 10e-6).epsilon(1e-9));
  // step_time (the event loop's fast path) agrees with the breakdown.
  CHECK(make_cost(ew, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).step_time(decode_batch(1, 16)) ==
        Approx(e.time).epsilon(1e-12));
}

TEST_CASE("elementwise kernels: bandwidth capped at bytes per SM-cycle x SMs x clock", "[cost]") {
  // H100 SXM5: 132 SMs x 1.98 GHz = 2.6136e11 SM-cycles/s, 3.35 TB/s HBM. An elementwise
  // kernel moves bytes at min(elementwise_memory x 3.35e12, b x 2.6136e11):
  //   b = 6:  6 x 2.6136e11 = 1.568e12 B/s < 0.9 x 3.35e12 = 3.015e12 -> the SMs bound it;
  //   b = 20: 20 x 2.6136e11 = 5.227e12 B/s > 3.015e12            -> HBM bounds it;
  //   b = 0:  no cap (the bandwidth-only form).
  GpuSpec gpu = load_gpu("h100-sxm");
  gpu.efficiency.elementwise_memory = 0.9;
  const auto ops = [&](double b) {
    GpuSpec g = gpu;
    g.efficiency.elementwise_bytes_per_sm_cycle = b;
    return make_cost(g, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).breakdown(prefill_batch(512)).ops;
  };
  const double sm_cycles = 132 * 1.98e9;
  const auto capped = ops(6), hbm = ops(20), off = ops(0);
  int elementwise = 0;
  for (std::size_t i = 0; i < capped.size(); ++i) {
    if (capped[i].kind != OpKind::elementwise) continue;
    ++elementwise;
    INFO(capped[i].name);
    const double bytes = capped[i].bytes();
    CHECK(capped[i].memory_time == Approx(bytes / (6 * sm_cycles)).epsilon(1e-12));
    CHECK(hbm[i].memory_time == Approx(bytes / (0.9 * 3.35e12)).epsilon(1e-12));
    CHECK(off[i].memory_time == hbm[i].memory_time);
  }
  CHECK(elementwise >= 5);
  // A GPU file without sm_count has no SM cap, whatever b says.
  GpuSpec bare = gpu;
  bare.sm_count = 0;
  bare.boost_clock = 0;
  bare.efficiency.elementwise_bytes_per_sm_cycle = 6;
  const auto nocap = make_cost(bare, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).breakdown(prefill_batch(512)).ops;
  for (std::size_t i = 0; i < nocap.size(); ++i)
    if (nocap[i].kind == OpKind::elementwise) CHECK(nocap[i].memory_time == hbm[i].memory_time);
}

TEST_CASE("elementwise kernels per op kind: SM-cycle floor, bytes per SM-cycle, occupancy threshold", "[cost]") {
  // A100 SXM4: 108 SMs x 1.41 GHz = 1.5228e11 SM-cycles/s, 2.039 TB/s HBM. With the act
  // knobs b = 6.5 bytes per SM-cycle, floor 1410 cycles, 1 token per SM, mlp_act (one kernel per
  // layer over T tokens) takes per layer
  //   floor 1410 / 1.41e9 = 1 us, plus bytes x max(T, 1 x 108) / T / min(gemm_memory 0.796 x 2.039e12,
  //   6.5 x 1.5228e11): 6.5 x 1.5228e11 = 9.898e11 B/s < 1.623e12, so the SMs bind.
  // At T = 512 (>= 108 tokens) the bytes are charged as they are; at T = 16 as if 108 tokens
  // ran (one thread block per token leaves SMs idle). norm and rope keep the shared form.
  GpuSpec gpu = load_gpu("a100-sxm4-80gb");
  gpu.efficiency.elementwise_memory = 0.6;
  gpu.efficiency.act_bytes_per_sm_cycle = 6.5;
  gpu.efficiency.act_floor_cycles = 1410;
  gpu.efficiency.act_tokens_per_sm = 1.0;
  gpu.efficiency.act_fp32_per_byte = 0;  // the memory side alone (the FP32 term: its own test below)
  GpuSpec shared = gpu;
  shared.efficiency.act_bytes_per_sm_cycle = 0;  // off: the shared knobs again
  const double rate = 6.5 * 108 * 1.41e9;
  for (const std::int64_t T : {512, 16}) {
    INFO("tokens " << T);
    const auto on = make_cost(gpu, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).breakdown(prefill_batch(T)).ops;
    const auto off =
        make_cost(shared, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).breakdown(prefill_batch(T)).ops;
    REQUIRE(on.size() == off.size());
    int act = 0;
    for (std::size_t i = 0; i < on.size(); ++i) {
      INFO(on[i].name);
      if (std::string_view(on[i].name) != "mlp_act") {
        CHECK(on[i].time == off[i].time);  // every other op is untouched
        continue;
      }
      ++act;
      CHECK(on[i].m_tokens == T);
      const double layers = 32;  // llama-2-7b
      const double charged = on[i].bytes() * std::max<double>(T, 108) / T;
      CHECK(on[i].memory_time == Approx(charged / rate).epsilon(1e-12));
      CHECK(on[i].overhead_time == Approx(layers * 1e-6).epsilon(1e-12));
      // The shared form: bytes / (0.6 x HBM) and the 2.424 us elementwise floor per kernel.
      CHECK(off[i].memory_time == Approx(off[i].bytes() / (0.6 * 2.039e12)).epsilon(1e-12));
      CHECK(off[i].overhead_time == Approx(layers * 2.424e-6).epsilon(1e-12));
    }
    CHECK(act == 1);
  }
  // With b = 20 the HBM side binds: 20 x 1.5228e11 = 3.05e12 > 0.796 x 2.039e12 (the GPU's
  // weight-streaming share caps the per-kind form, not elementwise_memory).
  GpuSpec fast = gpu;
  fast.efficiency.act_bytes_per_sm_cycle = 20;
  for (const auto& op : make_cost(fast, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).breakdown(prefill_batch(512)).ops)
    if (std::string_view(op.name) == "mlp_act") CHECK(op.memory_time == Approx(op.bytes() / (0.796 * 2.039e12)).epsilon(1e-12));
  // Without sm_count and boost_clock the per-kind knobs have no effect.
  GpuSpec bare = gpu;
  bare.sm_count = 0;
  bare.boost_clock = 0;
  GpuSpec bare_off = shared;
  bare_off.sm_count = 0;
  bare_off.boost_clock = 0;
  CHECK(make_cost(bare, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).step_time(prefill_batch(64)) ==
        make_cost(bare_off, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).step_time(prefill_batch(64)));
  // step_time (the event loop's fast path) agrees with the breakdown.
  const CostModel cm = make_cost(gpu, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16);
  CHECK(cm.step_time(prefill_batch(16)) == Approx(cm.breakdown(prefill_batch(16)).time).epsilon(1e-12));
}

TEST_CASE("elementwise kernels per op kind: an L2-resident rate and the stream_memory cap", "[cost]") {
  // A100 SXM4: 108 SMs x 1.41 GHz = 1.5228e11 SM-cycles/s, 2.039 TB/s HBM, L2 40960 KiB =
  // 41,943,040 bytes (hardware/a100-sxm4-80gb.yaml). llama-2-7b's mlp_act over T tokens moves
  // 3 x T x 11008 x 2 = 66,048 x T bytes per layer in one kernel (reads gate and up, writes one):
  //   T = 512:  33,816,576 bytes <= the L2 -> act_l2_bytes_per_sm_cycle 8: 8 x 1.5228e11 B/s;
  //   T = 1024: 67,633,152 bytes >  the L2 -> min(gemm_memory 0.796 x 2.039e12 = 1.623e12,
  //             act_bytes_per_sm_cycle 6.5 x 1.5228e11 = 9.898e11) = 9.898e11 B/s.
  // With stream_memory 0.4 the HBM side is 0.4 x 2.039e12 = 8.156e11 < 9.898e11 and binds above
  // the L2; the L2-resident kernel is not capped by HBM.
  GpuSpec gpu = load_gpu("a100-sxm4-80gb");
  REQUIRE(gpu.l2_cache == 40960.0 * 1024);
  gpu.efficiency.act_bytes_per_sm_cycle = 6.5;
  gpu.efficiency.act_l2_bytes_per_sm_cycle = 8.0;
  gpu.efficiency.act_fp32_per_byte = 0;  // the memory side alone (the FP32 term: its own test below)
  const double sm_cycles = 108 * 1.41e9;
  const auto act = [](const GpuSpec& g, std::int64_t T) {
    for (const auto& op : make_cost(g, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).breakdown(prefill_batch(T)).ops)
      if (std::string_view(op.name) == "mlp_act") return op;
    FAIL("no mlp_act op");
    return OpCost{};
  };
  const double layers = 32;
  const OpCost small = act(gpu, 512), large = act(gpu, 1024);
  CHECK(small.bytes() / small.count == Approx(66048.0 * 512));
  CHECK(large.bytes() / large.count == Approx(66048.0 * 1024));
  CHECK(small.memory_time == Approx(layers * 66048.0 * 512 / (8.0 * sm_cycles)).epsilon(1e-12));
  CHECK(large.memory_time == Approx(layers * 66048.0 * 1024 / (6.5 * sm_cycles)).epsilon(1e-12));
  GpuSpec capped = gpu;
  capped.efficiency.stream_memory = 0.4;
  CHECK(stream_memory_fraction(capped.efficiency) == 0.4);
  CHECK(stream_memory_fraction(gpu.efficiency) == 0.796);  // 0: the GPU's gemm_memory
  CHECK(act(capped, 1024).memory_time == Approx(layers * 66048.0 * 1024 / (0.4 * 2.039e12)).epsilon(1e-12));
  CHECK(act(capped, 512).memory_time == small.memory_time);
  // Without l2_cache in the GPU file, or with the L2 knob 0, one rate at every size.
  GpuSpec no_l2 = gpu;
  no_l2.l2_cache = 0;
  GpuSpec knob_off = gpu;
  knob_off.efficiency.act_l2_bytes_per_sm_cycle = 0;
  for (const GpuSpec* g : {&no_l2, &knob_off})
    CHECK(act(*g, 512).memory_time == Approx(layers * 66048.0 * 512 / (6.5 * sm_cycles)).epsilon(1e-12));
}

TEST_CASE("elementwise kernels per op kind: FP32 instructions add SM cycles per byte", "[cost]") {
  // A100 SXM4: 108 SMs x 1.41 GHz = 1.5228e11 SM-cycles/s, FP32 peak 19.5 TFLOP/s, i.e. 9.75e12
  // FP32 instructions/s over the GPU (64 lanes per SM); gemm_memory 0.796 x 2.039 TB/s HBM; L2
  // 41,943,040 bytes. H100 SXM: 132 SMs x 1.98 GHz = 2.6136e11 SM-cycles/s, FP32 67 TFLOP/s,
  // 3.35e13 instructions/s (128 lanes per SM). llama-2-7b's mlp_act moves 66,048 x T bytes per
  // layer (32 layers). With act b = 6.5 bytes per SM-cycle and w = 2 FP32 instructions per byte,
  // seconds per byte = 1 / (6.5 x SMs x clock) + w / (FP32 peak / 2):
  //   A100, T = 1024 (beyond the L2): 1 / 9.8982e11 + 2 / 9.75e12 = 1.01029e-12 + 2.05128e-13;
  //   H100, T = 1024 (67.6 MB > 50 MiB): 1 / 1.69884e12 + 2 / 3.35e13 = 5.88637e-13 + 5.97015e-14.
  // Per SM-cycle the H100 moves (1/6.5 + 2/64.03) / (1/6.5 + 2/128.2) = 0.18508 / 0.16945 = 1.092x
  // the A100's bytes (lanes = FP32 peak / (2 x SMs x clock)): the arithmetic share halves with twice
  // the lanes.
  const auto act = [](const GpuSpec& g, std::int64_t T) {
    for (const auto& op : make_cost(g, "llama-2-7b", DType::fp16, DType::fp16, DType::fp16).breakdown(prefill_batch(T)).ops)
      if (std::string_view(op.name) == "mlp_act") return op;
    FAIL("no mlp_act op");
    return OpCost{};
  };
  const double layers = 32, bytes = 66048.0 * 1024;
  GpuSpec a100 = load_gpu("a100-sxm4-80gb"), h100 = load_gpu("h100-sxm");
  for (GpuSpec* g : {&a100, &h100}) {
    g->efficiency.act_bytes_per_sm_cycle = 6.5;
    g->efficiency.act_fp32_per_byte = 2.0;
  }
  const double a100_s = 1.0 / (6.5 * 108 * 1.41e9) + 2.0 / (19.5e12 / 2);
  const double h100_s = 1.0 / (6.5 * 132 * 1.98e9) + 2.0 / (67e12 / 2);
  CHECK(act(a100, 1024).memory_time == Approx(layers * bytes * a100_s).epsilon(1e-12));
  CHECK(act(h100, 1024).memory_time == Approx(layers * bytes * h100_s).epsilon(1e-12));
  const double per_sm_cycle_ratio = (a100_s * 108 * 1.41e9) / (h100_s * 132 * 1.98e9);
  const double a100_lanes = 19.5e12 / (2 * 108 * 1.41e9), h100_lanes = 67e12 / (2 * 132 * 1.98e9);
  CHECK(per_sm_cycle_ratio == Approx((1 / 6.5 + 2.0 / a100_lanes) / (1 / 6.5 + 2.0 / h100_lanes)));
  CHECK(per_sm_cycle_ratio == Approx(1.092).margin(0.001));
  // The L2-resident rate gains the same term (T = 512: 33.8 MB fits the A100's 40 MiB L2).
  GpuSpec l2 = a100;
  l2.efficiency.act_l2_bytes_per_sm_cycle = 8.0;
  CHECK(act(l2, 512).memory_time ==
        Approx(layers * 66048.0 * 512 * (1.0 / (8.0 * 108 * 1.41e9) + 2.0 / 9.75e12)).epsilon(1e-12));
  // The HBM cap still binds where it is slower: b = 20 gives 1 / 3.0456e12 + 2.05128e-13 =
  // 5.3347e-13 s/B on the SMs, faster than 0.796 x 2.039e12 (6.1613e-13 s/B).
  GpuSpec fast = a100;
  fast.efficiency.act_bytes_per_sm_cycle = 20;
  CHECK(act(fast, 1024).memory_time == Approx(layers * bytes / (0.796 * 2.039e12)).epsilon(1e-12));
  // w = 0, or a GPU file without an FP32 peak: the memory side alone, bit for bit.
  GpuSpec off = a100, no_fp32 = a100;
  off.efficiency.act_fp32_per_byte = 0;
  no_fp32.peak_flops.erase(DType::fp32);
  CHECK(act(off, 1024).memory_time == Approx(layers * bytes / (6.5 * 108 * 1.41e9)).epsilon(1e-12));
  CHECK(act(no_fp32, 1024).memory_time == act(off, 1024).memory_time);
  // The declared defaults are the counted figures (efficiency.cpp citations).
  const Efficiency defaults;
  CHECK(defaults.act_fp32_per_byte == 2.0);     // 12 FP32 instructions per element / 6 bytes
  CHECK(defaults.rope_fp32_per_byte == 0.75);   // 6 per rotated pair / 8 bytes
  CHECK(defaults.norm_fp32_per_byte == Approx((2 * (3 + 11.0 / 8) + 2 * 1) / 20));  // Vidur's 4 kernels
}

TEST_CASE("gemm_8bit_compute_ratio scales fp8 GEMM compute time, not 16-bit", "[cost][precision]") {
  // A 4096-token prefill is compute-bound: GEMM compute time = flops / (peak x gemm_compute x
  // fill x ratio). With ratio 0.5 an fp8-compute GEMM's compute time doubles exactly; a bf16
  // GEMM's does not move (the ratio applies to 8-bit compute only).
  GpuSpec half = load_gpu("h100-sxm");
  half.efficiency.gemm_8bit_compute_ratio = 0.5;
  GpuSpec one = half;
  one.efficiency.gemm_8bit_compute_ratio = 1.0;
  const BatchSummary b = prefill_batch(4096);
  const auto f8h = make_cost(half, "llama-3.1-8b", DType::fp8, DType::fp8, DType::bf16).breakdown(b).ops;
  const auto f8o = make_cost(one, "llama-3.1-8b", DType::fp8, DType::fp8, DType::bf16).breakdown(b).ops;
  const auto b16h = make_cost(half, "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16).breakdown(b).ops;
  const auto b16o = make_cost(one, "llama-3.1-8b", DType::bf16, DType::bf16, DType::bf16).breakdown(b).ops;
  int gemms = 0;
  for (std::size_t i = 0; i < f8h.size(); ++i) {
    if (f8h[i].kind != OpKind::gemm) continue;
    ++gemms;
    INFO(f8h[i].name);
    CHECK(f8h[i].compute_time == Approx(2.0 * f8o[i].compute_time).epsilon(1e-12));
    CHECK(b16h[i].compute_time == b16o[i].compute_time);
  }
  CHECK(gemms >= 5);
}

TEST_CASE("gemm_4bit_compute_ratio scales fp4 GEMM compute time, not fp8 or 16-bit", "[cost][precision]") {
  // The same closed form as the 8-bit ratio: on a B200 (fp4 peak 9 PFLOP/s dense) a 4096-token prefill's
  // fp4-compute GEMM compute time = flops / (peak x gemm_compute x fill x ratio): ratio 0.5 doubles it
  // exactly against 1; fp8-compute GEMMs (the 8-bit ratio) and bf16 ones do not move.
  GpuSpec half = load_gpu("b200");
  half.efficiency.gemm_4bit_compute_ratio = 0.5;
  GpuSpec one = half;
  one.efficiency.gemm_4bit_compute_ratio = 1.0;
  const BatchSummary b = prefill_batch(4096);
  const auto f4h = make_cost(half, "llama-3.1-8b", DType::fp4, DType::fp4, DType::fp8).breakdown(b).ops;
  const auto f4o = make_cost(one, "llama-3.1-8b", DType::fp4, DType::fp4, DType::fp8).breakdown(b).ops;
  const auto f8h = make_cost(half, "llama-3.1-8b", DType::fp8, DType::fp8, DType::bf16).breakdown(b).ops;
  const auto f8o = make_cost(one, "llama-3.1-8b", DType::fp8, DType::fp8, DType::bf16).breakdown(b).ops;
  int gemms = 0;
  for (std::size_t i = 0; i < f4h.size(); ++i) {
    if (f4h[i].kind != OpKind::gemm) continue;
    ++gemms;
    INFO(f4h[i].name);
    CHECK(f4h[i].compute_time == Approx(2.0 * f4o[i].compute_time).epsilon(1e-12));
    CHECK(f8h[i].compute_time == f8o[i].compute_time);
  }
  CHECK(gemms >= 5);
  // The shipped Blackwell files carry the fitted 0.46 (hardware/b200.yaml); the knob's default is 1.
  CHECK(load_gpu("b200").efficiency.gemm_4bit_compute_ratio == Approx(0.46));
  CHECK(load_gpu("gb200").efficiency.gemm_4bit_compute_ratio == Approx(0.46));
  CHECK(Efficiency{}.gemm_4bit_compute_ratio == 1.0);
}

TEST_CASE("CDNA3 files reach AMD's max-achievable FLOPs and Azure's HBM stream rate", "[cost][catalog]") {
  // hardware/mi300x.yaml and mi325x.yaml carry cited rates, not fits. What a large GEMM reaches is
  // peak x gemm_compute (x gemm_8bit_compute_ratio for fp8), which must give back AMD's published
  // max-achievable FLOPs (ROCm blog, Feb 2025): MI300X BF16 708, FP8 1,273 TFLOP/s; MI325X BF16
  // 843, FP8 1,519. Weight streaming is HBM x gemm_memory: MI300X 5.3 TB/s x 0.783 = 4.15 TB/s,
  // the mean of Azure's copy/mul/add/triad (4.11, 4.26, 4.14, 4.09).
  const GpuSpec mi300x = load_gpu("mi300x");
  const GpuSpec mi325x = load_gpu("mi325x");
  auto large_gemm = [](const GpuSpec& g, DType d) {
    const double ratio = d == DType::fp8 ? g.efficiency.gemm_8bit_compute_ratio : 1.0;
    return g.peak(d) * g.efficiency.gemm_compute * ratio;
  };
  CHECK(large_gemm(mi300x, DType::bf16) == Approx(708e12).epsilon(1e-3));
  CHECK(large_gemm(mi300x, DType::fp8) == Approx(1273e12).epsilon(1e-3));
  CHECK(large_gemm(mi325x, DType::bf16) == Approx(843e12).epsilon(1e-3));
  CHECK(large_gemm(mi325x, DType::fp8) == Approx(1519e12).epsilon(1e-3));
  CHECK(mi300x.memory_bandwidth * mi300x.efficiency.gemm_memory == Approx((4.11 + 4.26 + 4.14 + 4.09) / 4 * 1e12).epsilon(1e-3));
  // Collectives, from Azure's RCCL 2.22 all-reduce on 8 MI300X: a large message moves at the bus
  // bandwidth 448 GB/s x 0.708 = 317 GB/s (measured 316.8 at 8 GB); a 1 KB one takes 2 x log2(8) x
  // 7.5 us = 45 us (measured: 1 KB / (0.04 GB/s x 8/14) = 44.8 us). MI325X has the same links.
  const Link xgmi = mi300x.intra_node;
  CHECK(xgmi.bandwidth * mi300x.efficiency.comm_bandwidth == Approx(316.8e9).epsilon(2e-3));
  CHECK(allreduce_time(1024, 8, xgmi, mi300x.efficiency.comm_bandwidth) == Approx(44.8e-6).epsilon(0.01));
  CHECK(mi325x.efficiency.comm_bandwidth == mi300x.efficiency.comm_bandwidth);
  // The H100 keeps the catalog's cuBLAS fraction: the CDNA3 numbers are the files', not a new default.
  CHECK(load_gpu("h100-sxm").efficiency.gemm_compute == Approx(0.70));
}
