// The shipped catalogs: hardware/*.yaml and models/*.yaml load, hold datasheet
// values, and derived parameter and KV-cache counts match closed forms.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/catalog_reader.h"
#include "util/error.h"
#include "util/paths.h"

using namespace servesim;
using Catch::Contains;

namespace {
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

// ---------------------------------------------------------------- GPUs

TEST_CASE("gpu catalog: the required GPUs are all present", "[catalog][gpu]") {
  const auto names = gpu_catalog_names();
  const std::vector<std::string> required = {"a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm", "h100-pcie",
                                             "h200-sxm",       "b200",           "gh200",    "l40s",
                                             "l4",             "a10g",           "mi300x",   "mi325x"};
  CHECK(names.size() >= required.size());
  for (const auto& r : required) {
    INFO("GPU " << r);
    CHECK(contains(names, r));
  }
  // Names come back sorted (they are listed in error messages).
  CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("gpu catalog: every GPU loads with positive bandwidth, capacity and 16-bit peak", "[catalog][gpu]") {
  for (const auto& name : gpu_catalog_names()) {
    INFO("GPU " << name);
    GpuSpec g;
    REQUIRE_NOTHROW(g = load_gpu(name));
    CHECK(g.name == name);
    CHECK(g.memory_bandwidth > 0);
    CHECK(g.memory_capacity > 0);
    CHECK((g.supports(DType::bf16) || g.supports(DType::fp16)));
    const double peak16 = g.supports(DType::bf16) ? g.peak(DType::bf16) : g.peak(DType::fp16);
    CHECK(peak16 > 0);
    CHECK(g.intra_node.bandwidth > 0);
    CHECK(g.tdp_watts > 0);
    // Sanity ranges that catch a unit slip (GB/s typed as TB/s, GiB for GB, sparse
    // peaks): every catalog GPU has 16..300 GB, 0.2..10 TB/s and 50..5000 TFLOP/s 16-bit.
    CHECK(g.memory_capacity >= 16e9);
    CHECK(g.memory_capacity <= 300e9);
    CHECK(g.memory_bandwidth >= 0.2e12);
    CHECK(g.memory_bandwidth <= 10e12);
    CHECK(peak16 >= 50e12);
    CHECK(peak16 <= 5000e12);
    CHECK(g.idle_watts < g.tdp_watts);
  }
}

TEST_CASE("gpu catalog: H100 SXM datasheet values", "[catalog][gpu]") {
  const GpuSpec g = load_gpu("h100-sxm");
  // Memory as the device reports it, 81,559 MiB = 85,520,809,984 B ([DS] says "80 GB");
  // 3.35 TB/s = 3.35e12 B/s; dense bf16 989.4 TFLOP/s.
  CHECK(g.memory_capacity == 85520809984.0);
  CHECK(g.memory_bandwidth == Approx(3.35e12).epsilon(1e-12));
  CHECK(g.peak(DType::bf16) == Approx(989.4e12).epsilon(1e-12));
  // FP8 tensor cores run at twice the 16-bit rate (dense): 2 * 989.4 = 1978.8 vs the
  // listed 1978.9 TFLOP/s (rounding in the whitepaper): equal within 1e-4.
  REQUIRE(g.supports(DType::fp8));
  CHECK(g.peak(DType::fp8) == Approx(2.0 * g.peak(DType::bf16)).epsilon(1e-4));
  // NVLink 900 GB/s bidirectional -> 450e9 B/s per direction; NDR 400 Gb/s = 50e9 B/s.
  CHECK(g.intra_node.bandwidth == Approx(450e9).epsilon(1e-12));
  CHECK(g.inter_node.bandwidth == Approx(50e9).epsilon(1e-12));
  CHECK(g.gpus_per_node == 8);
  CHECK(g.tdp_watts == Approx(700.0).epsilon(1e-12));
  CHECK(g.price_per_hour == Approx(2.99).epsilon(1e-12));
}

TEST_CASE("gpu catalog: A100 has no fp8 tensor cores", "[catalog][gpu]") {
  for (const char* name : {"a100-sxm4-40gb", "a100-sxm4-80gb"}) {
    INFO("GPU " << name);
    const GpuSpec g = load_gpu(name);
    CHECK_FALSE(g.supports(DType::fp8));
    CHECK(g.supports(DType::bf16));
    // [DS] dense bf16 312 TFLOP/s on both A100 variants.
    CHECK(g.peak(DType::bf16) == Approx(312e12).epsilon(1e-12));
    CHECK_THROWS_WITH(g.peak(DType::fp8), Contains("has no fp8 tensor cores") && Contains("bf16"));
  }
  // The two A100s differ in memory: 40 GiB at 1.555 TB/s vs 80 GiB at 2.039 TB/s
  // (the devices report 40,960 and 81,920 MiB: 42,949,672,960 and 85,899,345,920 B).
  CHECK(load_gpu("a100-sxm4-40gb").memory_capacity == 42949672960.0);
  CHECK(load_gpu("a100-sxm4-80gb").memory_capacity == 85899345920.0);
}

TEST_CASE("gpu catalog: Hopper-and-later parts have fp8 at twice bf16 (dense)", "[catalog][gpu]") {
  for (const char* name : {"h100-sxm", "h100-pcie", "h200-sxm", "gh200"}) {
    INFO("GPU " << name);
    const GpuSpec g = load_gpu(name);
    REQUIRE(g.supports(DType::fp8));
    CHECK(g.peak(DType::fp8) == Approx(2.0 * g.peak(DType::bf16)).epsilon(1e-3));
  }
}

TEST_CASE("gpu catalog: unknown GPU lists the names and suggests the closest", "[catalog][gpu][errors]") {
  // "h100-smx" is two edits (a transposition) from "h100-sxm".
  REQUIRE_THROWS_AS(load_gpu("h100-smx"), Error);
  REQUIRE_THROWS_WITH(load_gpu("h100-smx"), Contains("unknown GPU 'h100-smx'") &&
                                                Contains("did you mean 'h100-sxm'") &&
                                                Contains("a100-sxm4-40gb") && Contains("mi325x") &&
                                                Contains("l40s"));
  // A name far from all of them still lists the valid names, without a suggestion.
  REQUIRE_THROWS_WITH(load_gpu("tpu-v5p"), Contains("unknown GPU 'tpu-v5p'") && Contains("h200-sxm"));
  REQUIRE_THROWS_WITH(load_gpu("tpu-v5p"), !Contains("did you mean"));
  // A path that does not exist is reported as a path.
  REQUIRE_THROWS_WITH(load_gpu("/nonexistent/gpu.yaml"), Contains("/nonexistent/gpu.yaml: GPU file not found"));
}

// ---------------------------------------------------------------- models

TEST_CASE("model catalog: every model loads and is self-consistent", "[catalog][model]") {
  const auto names = model_catalog_names();
  REQUIRE(names.size() >= 10);
  for (const auto& name : names) {
    INFO("model " << name);
    ModelSpec m;
    REQUIRE_NOTHROW(m = load_model(name));
    CHECK(m.name == name);
    CHECK(m.layers > 0);
    CHECK(m.heads % m.kv_heads == 0);
    CHECK(m.total_params() > 0);
    CHECK(m.active_params() > 0);
    CHECK(m.active_params() <= m.total_params());
    // Dense models touch every parameter per token; MoE models touch strictly fewer.
    if (m.moe.enabled()) {
      CHECK(m.active_params() < m.total_params());
    } else {
      CHECK(m.active_params() == m.total_params());
    }
    CHECK(m.kv_bytes_per_token(DType::bf16) > 0);
  }
}

TEST_CASE("model catalog: dense parameter counts match the closed form", "[catalog][model]") {
  // Closed form for a Llama-family dense model (no biases, untied embeddings):
  //   per layer  = attention + MLP
  //   attention  = h*(q + 2*kv) + q*h    with q = heads*head_dim, kv = kv_heads*head_dim
  //              = 4h^2 when kv_heads == heads (plain MHA)
  //   MLP        = 3*h*ffn               (SwiGLU: gate, up, down)
  //   total      = L*(attention + MLP) + 2*V*h (+ (2L+1)*h norm weights, < 0.01%)
  SECTION("llama-2-7b ~ 6.74e9") {
    // L=32, h=4096, MHA, ffn=11008, V=32000:
    //   attention = 4*4096^2 = 67,108,864;  MLP = 3*4096*11008 = 135,266,304
    //   32*(202,375,168) = 6,476,005,376;  2*32000*4096 = 262,144,000
    //   total = 6,738,149,376 (+ 65*4096 = 266,240 norms) = 6,738,415,616
    const ModelSpec m = load_model("llama-2-7b");
    CHECK(m.total_params() == 6738415616);
    CHECK(m.total_params() == Approx(6.74e9).epsilon(0.01));
  }
  SECTION("llama-3.1-8b ~ 8.03e9") {
    // L=32, h=4096, heads=32, kv_heads=8, head_dim=128 (q=4096, kv=1024), ffn=14336, V=128256:
    //   attention = 4096*(4096+2048) + 4096*4096 = 25,165,824 + 16,777,216 = 41,943,040
    //   MLP = 3*4096*14336 = 176,160,768
    //   32*(218,103,808) = 6,979,321,856;  2*128256*4096 = 1,050,673,152
    //   total = 8,029,995,008 (+ 266,240 norms) = 8,030,261,248
    const ModelSpec m = load_model("llama-3.1-8b");
    CHECK(m.total_params() == 8030261248);
    CHECK(m.total_params() == Approx(8.03e9).epsilon(0.01));
  }
  SECTION("llama-3.1-70b ~ 70.6e9") {
    // L=80, h=8192, heads=64, kv_heads=8 (q=8192, kv=1024), ffn=28672, V=128256:
    //   attention = 8192*(8192+2048) + 8192^2 = 83,886,080 + 67,108,864 = 150,994,944
    //   MLP = 3*8192*28672 = 704,643,072
    //   80*(855,638,016) = 68,451,041,280;  2*128256*8192 = 2,101,346,304
    //   total = 70,552,387,584 (+ 161*8192 = 1,318,912 norms) = 70,553,706,496
    const ModelSpec m = load_model("llama-3.1-70b");
    CHECK(m.total_params() == 70553706496);
    CHECK(m.total_params() == Approx(70.6e9).epsilon(0.01));
  }
  SECTION("llama-3.1-405b ~ 405.9e9") {
    // L=126, h=16384, heads=128, kv_heads=8 (q=16384, kv=1024), ffn=53248, V=128256:
    //   attention = 16384*(16384+2048) + 16384^2 = 301,989,888 + 268,435,456 = 570,425,344
    //   MLP = 3*16384*53248 = 2,617,245,696
    //   126*(3,187,671,040) = 401,646,551,040;  2*128256*16384 = 4,202,692,608
    //   total ~ 405,849,243,648 (+ norms) ~ 405.85e9 (Meta reports 405B)
    const ModelSpec m = load_model("llama-3.1-405b");
    CHECK(m.total_params() == Approx(405.85e9).epsilon(0.01));
  }
}

TEST_CASE("model catalog: MoE total and active parameter counts", "[catalog][model][moe]") {
  SECTION("mixtral-8x7b: total ~ 46.7e9, active ~ 12.9e9") {
    // L=32, h=4096, kv_heads=8: attention = 41,943,040 per layer (as llama-3.1-8b).
    // One expert = 3*4096*14336 = 176,160,768; router = 4096*8 = 32,768.
    //   total  per layer = 41,943,040 + 8*176,160,768 + 32,768 = 1,451,261,952
    //   active per layer = 41,943,040 + 2*176,160,768 + 32,768 = 394,297,344
    //   embeddings 2*32000*4096 = 262,144,000
    //   total  = 32*1,451,261,952 + 262,144,000 = 46,702,526,464 (+ norms) ~ 46.70e9
    //   active = 32*394,297,344 + 262,144,000 = 12,879,659,008 (+ norms) ~ 12.88e9
    const ModelSpec m = load_model("mixtral-8x7b");
    CHECK(m.moe.num_experts == 8);
    CHECK(m.moe.experts_per_token == 2);
    CHECK(m.total_params() == Approx(46.7e9).epsilon(0.01));
    CHECK(m.active_params() == Approx(12.9e9).epsilon(0.01));
  }
  SECTION("deepseek-v3: total ~ 671e9, active ~ 37.6e9") {
    // L=61 (3 dense + 58 MoE), h=7168, 128 heads, MLA (q_lora 1536, kv_lora 512,
    // nope 128, rope 64, v 128), 256 routed experts of ffn 2048 + 1 shared, top-8,
    // dense ffn 18432, V=129280.
    //   attention = q_a 7168*1536 + 1536 + q_b 1536*128*192 + kv_a 7168*576 + 512
    //             + kv_b 512*128*256 + o 128*128*7168 = 187,107,328 per layer
    //   expert    = 3*7168*2048 = 44,040,192;  router = 7168*256 = 1,835,008
    //   MoE layer total  = 256*expert + 1 shared + router = 11,320,164,352
    //   MoE layer active = 8*expert + 1 shared + router   = 398,196,736
    //   dense MLP = 3*7168*18432 = 396,361,728;  embeddings = 2*129280*7168 = 1,853,358,080
    //   total  = 61*187,107,328 + 3*396,361,728 + 58*11,320,164,352 + 1,853,358,080 ~ 671.0e9
    //   active = 61*187,107,328 + 3*396,361,728 + 58*398,196,736 + 1,853,358,080   ~ 37.55e9
    //            counted as DeepSeek's figure fits (active_params_count lm_head_only: the
    //            embedding's 129280*7168 = 926,679,040 left out)                     ~ 36.63e9
    // (DeepSeek reports 671B total, 37B activated, excluding the 14B MTP module.)
    const ModelSpec m = load_model("deepseek-v3");
    CHECK(m.mla.enabled());
    CHECK(m.moe_layers() == 58);
    CHECK(m.total_params() == Approx(671e9).epsilon(0.01));
    CHECK(m.active_params_all_tables() == Approx(37.6e9).epsilon(0.01));
    CHECK(m.active_params() == m.active_params_all_tables() - 129280LL * 7168);
  }
}

TEST_CASE("model catalog: KV-cache bytes per token", "[catalog][model][kv]") {
  // Standard attention: 2 (K and V) * layers * kv_heads * head_dim * bytes per element.
  // Llama-2-7B fp16: 2*32*32*128*2 = 2*32*4096*2 = 524,288 B (512 KiB) per token, exactly.
  const ModelSpec l2 = load_model("llama-2-7b");
  CHECK(l2.kv_bytes_per_token(DType::fp16) == 524288.0);
  // Llama-3.1-8B bf16 (GQA, 8 KV heads): 2*32*8*128*2 = 131,072 B per token, exactly.
  const ModelSpec l3 = load_model("llama-3.1-8b");
  CHECK(l3.kv_bytes_per_token(DType::bf16) == 131072.0);
  // DeepSeek-V3 MLA caches the 512-wide latent and the 64-wide rotary key per layer:
  // 61*(512+64)*2 = 70,272 B per token in bf16.
  const ModelSpec ds = load_model("deepseek-v3");
  CHECK(ds.kv_elements_per_token_layer() == 576);
  CHECK(ds.kv_bytes_per_token(DType::bf16) == 70272.0);
  // fp8 KV is one byte per element: exactly half of each.
  CHECK(l2.kv_bytes_per_token(DType::fp8) == 262144.0);
  CHECK(l3.kv_bytes_per_token(DType::fp8) == 65536.0);
  CHECK(ds.kv_bytes_per_token(DType::fp8) == 35136.0);
  // fp16 and bf16 are both two bytes: equal.
  CHECK(l3.kv_bytes_per_token(DType::fp16) == l3.kv_bytes_per_token(DType::bf16));
}

TEST_CASE("model catalog: unknown model lists the names and suggests the closest", "[catalog][model][errors]") {
  REQUIRE_THROWS_AS(load_model("llama-3.1-8"), Error);
  REQUIRE_THROWS_WITH(load_model("llama-3.1-8"), Contains("unknown model 'llama-3.1-8'") &&
                                                     Contains("did you mean 'llama-3.1-8b'") &&
                                                     Contains("llama-2-7b") && Contains("deepseek-v3") &&
                                                     Contains("mixtral-8x7b"));
  REQUIRE_THROWS_WITH(load_model("gpt-5"), Contains("unknown model 'gpt-5'") && Contains("known models:"));
  REQUIRE_THROWS_WITH(load_model("/nonexistent/model.yaml"),
                      Contains("/nonexistent/model.yaml: model file not found"));
}

// ---------------------------------------------------------------- GPU YAML loader
// Hand-written GPU files in tests/fixtures/gpus (not real products).

namespace {
std::string gpu_fixture(const std::string& file) { return std::string(SERVESIM_TEST_FIXTURES) + "/gpus/" + file; }
}  // namespace

TEST_CASE("gpu yaml: a file path loads, with efficiency overrides in their units", "[catalog][gpu]") {
  const GpuSpec g = load_gpu(gpu_fixture("tuned.yaml"));
  CHECK(g.name == "tuned-gpu");
  // "24 GiB" = 24 * 2^30 = 25,769,803,776 B; "1 TB/s" = 1e12 B/s; "100 TFLOP/s" = 1e14.
  CHECK(g.memory_capacity == 25769803776.0);
  CHECK(g.memory_bandwidth == Approx(1e12).epsilon(1e-12));
  CHECK(g.peak(DType::bf16) == Approx(1e14).epsilon(1e-12));
  CHECK_FALSE(g.supports(DType::fp16));
  // Optional fields take their documented defaults: idle = 10% of TDP = 30 W, 8 GPUs per node.
  CHECK(g.idle_watts == Approx(30.0).epsilon(1e-12));
  CHECK(g.gpus_per_node == 8);
  CHECK(g.inter_node.bandwidth == 0.0);
  // Overrides: "85%" = 0.85, 0.4, 64 tokens, "5 us" = 5e-6 s, "0.2 ms" = 2e-4 s.
  CHECK(g.efficiency.gemm_memory == Approx(0.85).epsilon(1e-12));
  CHECK(g.efficiency.attention_compute == Approx(0.4).epsilon(1e-12));
  CHECK(g.efficiency.gemm_tokens_half == Approx(64.0).epsilon(1e-12));
  CHECK(g.efficiency.kernel_overhead == Approx(5e-6).epsilon(1e-12));
  CHECK(g.efficiency.step_overhead == Approx(2e-4).epsilon(1e-12));
  // Fields not overridden keep the defaults of hardware/efficiency.h.
  CHECK(g.efficiency.gemm_compute == Efficiency{}.gemm_compute);
  CHECK(g.efficiency.comm_bandwidth == Efficiency{}.comm_bandwidth);
}

TEST_CASE("gpu catalog: every NVIDIA GPU gives its SMs and clock, the AMD ones neither", "[catalog][gpu]") {
  // The elementwise SM-cycle cap needs both figures; CDNA compute units are not SMs, so the
  // AMD files keep the bandwidth-only form (documented in those files).
  for (const auto& name : gpu_catalog_names()) {
    const GpuSpec g = load_gpu(name);
    INFO(name);
    if (g.vendor == "amd") {
      CHECK(g.sm_cycles_per_second() == 0.0);
      continue;
    }
    CHECK(g.sm_count > 0);
    CHECK(g.boost_clock > 0);
    // Every file's clock is its FP32 peak / (SMs x FP32 lanes x 2), rounded to 10 MHz;
    // lanes are 64 per SM on GA100 (A100), 128 elsewhere.
    const double lanes = g.architecture == "ampere" && g.name.rfind("a100", 0) == 0 ? 64 : 128;
    CHECK(g.peak(DType::fp32) / (g.sm_count * lanes * 2) == Approx(g.boost_clock).epsilon(0.006));
  }
  // H100 SXM5: 132 SMs x 1.98 GHz = 2.6136e11 SM-cycles per second.
  CHECK(load_gpu("h100-sxm").sm_cycles_per_second() == Approx(132 * 1.98e9).epsilon(1e-12));
}

TEST_CASE("gpu yaml: sm_count and boost_clock go together", "[catalog][gpu][errors]") {
  REQUIRE_THROWS_WITH(load_gpu(gpu_fixture("sm_count_without_clock.yaml")),
                      Contains("sm_count_without_clock.yaml") && Contains("sm_count and boost_clock go together"));
}

TEST_CASE("gpu yaml: an efficiency of 0 is rejected", "[catalog][gpu][errors]") {
  // A zero fraction would divide by zero in the roofline; (0, 1] is the valid range.
  REQUIRE_THROWS_WITH(load_gpu(gpu_fixture("zero_efficiency.yaml")),
                      Contains("zero_efficiency.yaml:15:3: efficiency.gemm_memory") &&
                          Contains("must be a fraction in (0, 1]"));
}

TEST_CASE("gpu yaml: a misspelt key is reported with its location and a suggestion", "[catalog][gpu][errors]") {
  REQUIRE_THROWS_WITH(load_gpu(gpu_fixture("typo.yaml")),
                      Contains("typo.yaml:18:3: efficiency.kernel_overheads") &&
                          Contains("did you mean 'kernel_overhead'"));
}

TEST_CASE("gpu yaml: a missing required quantity is named by its path", "[catalog][gpu][errors]") {
  REQUIRE_THROWS_WITH(load_gpu(gpu_fixture("missing_bandwidth.yaml")),
                      Contains("missing_bandwidth.yaml") && Contains("missing required key 'memory.bandwidth'"));
}

TEST_CASE("gpu yaml: a size where a bandwidth belongs is rejected", "[catalog][gpu][errors]") {
  REQUIRE_THROWS_WITH(load_gpu(gpu_fixture("wrong_unit.yaml")),
                      Contains("wrong_unit.yaml:8:3: memory.bandwidth") && Contains("wrong kind") &&
                          Contains("expected a bandwidth"));
}

TEST_CASE("a GPU file edited between loads is read again (the parse cache checks the file)", "[catalog]") {
  // load_gpu caches parsed files per process (sweeps load one per point); an edit
  // that changes the file's size must not be served from the cache. The copy of
  // h100-sxm.yaml gets its bandwidth changed from "3.35 TB/s" to "3.3 TB/s".
  const std::string src = catalog_dir("hardware") + "/h100-sxm.yaml";
  const auto dir = std::filesystem::temp_directory_path() / "servesim_test_catalog_cache";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "gpu.yaml").string();
  std::ifstream in(src);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("\"3.35 TB/s\"");
  REQUIRE(at != std::string::npos);
  std::ofstream(path) << text;
  CHECK(load_gpu(path).memory_bandwidth == Approx(3.35e12));
  CHECK(load_gpu(path).memory_bandwidth == Approx(3.35e12));  // from the cache
  std::string edited = text;
  edited.replace(at, 11, "\"3.3 TB/s\"");
  std::ofstream(path) << edited;
  CHECK(load_gpu(path).memory_bandwidth == Approx(3.3e12));
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(load_gpu(path), Catch::Contains("not found"));
}
