// llama.cpp (and Ollama) as servesim runs them: the ggml back ends' kernels
// (cost/ggml_kernels.h), the engine its settings make (config/read_local_engine.cpp),
// and the closed forms of a bandwidth-bound decode.
#include <catch2/catch.hpp>

#include "config/catalog_reader.h"
#include "cost/step_cost.h"
#include "cost/weight_bytes.h"
#include "hardware/gpu_catalog.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;
using Catch::Contains;

namespace {

ResolvedPrecision gguf_precision(GgufType t, const GpuSpec& g) {
  PrecisionSpec p;
  p.gguf = t;
  p.weights = gguf_carrier_dtype(t);
  p.activations = DType::fp16;
  p.kv_cache = DType::fp16;
  return resolve_precision(p, g);
}

// One decode step of one sequence with `context` tokens of KV.
double decode_step(const CostModel& cost, std::int64_t context) {
  BatchSummary b = cost.batch();
  b.add(SeqWork{1, context, true});
  return cost.totals(b).time;
}

Scenario llama_scenario(const std::string& gpu, const std::string& model, const std::string& engine,
                        const std::string& weights = "") {
  std::string text = "hardware: {gpu: " + gpu + "}\nmodel: {name: " + model +
                     (weights.empty() ? "" : ", weights: " + weights) + "}\nengine: " + engine + "\n";
  return parse_scenario(parse_yaml_text(text), "test.yaml", false);
}

}  // namespace

TEST_CASE("llama.cpp: decode gets faster with fewer bits on every catalog device", "[llama_cpp][gguf]") {
  // Weight-only dequantisation is not priced as tensor-core compute on a mat-vec: fewer bits
  // stream fewer bytes, on every back end, at batch 1 and at the 8 tokens MMVQ still serves.
  const ModelSpec m = load_model("llama-2-7b");
  const std::vector<GgufType> by_bits = {GgufType::f16,    GgufType::q8_0,   GgufType::q6_k,
                                         GgufType::q5_k_m, GgufType::q4_k_m, GgufType::q4_0};
  for (const auto& name : gpu_catalog_names()) {
    const GpuSpec g = load_gpu(name);
    INFO(name);
    const GgmlKernels k = ggml_backend_kernels(ggml_backend_for(g));
    double previous = 0;
    for (GgufType t : by_bits) {
      INFO(gguf_type_name(t));
      const CostModel cost(g, m, gguf_precision(t, g), Parallelism{}, AttentionKernel::flash, k);
      const double step = decode_step(cost, 512);
      if (previous > 0) CHECK(step < previous);
      previous = step;
    }
  }
}

TEST_CASE("roofline: 4-bit weight-only decode is no slower than 16-bit on every catalog device",
          "[llama_cpp][precision]") {
  // The M2 Ultra case: a batch-1 decode whose 16-bit GEMMs are bandwidth-bound must not
  // turn compute-bound at 4 bits. The Apple and CPU files set a small tile-fill ramp
  // (efficiency.gemm_tokens_half): their skinny GEMMs run on the FP32 units, not tensor tiles.
  const ModelSpec m = load_model("llama-3.1-8b");
  for (const auto& name : gpu_catalog_names()) {
    const GpuSpec g = load_gpu(name);
    INFO(name);
    const DType half = g.supports(DType::bf16) ? DType::bf16 : DType::fp16;
    const ResolvedPrecision p16 = resolve_precision(PrecisionSpec{half, half, half}, g);
    const ResolvedPrecision p4 = resolve_precision(PrecisionSpec{DType::int4, half, half}, g);
    const CostModel c16(g, m, p16, Parallelism{});
    const CostModel c4(g, m, p4, Parallelism{});
    CHECK(decode_step(c4, 512) <= decode_step(c16, 512));
  }
}

TEST_CASE("llama.cpp: tg on a bandwidth-bound device is proportional to 1 / the bytes it reads", "[llama_cpp]") {
  // With the back end's fixed kernel time and ALU term at 0 and the GPU profile's overheads at
  // 0, a decode step of one token at context 1 streams the layers' matrices and the LM head
  // once at matvec_memory x bandwidth:
  //   t = (layer weights x b_layers + vocab x hidden x b_head) / (matvec_memory x bandwidth)
  // so tg = 1 / t is inversely proportional to those bytes. The rest of the step (norms,
  // rotary, SiLU, KV write and sampling move ~11 MB at 60% of the bandwidth: ~18 us) is the
  // same for every type and below 0.5% of these 4-8 ms steps: the tolerance.
  GpuSpec g = load_gpu("rtx-4090");
  g.efficiency.kernel_overhead = 0;
  g.efficiency.elementwise_overhead = 0;
  g.efficiency.step_overhead = 0;
  GgmlKernels k = ggml_backend_kernels(GgmlBackend::cuda);
  k.kernel_time = 0;
  k.matvec_alu_per_weight = 0;
  const ModelSpec m = load_model("llama-2-7b");
  const double layer_weights = static_cast<double>(m.total_params() - m.embedding_params() - m.norm_params());
  const double head_weights = static_cast<double>(m.vocab * m.hidden);
  std::vector<double> tg, bytes;
  for (GgufType t : {GgufType::q4_0, GgufType::q8_0, GgufType::q4_k_m}) {
    INFO(gguf_type_name(t));
    const ResolvedPrecision p = gguf_precision(t, g);
    const WeightElementBytes wb = weight_element_bytes(m, p);
    const double read = layer_weights * wb.layers + head_weights * wb.lm_head;
    const CostModel cost(g, m, p, Parallelism{}, AttentionKernel::flash, k);
    const double step = decode_step(cost, 1);
    CHECK(step == Approx(read / (k.matvec_memory * g.memory_bandwidth)).epsilon(0.005));
    tg.push_back(1.0 / step);
    bytes.push_back(read);
  }
  // q4_0 / q8_0: tg ratio = bytes ratio inverted (~ 8.5 / 4.5 on the layers).
  CHECK(tg[0] / tg[1] == Approx(bytes[1] / bytes[0]).epsilon(0.005));
  CHECK(tg[2] / tg[0] == Approx(bytes[0] / bytes[2]).epsilon(0.005));
}

TEST_CASE("llama.cpp: slots, context and ubatch become the engine's settings", "[llama_cpp][engine]") {
  const Scenario sc = llama_scenario("rtx-4090", "llama-3.1-8b",
                                     "{framework: llama.cpp, llama_cpp: {parallel: 4, ctx_size: 8192}}", "q4_k_m");
  CHECK(sc.engine.kind == "vllm");
  CHECK(sc.engine.max_num_seqs == 4);
  CHECK(sc.engine.max_num_batched_tokens == 512);           // one ubatch per step
  CHECK(sc.engine.num_gpu_blocks_override == 8192 / 16);    // KV for ctx_size allocated up front
  CHECK(sc.engine.max_model_len == 2048);                   // per slot: 8192 / 4
  CHECK(sc.engine.attention == AttentionKernel::flash);     // llama-server's -fa auto: on
  CHECK(sc.engine.frontend_latency == 0);
  CHECK(sc.engine.ggml.enabled);
  CHECK(sc.engine.ggml.backend == GgmlBackend::cuda);
  CHECK(sc.resolved.gguf == GgufType::q4_k_m);
  // A unified KV cache lets one request use the whole context.
  const Scenario u = llama_scenario("rtx-4090", "llama-3.1-8b",
                                    "{framework: llama.cpp, llama_cpp: {parallel: 4, ctx_size: 8192, kv_unified: true}}",
                                    "q4_k_m");
  CHECK(u.engine.max_model_len == 8192);
  // Metal on Apple silicon, the CPU back end on a CPU socket; llama.cpp's default weights are f16.
  CHECK(llama_scenario("apple-m2-ultra", "llama-2-7b", "{framework: llama.cpp}").engine.ggml.backend ==
        GgmlBackend::metal);
  const Scenario cpu = llama_scenario("cpu-epyc-9654", "llama-2-7b", "{framework: llama.cpp}");
  CHECK(cpu.engine.ggml.backend == GgmlBackend::cpu);
  CHECK(cpu.resolved.gguf == GgufType::f16);
}

TEST_CASE("ollama: Q4_K_M by default, 4 slots of num_ctx when they fit, flash attention off", "[llama_cpp][engine]") {
  // llama-3.1-8b Q4_K_M (~4.9 GB) and 4 x 4096 tokens of fp16 KV (128 KiB a token: 2 GiB) fit a
  // 24 GiB RTX 4090: Ollama's OLLAMA_NUM_PARALLEL default picks 4, each slot num_ctx = 4096.
  const Scenario sc = llama_scenario("rtx-4090", "llama-3.1-8b", "{framework: ollama}");
  CHECK(sc.resolved.gguf == GgufType::q4_k_m);
  CHECK(sc.engine.max_num_seqs == 4);
  CHECK(sc.engine.max_model_len == 4096);
  CHECK(sc.engine.num_gpu_blocks_override == 4 * 4096 / 16);
  CHECK(sc.engine.attention == AttentionKernel::naive);
}

TEST_CASE("llama.cpp: what does not fit, or is not modelled, is refused with the reason", "[llama_cpp][errors]") {
  // llama-3.1-70b f16 (~141 GB) on a 24 GiB card.
  REQUIRE_THROWS_WITH(llama_scenario("rtx-4090", "llama-3.1-70b", "{framework: llama.cpp}"),
                      Contains("does not fit rtx-4090") && Contains("smaller GGUF type"));
  // On a 16 GiB M1 the OS keeps a third: llama-2-7b f16 (12.6 GiB) does not fit the 10.7 GiB left.
  REQUIRE_THROWS_WITH(llama_scenario("apple-m1", "llama-2-7b", "{framework: llama.cpp}"),
                      Contains("the rest kept by the OS"));
  REQUIRE_THROWS_WITH(llama_scenario("rtx-4090", "llama-2-7b", "{framework: llama.cpp, llama_cpp: {n_gpu_layers: 20}}",
                                     "q4_0"),
                      Contains("partial offload is not modelled yet"));
  REQUIRE_THROWS_WITH(llama_scenario("rtx-4090", "llama-2-7b", "{framework: llama.cpp, max_num_seqs: 8}", "q4_0"),
                      Contains("engine.llama_cpp.parallel"));
  REQUIRE_THROWS_WITH(llama_scenario("rtx-4090", "llama-2-7b", "{framework: llama.cpp}", "int4"),
                      Contains("runs GGUF files"));
  REQUIRE_THROWS_WITH(llama_scenario("rtx-4090", "llama-2-7b", "{framework: vllm-v1, llama_cpp: {parallel: 2}}"),
                      Contains("engine.llama_cpp is for engine.framework llama.cpp or ollama"));
}

TEST_CASE("llama.cpp: a request longer than a slot's context fails as too long", "[llama_cpp][sim]") {
  // ctx_size 4096 over 2 slots: 2048 tokens a slot. A 1900 + 200 token request needs 2100.
  ConfigNode doc = parse_yaml_text(
      "hardware: {gpu: rtx-4090}\nmodel: {name: llama-2-7b, weights: q4_0}\n"
      "engine: {framework: llama.cpp, llama_cpp: {parallel: 2}}\n"
      "workload: {requests: 1, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: 1900}, "
      "output_tokens: {dist: fixed, value: 100}}\n");
  const Scenario ok = parse_scenario(doc, "test.yaml");
  CHECK(simulate(ok).summary.completed == 1);
  set_number(doc, "workload.output_tokens.value", 200.0);
  REQUIRE_THROWS_WITH(simulate(parse_scenario(doc, "test.yaml")), Contains("max_model_len"));
}
