// `servesim validate-static`: the benchmark-row parser, the catalog mapping and
// the static-batch predictions against their closed form.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test_sim_helpers.h"
#include "util/error.h"
#include "validation/static_batch.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "servesim_test_validation";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

const char* kHeader = "source,hardware,num_gpus,model,precision,tp,pp,framework,isl,osl,concurrency_or_rate,metric,unit,value,notes\n";

// Rows in the shapes of the shipped files (quoted fields with commas and "" quotes).
const std::string kRows = std::string(kHeader) +
    "github:x/splitwise,A100 80GB (DGX-A100),4,llama2-70b,FP16 (per Splitwise paper),4,1,\"vLLM-based (Splitwise, ISCA 2024)\",512,128,static_batch=8,prefill_batch_latency,ms,321.5,\"mean over 5 runs; prompt_time=prefill\"\n"
    "github:x/splitwise,A100 80GB (DGX-A100),4,llama2-70b,FP16 (per Splitwise paper),4,1,vLLM,512,128,static_batch=8,batch_e2e_latency,ms,5000,e2e\n"
    "github:x/lmdeploy,A100-SXM 80GB (x8 node; CUDA 11.8),1,llama2-7b,FP16,1,1,LMDeploy v0.1.0 TurboMind,128,2048,static_batch=16,token_latency_p50,s,0.015,FTL\n"
    "github:x/trt,L40S,1,GPT-J 6B,FP8 (fp8 GEMM + FP8 KV),1,1,TensorRT-LLM 0.5,128,128,static_batch=64,output_token_throughput,\"tokens/s (doc says \"\"out tok/s\"\"; per-GPU vs total ambiguous)\",3630,STATIC\n"
    "github:x/lmdeploy,A100-SXM 80GB,1,llama2-7b,FP16,1,1,LMDeploy v0.2.0,ShareGPT,ShareGPT,\"3000 prompts all at once, max batch 256\",request_throughput,req/s,14.5,sharegpt\n";

}  // namespace

TEST_CASE("validate-static: rows are parsed with quoted fields", "[validation]") {
  const auto rows = read_benchmark_csv(temp_file("rows.csv", kRows));
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].dataset == "rows");
  CHECK(rows[0].line == 2);
  CHECK(rows[0].framework == "vLLM-based (Splitwise, ISCA 2024)");
  CHECK(rows[0].tp == 4);
  CHECK(rows[0].num_gpus == 4);
  CHECK(rows[0].isl == 512);
  CHECK(rows[0].osl == 128);
  CHECK(rows[0].value == 321.5);
  CHECK(rows[0].notes == "mean over 5 runs; prompt_time=prefill");
  CHECK(rows[3].unit == "tokens/s (doc says \"out tok/s\"; per-GPU vs total ambiguous)");
  CHECK(rows[3].value == 3630);
  CHECK(rows[4].isl == -1);  // ShareGPT: not a fixed length
  CHECK(rows[4].isl_text == "ShareGPT");
  CHECK(rows[4].concurrency == "3000 prompts all at once, max batch 256");
}

TEST_CASE("validate-static: a malformed row names the file and line", "[validation]") {
  CHECK_THROWS_WITH(read_benchmark_csv(temp_file("bad_value.csv", std::string(kHeader) +
                                                                      "s,L40S,1,m,FP16,1,1,f,1,1,static_batch=1,"
                                                                      "ttft_batch1,ms,fast,n\n")),
                    Catch::Contains("bad_value.csv:2: value 'fast' is not a number"));
  CHECK_THROWS_WITH(read_benchmark_csv(temp_file("bad_header.csv", "source,hardware\n")),
                    Catch::Contains("missing columns"));
}

TEST_CASE("validate-static: catalog names for the tables' strings", "[validation]") {
  CHECK(catalog_gpu_for("GH200 (doc: 120GB)") == "gh200");
  CHECK(catalog_gpu_for("H200 SXM 141GB") == "h200-sxm");
  CHECK(catalog_gpu_for("H100 SXM 80GB") == "h100-sxm");
  CHECK(catalog_gpu_for("A100 (variant not stated; likely SXM4 80GB)") == "a100-sxm4-80gb");
  CHECK(catalog_gpu_for("L40S") == "l40s");
  CHECK(catalog_gpu_for("B200 180GB (DGX B200)") == "b200");
  CHECK(catalog_gpu_for("GB200 192GB (GB200 NVL72)") == "gb200");
  CHECK_FALSE(catalog_gpu_for("TPU v5e").has_value());
  CHECK(catalog_model_for("LLaMA v3 8B") == "llama-3.1-8b");
  CHECK(catalog_model_for("LLaMA v2 70B") == "llama-2-70b");
  CHECK(catalog_model_for("llama2-13b") == "llama-2-13b");
  CHECK(catalog_model_for("LLaMA 7B") == "llama-2-7b");
  CHECK(catalog_model_for("Mistral 7B") == "mistral-7b");
  CHECK(catalog_model_for("Mixtral 8x7B") == "mixtral-8x7b");
  CHECK_FALSE(catalog_model_for("GPT-J 6B").has_value());
  CHECK_FALSE(catalog_model_for("GPTJ 6B").has_value());
  CHECK_FALSE(catalog_model_for("Falcon 180B").has_value());
  CHECK_FALSE(catalog_model_for("bloom-176b").has_value());
  CHECK(static_batch_size("static_batch=64") == 64);
  CHECK_FALSE(static_batch_size("offline max load (request_rate -1, 2000 requests)").has_value());
}

TEST_CASE("validate-static: an NVFP4 row runs W4A4 with the KV cache its precision names", "[validation]") {
  // TensorRT-LLM 1.0's tables: NVFP4 checkpoints with an FP8 KV cache on B200.
  const auto rows = read_benchmark_csv(temp_file(
      "fp4.csv", std::string(kHeader) +
                     "s,B200 180GB (DGX B200),1,Llama 3.3 70B,\"NVFP4 (W4A4, FP8 KV)\",1,1,f,128,128,offline,"
                     "output_token_throughput,tokens/s,1,n\n"
                     "s,B200 180GB (DGX B200),1,Llama 3.3 70B,NVFP4,1,1,f,128,128,offline,"
                     "output_token_throughput,tokens/s,1,n\n"));
  const Scenario with_fp8_kv = row_scenario(rows[0], {});
  CHECK(with_fp8_kv.gpu.name == "b200");
  CHECK(with_fp8_kv.model.name == "llama-3.1-70b");
  CHECK(with_fp8_kv.precision.weights == DType::fp4);
  CHECK(with_fp8_kv.precision.activations == DType::fp4);
  CHECK(with_fp8_kv.precision.kv_cache == DType::fp8);
  CHECK(row_scenario(rows[1], {}).precision.kv_cache == DType::bf16);
}

TEST_CASE("validate-static: predictions follow the closed form of the step cost", "[validation]") {
  const auto rows = read_benchmark_csv(temp_file("rows.csv", kRows));
  StaticValidationOptions o;
  o.offline = false;
  const auto results = validate_static_rows(rows, o);
  REQUIRE(results.size() == 5);

  // Llama-2-70B fp16, TP 4 on A100-80GB.
  const Scenario sc = row_scenario(rows[0], {});
  CHECK(sc.gpu.name == "a100-sxm4-80gb");
  CHECK(sc.model.name == "llama-2-70b");
  CHECK(sc.parallelism.tp == 4);
  const CostModel cost = make_cost_model(sc);
  const EngineConfig& cfg = sc.engine;

  SECTION("prefill of a batch of 8 x 512 tokens: one step") {
    const RowResult& r = results[0];
    REQUIRE(r.compared);
    CHECK(r.gpu == "a100-sxm4-80gb");
    CHECK(r.batch == 8);
    CHECK(r.unit == "ms");
    const double want = step_seconds(cost, cfg, batch_of(8, SeqWork{512, 0, true})) * 1e3;
    CHECK(r.predicted == Approx(want).epsilon(1e-12));
    CHECK(r.measured == 321.5);
    CHECK(r.error_pct == Approx(100.0 * (want - 321.5) / 321.5));
  }
  SECTION("end to end: prefill, then 127 decode steps with growing context") {
    double want = step_seconds(cost, cfg, batch_of(8, SeqWork{512, 0, true}));
    for (std::int64_t j = 1; j <= 127; ++j) want += step_seconds(cost, cfg, batch_of(8, SeqWork{1, 512 + j - 1, true}));
    CHECK(results[1].predicted == Approx(want * 1e3).epsilon(1e-9));
    // At least the prefill plus 127 steps as cheap as the first one.
    const double first = step_seconds(cost, cfg, batch_of(8, SeqWork{1, 512, true}));
    CHECK(results[1].predicted > results[0].predicted + 127 * first * 1e3 * 0.999);
  }
  SECTION("token latency p50 (seconds in the file): the decode step halfway through") {
    const Scenario sc7 = row_scenario(rows[2], {});
    const CostModel c7 = make_cost_model(sc7);
    const std::int64_t ctx = 128 + std::llround(0.5 * 2047);
    const double want = step_seconds(c7, sc7.engine, batch_of(16, SeqWork{1, ctx, true})) * 1e3;
    REQUIRE(results[2].compared);
    CHECK(results[2].measured == Approx(15.0));  // 0.015 s
    CHECK(results[2].predicted == Approx(want).epsilon(1e-12));
  }
  SECTION("rows without a catalog model or fixed lengths are skipped with the reason") {
    CHECK_FALSE(results[3].compared);
    CHECK(results[3].skip_reason == "no catalog model (GPT-J 6B)");
    CHECK_FALSE(results[4].compared);
    CHECK(results[4].skip_reason.find("lengths not fixed") != std::string::npos);
  }
  SECTION("grouped per data set, GPU and metric") {
    const auto groups = group_errors(results);
    REQUIRE(groups.size() == 3);
    for (const auto& g : groups) {
      CHECK(g.count == 1);
      CHECK(g.median_abs_pct == Approx(std::fabs(g.median_signed_pct)));
      CHECK(g.worst.size() == 1);
    }
  }
}

TEST_CASE("validate-static: the median", "[validation]") {
  CHECK(median_of({}) == 0);
  CHECK(median_of({3, 1, 2}) == 2);
  CHECK(median_of({4, 1, 3, 2}) == 2.5);
}
