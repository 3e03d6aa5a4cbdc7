// Calibration of the roofline's efficiency knobs against Vidur's measured A100
// per-operator kernel times (data/operator_timings/, see PROVENANCE.md there): fit
// on part of the rows, report the median error per op kind on the rest.
//
// Thresholds (median absolute percentage error of one layer's op, held-out rows):
// GEMMs (qkv_proj, o_proj, mlp_up, mlp_down) < 10%. Measured when written: held-out
// token counts 4.2-7.4%, held-out layer shapes (pooled) 4.8-6.7%, worst single shape
// 8.8% (internlm-20b mlp_up). The residual is the roofline's sharp max() at the
// compute/memory knee (M ~ 64-256 tokens, up to -14% there) and TP-8 shards.
// Elementwise ops < 15% (measured 5.0-10.3% and 4.7-10.6%; worst shape 13.3% for norm):
// Vidur runs the residual adds and RMSNorms unfused (4 kernels a layer) where the model
// assumes 2 fused ones. GEMM kernels have a ~6 us floor (kernel_overhead) and elementwise
// ones ~2 us (elementwise_overhead), each fitted. With gemm_overlap and elementwise_overhead
// fitted too (7 knobs, each within its declared fit bounds), held-out token counts measure
// GEMMs 3.7-6.0%, elementwise 5.2-10.0%; held-out shapes GEMMs 4.0-5.6%.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "calibration/calibrated_profile.h"
#include "calibration/operator_calibration.h"
#include "calibration/operator_fit.h"
#include "calibration/operator_timings.h"
#include "cost/step_cost.h"
#include "config/catalog_reader.h"
#include "util/error.h"

using namespace servesim;

namespace {

const std::string kData = SERVESIM_TEST_DATA;
const std::string kRepo = kData + "/..";
const std::string kTimings = kData + "/operator_timings/a100";
const std::string kModels = kData + "/operator_timings/models";
const std::string kBaseGpu = kRepo + "/hardware/a100-sxm4-80gb.yaml";
const std::string kCalibrated = kRepo + "/hardware/calibrated/a100-sxm4-80gb-vidur.yaml";
const char* const kGemms[] = {"qkv_proj", "o_proj", "mlp_up", "mlp_down"};
const char* const kElementwise[] = {"mlp_act", "norm", "rope"};
constexpr double kGemmMedianLimit = 0.10;
constexpr double kElementwiseMedianLimit = 0.15;

OperatorDataset a100_dataset() {
  return build_operator_dataset(load_gpu(kBaseGpu), read_operator_timing_dir(kTimings), kModels);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_csv(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "servesim_test_operator_calibration";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string describe(const std::vector<OperatorError>& errors) {
  std::string s;
  for (const auto& e : errors)
    s += e.kind + ": median " + std::to_string(100 * e.median) + "%, p90 " + std::to_string(100 * e.p90) + "% (n " +
         std::to_string(e.n) + ")\n";
  return s;
}

void check_bounds(const Efficiency& e) {
  // Physical bounds: fractions of peak in (0, 1], times and token counts >= 0.
  for (const double f : {e.gemm_compute, e.gemm_memory, e.elementwise_memory}) {
    CHECK(f > 0.0);
    CHECK(f <= 1.0);
  }
  CHECK(e.gemm_tokens_half >= 0.0);
  CHECK(e.kernel_overhead >= 0.0);
  // And plausible for an A100 (cuBLAS fp16 GEMMs reach ~70-80% of 312 TFLOP/s).
  CHECK(e.gemm_compute > 0.6);
  CHECK(e.gemm_compute < 0.9);
  CHECK(e.gemm_memory > 0.5);
  CHECK(e.elementwise_memory > 0.3);
  CHECK(e.gemm_tokens_half < 1024.0);
  CHECK(e.kernel_overhead < 20e-6);
  // The per-kind elementwise knobs (fitted on GPU files with SM figures): on; rates between
  // the 2-20 bytes per SM-cycle any of Vidur's tables show (6-7 on A100 and H100) and the fit
  // bounds; floors under 20,000 cycles (14 us at 1.41 GHz); occupancy under 4 tokens per SM.
  for (const double b : {e.act_bytes_per_sm_cycle, e.norm_bytes_per_sm_cycle, e.rope_bytes_per_sm_cycle}) {
    CHECK(b > 2.0);
    CHECK(b < 20.0);
  }
  for (const double f : {e.act_floor_cycles, e.norm_floor_cycles, e.rope_floor_cycles}) {
    CHECK(f >= 0.0);
    CHECK(f < 20000.0);
  }
  for (const double c : {e.act_tokens_per_sm, e.norm_tokens_per_sm, e.rope_tokens_per_sm}) {
    CHECK(c >= 0.0);
    CHECK(c < 4.0);
  }
  // The L2-resident rates (the A100 file gives l2_cache): in the same 2-20 band.
  for (const double b : {e.act_l2_bytes_per_sm_cycle, e.norm_l2_bytes_per_sm_cycle, e.rope_l2_bytes_per_sm_cycle}) {
    CHECK(b > 2.0);
    CHECK(b < 20.0);
  }
}

const char kHeader[] =
    "num_tensor_parallel_workers,num_tokens,n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,"
    "time_stats.attn_pre_proj.median,time_stats.attn_post_proj.median,time_stats.mlp_up_proj.median,"
    "time_stats.mlp_act.median,time_stats.mlp_down_proj.median,time_stats.input_layernorm.median,"
    "time_stats.post_attention_layernorm.median,time_stats.attn_rope.median,time_stats.add.median\n";

}  // namespace

TEST_CASE("operator timings: the shipped Vidur CSVs read in seconds with their shapes", "[calibration]") {
  const auto rows = read_operator_timings(kTimings + "/llama-2-7b.csv");
  REQUIRE(rows.size() == 1044);  // 261 rows for each of TP 1, 2, 4, 8
  const auto& r = rows.front();
  CHECK(r.model == "llama-2-7b");
  CHECK(r.tp == 1);
  CHECK(r.num_tokens == 1);
  CHECK(r.n_embd == 4096);
  CHECK(r.n_expanded_embd == 11008);
  CHECK(r.n_head == 32);
  CHECK(r.n_kv_head == 32);
  CHECK(r.gated_mlp);
  CHECK(r.op_seconds("attn_pre_proj") == Approx(0.065e-3));  // 0.065 ms in the file
  CHECK(r.op_seconds("add") == Approx(0.002e-3));
  CHECK(r.where.find("llama-2-7b.csv:2") != std::string::npos);
  CHECK_THROWS_WITH(r.op_seconds("attn_prefill"), Catch::Contains("time_stats.attn_prefill.median"));

  const auto all = read_operator_timing_dir(kTimings);
  CHECK(all.size() == 5 * 1044 + 2 * 1824);
}

TEST_CASE("operator timings: malformed rows are reported with file:line and column", "[calibration]") {
  const std::string good = "1,16,32,32,4096,11008,32768,True,0.06,0.02,0.1,0.007,0.06,0.005,0.005,0.005,0.002\n";
  CHECK(read_operator_timings(temp_csv("ok.csv", std::string(kHeader) + good)).size() == 1);

  const std::string bad_number = temp_csv("bad_number.csv", std::string(kHeader) + good +
                                                                "1,32,32,32,4096,11008,32768,True,abc,0.02,0.1,0.007,"
                                                                "0.06,0.005,0.005,0.005,0.002\n");
  CHECK_THROWS_WITH(read_operator_timings(bad_number),
                    Catch::Contains("bad_number.csv:3") && Catch::Contains("time_stats.attn_pre_proj.median") &&
                        Catch::Contains("'abc' is not a number"));

  const std::string short_row = temp_csv("short_row.csv", std::string(kHeader) + "1,16,32\n");
  CHECK_THROWS_WITH(read_operator_timings(short_row), Catch::Contains("short_row.csv:2") && Catch::Contains("3 fields"));

  const std::string negative = temp_csv(
      "negative.csv", std::string(kHeader) + "1,16,32,32,4096,11008,32768,True,-0.06,0.02,0.1,0.007,0.06,0.005,0.005,0.005,0.002\n");
  CHECK_THROWS_WITH(read_operator_timings(negative), Catch::Contains("negative.csv:2") && Catch::Contains("negative"));

  const std::string bad_tp = temp_csv(
      "bad_tp.csv", std::string(kHeader) + "0,16,32,32,4096,11008,32768,True,0.06,0.02,0.1,0.007,0.06,0.005,0.005,0.005,0.002\n");
  CHECK_THROWS_WITH(read_operator_timings(bad_tp),
                    Catch::Contains("bad_tp.csv:2") && Catch::Contains("num_tensor_parallel_workers"));

  const std::string no_tokens = temp_csv("no_tokens.csv", "num_tensor_parallel_workers,n_head\n1,32\n");
  CHECK_THROWS_WITH(read_operator_timings(no_tokens), Catch::Contains("missing column 'num_tokens'"));

  CHECK_THROWS_WITH(read_operator_timings(kTimings + "/no-such-model.csv"), Catch::Contains("cannot open"));
}

TEST_CASE("operator fit: rows are checked against their model's shapes", "[calibration]") {
  const std::string wrong = temp_csv(
      "wrong_shape.csv",
      std::string(kHeader) + "1,16,64,8,8192,28672,32768,True,0.06,0.02,0.1,0.007,0.06,0.005,0.005,0.005,0.002\n");
  const auto rows = read_operator_timings(wrong, "llama-2-7b");
  CHECK_THROWS_WITH(build_operator_dataset(load_gpu(kBaseGpu), rows),
                    Catch::Contains("wrong_shape.csv:2") && Catch::Contains("n_embd is 8192") &&
                        Catch::Contains("hidden_size 4096"));
  const auto unknown = read_operator_timings(temp_csv("ok2.csv", std::string(kHeader) +
                                                                     "1,16,32,32,4096,11008,32768,True,0.06,0.02,0.1,"
                                                                     "0.007,0.06,0.005,0.005,0.005,0.002\n"),
                                             "no-such-model");
  CHECK_THROWS_WITH(build_operator_dataset(load_gpu(kBaseGpu), unknown), Catch::Contains("no-such-model"));
}

TEST_CASE("operator fit: one layer's ops are the CostModel's ops divided by layers", "[calibration]") {
  const GpuSpec gpu = load_gpu(kBaseGpu);
  auto rows = read_operator_timings(kTimings + "/llama-2-7b.csv");
  // Keep the TP-1 and TP-8 rows at 4096 tokens.
  std::vector<OperatorTimingRow> keep;
  for (const auto& r : rows)
    if (r.num_tokens == 4096 && (r.tp == 1 || r.tp == 8)) keep.push_back(r);
  REQUIRE(keep.size() == 4);  // Vidur has two rows at 4096 per TP
  const OperatorDataset d = build_operator_dataset(gpu, keep);
  REQUIRE(d.samples.size() == 4 * operator_kinds().size());
  const double T = 4096, h = 4096, ffn = 11008;
  for (const auto& s : d.samples) {
    const auto& kind = operator_kinds()[s.kind];
    const double tp = d.rows[s.row].tp;
    if (kind.name == "qkv_proj") {
      CHECK(s.flops == Approx(2 * T * h * 3 * h / tp));
      CHECK(s.kernels == 1.0);
      CHECK(s.m_tokens == T);
    }
    if (kind.name == "mlp_up") CHECK(s.flops == Approx(2 * T * h * 2 * ffn / tp));
    if (kind.name == "norm") {
      // Vidur's work, not the fused pair's: two RMSNorms (2 + 2 bytes per element each) and
      // two adds (2 + 2 + 2) are 4 kernels and 20 x T x h bytes a layer (the cost model's two
      // fused residual-add + RMSNorm kernels: 2 x 8 x T x h).
      CHECK(s.kernels == 4.0);
      CHECK(s.bytes == Approx(20 * T * h));
      CHECK(s.measured == Approx(d.rows[s.row].op_seconds("input_layernorm") +
                                 d.rows[s.row].op_seconds("post_attention_layernorm") +
                                 2 * d.rows[s.row].op_seconds("add")));
    }
  }
  // predict_operator_times is the real CostModel: compare one op by hand.
  const auto pred = predict_operator_times(d, gpu.efficiency);
  PrecisionSpec p;
  p.weights = p.activations = p.kv_cache = DType::fp16;
  const ModelSpec m = load_model("llama-2-7b");
  const CostModel cm(gpu, m, resolve_precision(p, gpu), Parallelism{});
  const SeqWork seq{4096, 0, false};
  const StepCost sc = cm.breakdown(summarize(std::span<const SeqWork>(&seq, 1)));
  double mlp_down = 0;
  for (const auto& op : sc.ops)
    if (std::string(op.name) == "mlp_down") mlp_down = op.time / m.layers;
  REQUIRE(mlp_down > 0);
  const std::size_t mlp_down_kind = operator_kind_index("mlp_down");
  for (std::size_t i = 0; i < d.samples.size(); ++i)
    if (d.samples[i].kind == mlp_down_kind && d.rows[d.samples[i].row].tp == 1) CHECK(pred[i] == Approx(mlp_down));
  // norm is timed on that work by the cost model's elementwise form; with the catalog
  // defaults (the shared form: 2.424 us a kernel, elementwise_memory 0.6 of 2.039 TB/s):
  //   4 x 2.424e-6 + 20 x 4096 x 4096 / (0.6 x 2.039e12) = 9.696e-6 + 274.3e-6 s.
  const std::size_t norm_kind = operator_kind_index("norm");
  for (std::size_t i = 0; i < d.samples.size(); ++i)
    if (d.samples[i].kind == norm_kind) CHECK(pred[i] == Approx(4 * 2.424e-6 + 20 * T * h / (0.6 * 2.039e12)));
}

TEST_CASE("operator calibration: A100 GEMM times on held-out token counts", "[calibration]") {
  const OperatorDataset d = a100_dataset();
  REQUIRE(d.models.size() == 7);
  const OperatorFit fit = fit_operator_timings(d, OperatorSplit{}, d.gpu.efficiency);
  INFO("split: " << fit.split);
  INFO("train:\n" << describe(fit.train));
  INFO("test:\n" << describe(fit.test));
  INFO("fitted: gemm_compute " << fit.efficiency.gemm_compute << ", gemm_tokens_half " << fit.efficiency.gemm_tokens_half
                               << ", gemm_memory " << fit.efficiency.gemm_memory << ", kernel_overhead "
                               << fit.efficiency.kernel_overhead * 1e6 << " us, elementwise_memory "
                               << fit.efficiency.elementwise_memory);
  CHECK(fit.test_samples > 0.2 * static_cast<double>(fit.train_samples + fit.test_samples));
  CHECK(fit.test_samples < 0.3 * static_cast<double>(fit.train_samples + fit.test_samples));
  check_bounds(fit.efficiency);
  // The fitter's closed form is the CostModel's roofline, exactly.
  CHECK(fit.model_gap < 1e-9);
  // Calibration improves on the defaults where it was fitted.
  CHECK(fit.train_median_gemm < fit.start_train_median_gemm);
  for (const char* k : kGemms) {
    INFO(k);
    CHECK(find_error(fit.test, k).median < kGemmMedianLimit);
    CHECK(find_error(fit.test, k).p90 < 0.25);
  }
  for (const char* k : kElementwise) {
    INFO(k);
    CHECK(find_error(fit.test, k).median < kElementwiseMedianLimit);
  }
}

TEST_CASE("operator calibration: held-out layer shapes and the shipped calibrated A100 profile", "[calibration]") {
  // The shipped profile is what `servesim calibrate operators` writes with these options
  // (the command is in the file's header); calibrate_operators() also runs the
  // leave-one-shape-out folds checked here.
  OperatorCalibrationOptions o;
  o.gpu = "a100-sxm4-80gb";
  o.data = kTimings;
  o.name = "a100-sxm4-80gb-vidur";
  o.display_name = "NVIDIA A100 SXM4 80GB (Vidur-calibrated)";
  o.source = "Vidur A100 operator profiles, github microsoft/vidur @7d47513 data/profiling/compute/a100 "
             "(via ../shared/data/operator_timings; see data/operator_timings/PROVENANCE.md)";
  o.out = kCalibrated;
  const OperatorCalibration c = calibrate_operators(o);
  REQUIRE(c.cross_validated);
  const OperatorCrossValidation& cv = c.cross_validation;
  INFO("pooled held-out shapes:\n" << describe(cv.test));
  REQUIRE(cv.folds.size() == 6);  // the two 70B models share a shape
  CHECK(cv.test_samples == 5 * 1044 * 7 + 2 * 1824 * 7);  // every sample held out once: rows x 7 op kinds
  for (const char* k : kGemms) {
    INFO(k);
    CHECK(find_error(cv.test, k).median < kGemmMedianLimit);
    for (const auto& fold : cv.folds) {
      INFO(fold.split);
      check_bounds(fold.efficiency);
      CHECK(find_error(fold.test, k).median < 0.12);
    }
  }
  for (const char* k : kElementwise) {
    INFO(k);
    CHECK(find_error(cv.test, k).median < kElementwiseMedianLimit);
  }
  // Held-out medians before -> after when written (%): qkv 6.5 -> 5.8, o_proj 5.5 -> 7.4,
  // mlp_up 6.5 -> 4.2, mlp_down 5.8 -> 4.4 (mean 6.1 -> 5.5: one set of GEMM knobs
  // trades o_proj against the MLP GEMMs), mlp_act 15.9 -> 5.0, norm 25.2 -> 10.3, rope 18.7 -> 8.5.
  double gemm_before = 0, gemm_after = 0;
  for (const char* k : kGemms) {
    const auto& t = c.test[operator_kind_index(k)];
    gemm_before += t.before.median;
    gemm_after += t.after.median;
  }
  CHECK(gemm_after < gemm_before);
  for (const char* k : kElementwise) {
    const auto& t = c.test[operator_kind_index(k)];
    INFO(k << ": held-out median " << 100 * t.before.median << "% before, " << 100 * t.after.median << "% after");
    CHECK(t.after.median < t.before.median);
  }

  // The committed file is exactly what the command writes, and loads as a GPU.
  CHECK(read_text(kCalibrated) == c.yaml);
  CHECK(c.yaml.find("servesim calibrate operators --gpu a100-sxm4-80gb --data data/operator_timings/a100") !=
        std::string::npos);
  const GpuSpec cal = load_gpu(kCalibrated);
  const GpuSpec base = load_gpu(kBaseGpu);
  CHECK(cal.name == "a100-sxm4-80gb-vidur");
  CHECK(cal.display_name == "NVIDIA A100 SXM4 80GB (Vidur-calibrated)");
  CHECK(cal.memory_bandwidth == base.memory_bandwidth);
  CHECK(cal.peak(DType::fp16) == base.peak(DType::fp16));
  for (const auto& field : c.fit.fields) {
    INFO(field);
    CHECK(efficiency_field(cal.efficiency, field) == Approx(efficiency_field(c.fit.efficiency, field)).epsilon(1e-3));
  }
  CHECK(cal.efficiency.attention_compute == base.efficiency.attention_compute);  // not fitted: default kept
  // A base that is already calibrated is refused (its `calibration:` mapping; a catalog
  // GPU's own `efficiency:` knobs are kept under the fitted ones instead).
  o.gpu = kCalibrated;
  o.cross_validate = false;
  CHECK_THROWS_WITH(calibrate_operators(o), Catch::Contains("already has a top-level 'calibration'"));
}

TEST_CASE("operator timings: the H100 and A40 extracts hold the five models Vidur profiled there", "[calibration]") {
  for (const char* gpu : {"h100", "a40"}) {
    INFO(gpu);
    const auto rows = read_operator_timing_dir(kData + "/operator_timings/" + gpu);
    CHECK(rows.size() == 5 * 1044);  // no Llama 3 pair on these GPUs
    // The same shapes and token counts as the A100 file of the same model.
    const auto a100 = read_operator_timings(kTimings + "/llama-2-70b.csv");
    const auto other = read_operator_timings(kData + "/operator_timings/" + gpu + "/llama-2-70b.csv");
    REQUIRE(other.size() == a100.size());
    for (std::size_t i = 0; i < a100.size(); ++i) {
      CHECK(other[i].tp == a100[i].tp);
      CHECK(other[i].num_tokens == a100[i].num_tokens);
    }
  }
  // H100 is the faster GPU at Llama-2-70B's TP-1 gate+up projection at M = 1 (weight
  // streaming, 0.94 GB): 0.311 ms against A100's 0.580 ms in the files.
  const auto h = read_operator_timings(kData + "/operator_timings/h100/llama-2-70b.csv");
  CHECK(h.front().op_seconds("mlp_up_proj") == Approx(0.311e-3));
}

TEST_CASE("operator calibration: --predict-data and --predict-gpu go together", "[calibration]") {
  OperatorCalibrationOptions o;
  o.gpu = "a100-sxm4-80gb";
  o.data = kTimings;
  o.cross_validate = false;
  o.predict_data = kData + "/operator_timings/h100";
  CHECK_THROWS_WITH(calibrate_operators(o), Catch::Contains("--predict-data needs --predict-gpu"));
  o.predict_data.clear();
  o.predict_gpu = "h100-sxm";
  CHECK_THROWS_WITH(calibrate_operators(o), Catch::Contains("--predict-gpu needs --predict-data"));
  o.predict_data = kData + "/operator_timings/no-such-gpu";
  CHECK_THROWS_WITH(calibrate_operators(o), Catch::Contains("no-such-gpu: no such file or folder (--predict-data)"));
}

TEST_CASE("operator calibration: knobs fitted on A100 predict H100's tables, and back", "[calibration]") {
  // Issue 12 part 1 asks for <= 8% median error per op kind when knobs fitted on one GPU's
  // tables predict the other's (none of whose rows is fitted on). Measured when written
  // (median %, the predicted GPU's catalog defaults -> the carried fit):
  //   A100 -> H100: qkv 9.3 -> 7.0, o 9.0 -> 7.3, up 6.5 -> 5.3, down 10.4 -> 9.8,
  //                 act 5.3 -> 22.3, norm 12.7 -> 10.1, rope 12.2 -> 12.6
  //   H100 -> A100: qkv 6.6 -> 5.3, o 5.3 -> 6.2, up 7.3 -> 5.1, down 6.4 -> 5.7,
  //                 act 16.1 -> 8.8, norm 25.3 -> 18.8, rope 19.1 -> 17.6
  // (the 5-knob fit with one shared kernel floor, before: A100 -> H100 GEMMs 10.7, 10.8,
  // 5.8, 9.3; H100 -> A100 6.7, 6.4, 9.3, 7.8). GEMMs meet 8% but A100 -> H100 mlp_down
  // (+5% bias: H100 streams weights at a larger fraction of its peak, ~0.89 against A100's
  // ~0.78, which no fraction fitted on one GPU can know). Elementwise kernels do not
  // transfer: A100's SiLU reaches 0.50 of its HBM peak, H100's 0.58. The limits below are
  // regressions guards at the measured values, not the target.
  struct Direction {
    const char *gpu, *data, *predict_gpu, *predict_data;
    std::size_t predict_rows;
  };
  const std::string a100 = kTimings, h100 = kData + "/operator_timings/h100";
  // And A100 -> A40 (GA102, GDDR6: its elementwise kernels run at its HBM cap, which stays the
  // A40's own, the catalog's gemm_memory fallback 0.80; measured when written act 3.5, norm 9.6,
  // rope 5.0%, against 12.9, 35.4, 12.3% with the A100 fit's gemm_memory as the cap).
  const std::string a40 = kData + "/operator_timings/a40", a40_gpu = kData + "/operator_timings/gpus/a40.yaml";
  for (const Direction& dir : {Direction{"a100-sxm4-80gb", a100.c_str(), "h100-sxm", h100.c_str(), 5 * 1044},
                               Direction{"h100-sxm", h100.c_str(), "a100-sxm4-80gb", a100.c_str(), 5 * 1044 + 2 * 1824},
                               Direction{"a100-sxm4-80gb", a100.c_str(), a40_gpu.c_str(), a40.c_str(), 5 * 1044}}) {
    INFO(dir.gpu << " -> " << dir.predict_gpu);
    OperatorCalibrationOptions o;
    o.gpu = dir.gpu;
    o.data = dir.data;
    o.cross_validate = false;
    o.predict_gpu = dir.predict_gpu;
    o.predict_data = dir.predict_data;
    const OperatorCalibration c = calibrate_operators(o);
    REQUIRE(c.predicted);
    const OperatorTransfer& t = c.transfer;
    CHECK(t.rows == dir.predict_rows);
    CHECK(t.samples == 7 * dir.predict_rows);
    // The carried knobs are the fitted ones; the rest are the predicted GPU's own.
    for (const auto& f : c.fit.fields) CHECK(efficiency_field(t.carried, f) == efficiency_field(c.fit.efficiency, f));
    CHECK(t.carried.attention_memory == t.defaults.attention_memory);
    // The per-kind form's HBM cap stays the predicted GPU's own (its file's gemm_memory:
    // H100 0.906, A100 0.796), while the fitted gemm_memory is carried for the GEMMs.
    CHECK(t.carried.stream_memory == t.defaults.gemm_memory);
    CHECK(t.carried.gemm_memory == c.fit.efficiency.gemm_memory);
    // The FP32 instructions per byte are the kernels' own, held (not fitted) and carried.
    CHECK(t.carried.act_fp32_per_byte == c.fit.efficiency.act_fp32_per_byte);
    CHECK(t.carried.norm_fp32_per_byte == c.fit.efficiency.norm_fp32_per_byte);
    CHECK(t.carried.rope_fp32_per_byte == c.fit.efficiency.rope_fp32_per_byte);
    CHECK(std::find(c.fit.fields.begin(), c.fit.fields.end(), "act_fp32_per_byte") == c.fit.fields.end());
    // Both GPU files give l2_cache, so the L2-resident rates are fitted and carried.
    CHECK(std::find(c.fit.fields.begin(), c.fit.fields.end(), "norm_l2_bytes_per_sm_cycle") != c.fit.fields.end());
    INFO("defaults:\n" << describe(t.before) << "carried fit:\n" << describe(t.after));
    double before = 0, after = 0;
    for (const char* k : kGemms) {
      INFO(k);
      CHECK(find_error(t.after, k).median < 0.11);
      before += find_error(t.before, k).median;
      after += find_error(t.after, k).median;
    }
    // Over the four GEMMs the carried fit beats the predicted GPU's defaults.
    CHECK(after < before);
    // The per-kind elementwise form carries every kind within the 8% between A100 and
    // H100 (measured when written, with the counted FP32 instructions per byte: A100 -> H100 act
    // 4.9, norm 5.3, rope 5.9%; H100 -> A100 3.9, 3.7, 5.9%; without them 11.7, 4.2, 8.0 and 9.3,
    // 4.1, 7.1%; the shared form missed act A100 -> H100 by 17.5% and norm / rope H100 -> A100 by
    // 15.3 / 14.4%, docs/validation.md), and within 12% into the A40 (act 3.6, norm 9.6, rope
    // 4.9%: its norm kernels reach a lower share of its HBM cap).
    const bool into_a40 = std::string(dir.predict_gpu).find("a40") != std::string::npos;
    for (const char* k : kElementwise) {
      INFO(k);
      CHECK(find_error(t.after, k).median < (into_a40 ? 0.12 : 0.08));
    }
  }
}
