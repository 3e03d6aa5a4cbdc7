// The layer kinds of model/layer_kinds.h in closed form, on the published configs of
// tests/fixtures/hf_configs_2026/: a state layer's per-sequence state does not grow with the
// context (and the memory plan reserves a slot of it per sequence, not KV blocks); DSA's
// attention reads the top-k keys while its indexer scores them all; gpt-oss's sinks add no KV
// and its sliding layers cap theirs; a hybrid model holds several times the 128k-token
// sequences of a full-attention model of the same shapes.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/kv_size.h"
#include "cost/memory_plan.h"
#include "engine/kv_blocks.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {
std::string fixture(const std::string& name) { return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_2026/" + name; }

Setup setup_of(const std::string& model, const std::string& gpu, int tp, const std::string& model_extra = "",
               const std::string& engine = "{}") {
  return parse_setup_only(parse_yaml_text("hardware: {gpu: " + gpu + "}\nmodel: {name: " + model + model_extra +
                                          "}\nparallelism: {tp: " + std::to_string(tp) + "}\nengine: " + engine + "\n"),
                          "s.yaml");
}

const OpCost& op_named(const StepCost& s, const std::string& name) {
  for (const OpCost& o : s.ops)
    if (name == o.name) return o;
  FAIL("no op " << name);
  return s.ops.front();
}

}  // namespace

TEST_CASE("layer kinds: a gated delta rule layer's state is constant in the context", "[layers][state]") {
  // Qwen3-Next-80B-A3B: 36 gated delta rule layers of 32 value heads x 128 (keys 16 x 128),
  // conv kernel 4, state in bf16 (vLLM's auto = the model's dtype):
  //   recurrent state per layer  32 x 128 x 128 x 2 B          = 1,048,576 B
  //   conv state per layer       (2 x 16 x 128 + 32 x 128) x 3 x 2 B =  49,152 B
  //   per sequence               36 x 1,097,728 B            = 39,518,208 B (39.5 MB)
  // and the 12 attention layers cache 2 x 2 KV heads x 256 x 2 B = 2048 B a token each.
  const Setup s = setup_of(fixture("qwen3-next-80b-a3b-thinking"), "h200-sxm", 2, "",
                           "{max_num_seqs: 64, prefix_caching: false}");
  const ModelSpec& m = s.model;
  CHECK(m.state_bytes_per_sequence(DType::bf16) == 36.0 * (32.0 * 128 * 128 * 2 + (2.0 * 16 * 128 + 32 * 128) * 3 * 2));
  CHECK(m.kv_bytes_per_token(DType::bf16) == 12.0 * 2 * 2 * 256 * 2);
  const CostModel cost = make_cost_model(s);
  // Per GPU at tp=2: half the heads of every state layer, one of the two KV heads.
  const MemoryPlan plan = plan_setup_memory(s, cost);
  CHECK(plan.state_bytes_per_sequence == 39518208.0 / 2);
  CHECK(plan.state_slots == 64);  // engine.max_num_seqs
  CHECK(plan.state_bytes == 64 * 39518208.0 / 2);
  CHECK(plan.kv_bytes_per_token == 12.0 * 2 * 1 * 256 * 2);
  // A decode step of 8 sequences reads and writes each state once, at 1k or 100k tokens of
  // context: 2 x 8 x 1,097,728 / 2 x 36 bytes; the attention layers' KV read grows with it.
  const StepCost short_ctx = decode_step(cost, 8, 1000), long_ctx = decode_step(cost, 8, 100000);
  const double state_traffic = 2.0 * 8 * (1097728.0 / 2) * 36;
  CHECK(op_named(short_ctx, "state_update_decode").kv_bytes == Approx(state_traffic).epsilon(1e-12));
  CHECK(op_named(long_ctx, "state_update_decode").kv_bytes == Approx(state_traffic).epsilon(1e-12));
  CHECK(op_named(long_ctx, "attention_decode").kv_bytes ==
        Approx(12.0 * 2 * 1 * 256 * 2 * 8 * 100001).epsilon(1e-12));
  // The decode update's FLOPs: 7 dk dv per head plus the conv (2 x 4 per channel), per
  // layer and token, over the GPU's half of the heads and channels.
  const double flops = 8.0 * (32 * 7.0 * 128 * 128 + 2.0 * 4 * (2 * 16 * 128 + 32 * 128)) / 2 * 36;
  CHECK(op_named(short_ctx, "state_update_decode").flops == Approx(flops).epsilon(1e-12));
}

TEST_CASE("layer kinds: Mamba-2 and Mamba state sizes", "[layers][state]") {
  // Nemotron 3 Nano: 23 Mamba-2 layers of 64 heads x 64 x d_state 128 in fp32
  // (mamba_ssm_cache_dtype), conv over 64 x 64 + 2 x 8 x 128 = 6144 channels x 3 in bf16:
  // 23 x (64 x 64 x 128 x 4 + 6144 x 3 x 2) = 23 x 2,134,016 = 49,082,368 bytes.
  const ModelSpec nano = load_model(fixture("nemotron-3-nano-30b-a3b"));
  CHECK(nano.state_bytes_per_sequence(DType::bf16) == 23.0 * (64.0 * 64 * 128 * 4 + 6144.0 * 3 * 2));
  // Jamba: 28 Mamba layers of d_inner 8192 x d_state 16 (bf16) and a conv of 8192 x 3:
  // 28 x (8192 x 16 x 2 + 8192 x 3 x 2) = 28 x 311,296 = 8,716,288 bytes.
  const ModelSpec jamba = load_model(fixture("jamba-v0.1"));
  CHECK(jamba.state_bytes_per_sequence(DType::bf16) == 28.0 * (8192.0 * 16 * 2 + 8192.0 * 3 * 2));
}

TEST_CASE("layer kinds: DSA attention reads the top-k keys, its indexer all of them", "[layers][dsa]") {
  // DeepSeek-V3.2 on 8 H200 (tp 8), fp8 KV: per token and layer the MLA latent (512 + 64 =
  // 576 elements, 1 byte each) and the indexer key (128 fp8 + one fp32 scale = 132 bytes).
  const Setup s = setup_of(fixture("deepseek-v3.2"), "h200-sxm", 8, ", kv_cache: fp8", "{prefix_caching: false}");
  const CostModel cost = make_cost_model(s);
  CHECK(s.model.kv_bytes_per_token(DType::fp8) == 61.0 * (576 + 132));
  for (const std::int64_t c : {1000LL, 2047LL, 100000LL}) {
    INFO("context " << c);
    const StepCost step = decode_step(cost, 1, c);
    const double selected = static_cast<double>(std::min<std::int64_t>(c + 1, 2048));
    // Attention over min(c + 1, 2048) keys; the indexer over all c + 1 of them, in fp8:
    // 2 x 64 heads x 128 FLOPs a key, and its keys read.
    CHECK(op_named(step, "attention_decode").kv_bytes == Approx(61.0 * 576 * selected).epsilon(1e-12));
    CHECK(op_named(step, "dsa_indexer_decode").flops == Approx(2.0 * 64 * 128 * (c + 1) * 61).epsilon(1e-12));
    CHECK(op_named(step, "dsa_indexer_decode").kv_bytes == Approx(132.0 * (c + 1) * 61).epsilon(1e-12));
  }
  // Past the top k, the attention's cost stops growing: 100k tokens cost what 2048 do.
  CHECK(op_named(decode_step(cost, 1, 100000), "attention_decode").time ==
        op_named(decode_step(cost, 1, 2047), "attention_decode").time);
  // Prefill of 4096 tokens: sum over positions p of min(p, 2048) query-key pairs for the
  // attention, p for the indexer: 2048 x 2049 / 2 + 2048 x 2048 and 4096 x 4097 / 2.
  BatchSummary b = cost.batch();
  b.add(SeqWork{4096, 0, true});
  const StepCost pre = cost.breakdown(b);
  const double heads = 128.0 / 8;
  CHECK(op_named(pre, "attention_prefill").flops ==
        Approx(2.0 * heads * (576 + 512) * 61 * (2048.0 * 2049 / 2 + 2048.0 * 2048)).epsilon(1e-12));
  CHECK(op_named(pre, "dsa_indexer_prefill").flops == Approx(2.0 * 64 * 128 * 61 * (4096.0 * 4097 / 2)).epsilon(1e-12));
}

TEST_CASE("layer kinds: gpt-oss sinks add no KV, its sliding layers cap theirs", "[layers][sinks]") {
  // gpt-oss-20b: 24 layers of 8 KV heads x 64 (bf16: 2048 bytes a token and layer), 12 of them
  // with a 128-token window. Sinks are a logit per head: 64 weights a layer, no cache.
  const ModelSpec m = load_model(fixture("gpt-oss-20b"));
  ModelSpec no_sinks = m;
  no_sinks.attention_sinks = false;
  CHECK(m.kv_bytes_per_token(DType::bf16) == 24.0 * 2048);
  CHECK(no_sinks.kv_bytes_per_token(DType::bf16) == m.kv_bytes_per_token(DType::bf16));
  CHECK(m.attention_params_per_layer() - no_sinks.attention_params_per_layer() == 64);
  // Decode at context 10,000: 12 full layers read 10,001 keys, 12 sliding layers 128.
  const Setup s = setup_of(fixture("gpt-oss-20b"), "h100-sxm", 1, "", "{prefix_caching: false}");
  const CostModel cost = make_cost_model(s);
  CHECK(op_named(decode_step(cost, 1, 10000), "attention_decode").kv_bytes ==
        Approx(12.0 * 2048 * 10001 + 12.0 * 2048 * 128).epsilon(1e-12));
  // With the window's blocks freed (vLLM, block 16): 12 x ceil(10,000 / 16) blocks for the
  // full layers and 12 x (128 / 16 + 1) for the sliding ones.
  EngineContext ctx;
  ctx.cost = &cost;
  ctx.config = s.engine;
  const BlockSize b = hybrid_block_size(ctx);
  REQUIRE(b.hybrid());
  CHECK(b.blocks_for(10000) == 12 * 625 + 12 * 9);
}

TEST_CASE("layer kinds: a hybrid model holds more 128k-token sequences than full attention", "[layers][capacity]") {
  // Qwen3-Next-80B-A3B on 2 H200 (tp 2, bf16, gpu_memory_utilization 0.9, max_num_seqs 64)
  // against the same model with all 48 layers full attention (its gated delta layers' weights
  // replaced by attention's: the same hidden size, experts and vocabulary). Per GPU a 128k
  // sequence needs 131,072 x 12,288 bytes of KV (12 layers x 1 KV head x 256 x 2 x 2 B) in the
  // hybrid and 131,072 x 49,152 (48 layers) in the other; the hybrid also reserves 64 state
  // slots of 19,759,104 bytes. Sequences that fit = floor(KV bytes / bytes of one sequence).
  const std::string engine = "{max_num_seqs: 64, prefix_caching: false}";
  const Setup hybrid = setup_of(fixture("qwen3-next-80b-a3b-thinking"), "h200-sxm", 2, "", engine);
  Setup full = hybrid;
  full.model.state = StateLayers{};  // every layer attends
  const CostModel hc = make_cost_model(hybrid), fc = make_cost_model(full);
  const MemoryPlan hp = plan_setup_memory(hybrid, hc), fp = plan_setup_memory(full, fc);
  REQUIRE(hp.fits);
  REQUIRE(fp.fits);
  CHECK(hp.kv_bytes_per_token == 12288.0);
  CHECK(fp.kv_bytes_per_token == 49152.0);
  CHECK(fp.state_bytes == 0.0);
  // The budgets differ by the state slots and the weights the two layer kinds hold.
  CHECK(hp.kv_bytes == Approx(hp.budget - hp.weights - hp.activations - hp.runtime_overhead - 64 * 19759104.0));
  const std::int64_t hybrid_seqs = static_cast<std::int64_t>(std::floor(hp.kv_bytes / (131072.0 * 12288)));
  const std::int64_t full_seqs = static_cast<std::int64_t>(std::floor(fp.kv_bytes / (131072.0 * 49152)));
  // The plans' own block counts give the same answer (blocks of 16 tokens).
  CHECK(hp.kv_tokens / 131072 == hybrid_seqs);
  CHECK(fp.kv_tokens / 131072 == full_seqs);
  CHECK(hybrid_seqs >= 3 * full_seqs);  // 4x less KV a token, less the state slots
  CHECK(full_seqs >= 1);
}
