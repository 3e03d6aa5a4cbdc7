// `servesim calibrate static` and `servesim calibrate operators` at the level the
// commands call (calibrate_static, calibrate_operators): a synthetic static-batch set
// made by the predictor itself with known parameters is fitted back exactly; bad input
// is a servesim::Error that says what is wrong; the written profiles load as GPUs and
// carry the fitted values. Everything here runs in well under a second per case.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include "calibration/operator_calibration.h"
#include "calibration/static_calibration.h"
#include "config/catalog_reader.h"
#include "util/error.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"
#include "validation/static_batch.h"

using namespace servesim;

namespace {

const std::string kData = SERVESIM_TEST_DATA;

std::filesystem::path temp_dir() {
  const auto dir = std::filesystem::temp_directory_path() / "servesim_test_calibrate";
  std::filesystem::create_directories(dir);
  return dir;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = (temp_dir() / name).string();
  std::ofstream(path) << text;
  return path;
}

const char kHeader[] =
    "source,hardware,num_gpus,model,precision,tp,pp,framework,isl,osl,concurrency_or_rate,metric,unit,value,notes\n";

// The "true" parameters the synthetic measurements are made with. The catalog A100's
// defaults are step_cpu_overhead 0.5 ms, per_seq_cpu_overhead 5 us, gemm_memory 0.80,
// intra_node latency 3 us: all four start away from the truth.
const std::vector<std::string> kTruth = {"engine.step_cpu_overhead=\"3 ms\"", "engine.per_seq_cpu_overhead=\"40 us\"",
                                         "hardware.efficiency.gemm_memory=0.7",
                                         "hardware.interconnect.intra_node.latency=\"20 us\""};

// Llama-2-7B fp16 on A100, TP 1 and 2, batches 1-64, decode and prefill rows, with
// value = the predictor's own prediction under kTruth. A step of B seqs costs the GPU
// time + 3 ms + B x 40 us of CPU (B = 64: 3 + 2.56 = 5.56 ms); on TP 2 each of the
// 2 x 32 all-reduces of a step pays 2 x ceil(log2 2) = 2 link latencies, so 20 us
// instead of 3 us adds 64 x 2 x 17 us = 2.18 ms a step; gemm_memory 0.7 instead of 0.8
// makes weight streaming 0.8/0.7 = 1.14x slower. Every parameter leaves its own trace.
std::string synthetic_csv(const std::string& name) {
  std::string text = kHeader;
  for (const int tp : {1, 2})
    for (const int b : {1, 4, 16, 64})
      for (const int isl : {128, 1024})
        for (const char* metric : {"decode_step_latency", "prefill_batch_latency"})
          text += fmt::format("synthetic,A100 80GB,{0},llama2-7b,FP16,{0},1,synthetic,{1},128,static_batch={2},{3},ms,1,"
                              "made by StaticBatchPredictor\n",
                              tp, isl, b, metric);
  const std::string draft = temp_file(name, text);
  StaticValidationOptions vo;
  vo.edits = parse_edits(kTruth);
  vo.offline = false;
  const auto results = validate_static_rows(read_benchmark_csv(draft), vo);
  std::string out = kHeader;
  for (const auto& r : results) {
    REQUIRE(r.compared);
    const BenchmarkRow& w = r.row;
    out += fmt::format("synthetic,A100 80GB,{},llama2-7b,FP16,{},1,synthetic,{},{},{},{},ms,{:.17g},made\n", w.num_gpus,
                       w.tp, w.isl, w.osl, w.concurrency, w.metric, r.predicted);
  }
  return temp_file(name, out);
}

double param(const StaticCalibration& c, const std::string& name) {
  for (std::size_t i = 0; i < c.params.size(); ++i)
    if (c.params[i].name == name) return c.fit.values[i];
  FAIL("parameter " << name << " not fitted");
  return 0;
}

}  // namespace

TEST_CASE("calibrate static: known parameters are recovered from the predictor's own numbers", "[calibration]") {
  StaticCalibrationOptions o;
  o.data = {synthetic_csv("synthetic.csv")};
  o.params = "step_cpu_overhead,per_seq_cpu_overhead,gemm_memory,intra_node_latency";
  o.out = (temp_dir() / "synthetic-profile.yaml").string();
  for (const char* loss : {"squared", "soft_l1"}) {
    INFO("loss " << loss);
    o.fit.loss = loss;
    const StaticCalibration c = calibrate_static(o);
    REQUIRE(c.rows.rows.size() == 32);  // 2 TP x 4 batches x 2 prompt lengths x 2 metrics
    CHECK(c.rows.train_count() == 16);  // alternate: rows 1, 3, 5, ... of each metric fitted
    CHECK(c.rows.gpu == "a100-sxm4-80gb");
    CHECK(c.no_effect.empty());
    // Exact data: the fit lands on the truth (units ms, us, fraction, us).
    CHECK(param(c, "step_cpu_overhead") == Approx(3.0).epsilon(1e-3));
    CHECK(param(c, "per_seq_cpu_overhead") == Approx(40.0).epsilon(1e-3));
    CHECK(param(c, "gemm_memory") == Approx(0.7).epsilon(1e-3));
    CHECK(param(c, "intra_node_latency") == Approx(20.0).epsilon(1e-3));
    CHECK(c.fit.rms_before > 0.05);
    CHECK(c.fit.rms_after < 1e-4);
    // Held-out rows too: per data set and metric, median |error| ~0 after (it was not before).
    REQUIRE(!c.groups.empty());
    for (const auto& g : c.groups) {
      INFO(g.dataset << " " << g.metric);
      CHECK(g.test_n > 0);
      CHECK(g.test_before > 0.5);   // % (prefill is compute-bound: the truth moves it ~1%, decode ~20%)
      CHECK(g.test_after < 0.01);   // %
      CHECK(g.train_after < 0.01);  // %
    }
    // The fitted engine overheads go to calibration.engine_settings, not the GPU.
    CHECK(c.engine_settings.size() == 2);
    CHECK(c.engine_settings[0].rfind("engine.step_cpu_overhead=", 0) == 0);
  }
}

TEST_CASE("calibrate static: the written profile loads and reproduces the fit", "[calibration]") {
  StaticCalibrationOptions o;
  o.data = {synthetic_csv("synthetic_profile.csv")};
  o.params = "step_cpu_overhead,per_seq_cpu_overhead,gemm_memory,intra_node_latency";
  o.name = "a100-synthetic";
  o.out = (temp_dir() / "a100-synthetic.yaml").string();
  const StaticCalibration c = calibrate_static(o);
  std::ofstream(o.out) << c.yaml;

  const GpuSpec gpu = load_gpu(o.out);
  CHECK(gpu.name == "a100-synthetic");
  CHECK(gpu.efficiency.gemm_memory == Approx(param(c, "gemm_memory")).epsilon(1e-3));  // written with 4 digits
  CHECK(gpu.intra_node.latency == Approx(20e-6).epsilon(1e-3));  // replaced in the base's interconnect block
  CHECK(gpu.efficiency.gemm_compute == load_gpu("a100-sxm4-80gb").efficiency.gemm_compute);  // not fitted
  CHECK(c.yaml.find("(was \"3 us\")") != std::string::npos);  // the base's latency line keeps its history

  // calibration.engine_settings are --set overrides: with hardware.gpu = the profile they
  // reproduce the measurements (error < 0.1%, the 4-6 digits the file keeps).
  const ConfigNode doc = load_yaml_file(o.out);
  std::vector<std::string> sets = {"hardware.gpu=" + o.out};
  for (const auto& s : doc.find("calibration")->find("engine_settings")->items()) sets.push_back(s.text());
  REQUIRE(sets.size() == 3);
  StaticValidationOptions vo;
  vo.edits = parse_edits(sets);
  vo.offline = false;
  for (const auto& r : validate_static_rows(read_benchmark_csv(o.data[0]), vo)) {
    REQUIRE(r.compared);
    CHECK(std::fabs(r.error_pct) < 0.1);
  }
}

TEST_CASE("calibrate static: bad input is a clear error", "[calibration]") {
  const std::string data = synthetic_csv("synthetic_errors.csv");
  StaticCalibrationOptions o;
  o.data = {data};

  SECTION("too few rows for the parameters") {
    // Three rows, alternate split: rows 1 and 3 fitted, 2 held out; 3 parameters.
    std::ifstream in(data);
    std::string line, text;
    for (int i = 0; i < 4 && std::getline(in, line); ++i) text += line + "\n";  // header + 3 rows
    o.data = {temp_file("three_rows.csv", text)};
    o.params = "step_cpu_overhead,per_seq_cpu_overhead,gemm_memory";
    CHECK_THROWS_WITH(calibrate_static(o), Catch::Contains("2 fitted rows") &&
                                               Catch::Contains("cannot determine 3 parameters"));
  }
  SECTION("unknown parameter, with a suggestion and the valid names") {
    o.params = "step_cpu_overhed";
    CHECK_THROWS_WITH(calibrate_static(o), Catch::Contains("unknown parameter 'step_cpu_overhed'") &&
                                               Catch::Contains("did you mean 'step_cpu_overhead'") &&
                                               Catch::Contains("per_seq_cpu_overhead"));
  }
  SECTION("missing file") {
    o.data = {(temp_dir() / "no-such-file.csv").string()};
    CHECK_THROWS_WITH(calibrate_static(o), Catch::Contains("no-such-file.csv: no such file"));
  }
  SECTION("a GPU that matches no row names the GPUs that have rows") {
    o.fit.gpu = "h100-sxm";
    CHECK_THROWS_WITH(calibrate_static(o), Catch::Contains("no compared row is on GPU 'h100-sxm'") &&
                                               Catch::Contains("a100-sxm4-80gb (32 rows)"));
  }
  SECTION("unknown split, metric and loss") {
    o.fit.split = "halves";
    CHECK_THROWS_WITH(calibrate_static(o), Catch::Contains("--split 'halves'"));
    o.fit.split = "datasets:synthetic_error";
    CHECK_THROWS_WITH(calibrate_static(o), Catch::Contains("did you mean 'synthetic_errors'"));
    o.fit.split = "alternate";
    o.fit.metrics = {"decode_latency"};
    CHECK_THROWS_WITH(calibrate_static(o), Catch::Contains("metric 'decode_latency' matches no compared row"));
    o.fit.metrics = {};
    o.fit.loss = "huber";
    CHECK_THROWS_WITH(calibrate_static(o), Catch::Contains("--loss 'huber'"));
  }
  SECTION("a parameter no row depends on is reported, not fitted") {
    // TP-1 rows only: no all-reduce, so the interconnect latency changes nothing.
    o.fit.metrics = {"decode_step_latency"};
    o.params = "step_cpu_overhead,intra_node_latency";
    std::string text = kHeader;
    for (const int b : {1, 2, 4, 8})
      text += fmt::format("s,A100 80GB,1,llama2-7b,FP16,1,1,f,512,128,static_batch={},decode_step_latency,ms,12,n\n", b);
    o.data = {temp_file("tp1.csv", text)};
    const StaticCalibration c = calibrate_static(o);
    CHECK(c.no_effect == std::vector<std::string>{"intra_node_latency"});
    REQUIRE(c.params.size() == 1);
    CHECK(c.params[0].name == "step_cpu_overhead");
  }
}

TEST_CASE("calibrate operators: a small Vidur subset writes a profile that loads with the fitted knobs",
          "[calibration]") {
  // The first 120 token counts of Llama-2-7B at TP 1 (rows 2-121 of the shipped table).
  std::ifstream in(kData + "/operator_timings/a100/llama-2-7b.csv");
  REQUIRE(in);
  std::string line, text;
  for (int i = 0; i < 121 && std::getline(in, line); ++i) text += line + "\n";
  const auto dir = temp_dir() / "operators";
  std::filesystem::create_directories(dir);
  std::ofstream((dir / "llama-2-7b.csv").string()) << text;

  OperatorCalibrationOptions o;
  o.gpu = "a100-sxm4-80gb";
  o.data = dir.string();
  o.out = (temp_dir() / "a100-ops.yaml").string();
  const OperatorCalibration c = calibrate_operators(o);
  CHECK(c.rows == 120);
  CHECK(c.models == std::vector<std::string>{"llama-2-7b"});
  CHECK_FALSE(c.cross_validated);  // one layer shape: nothing to hold out
  CHECK(c.fit.test_samples > 0);
  std::ofstream(o.out) << c.yaml;

  const GpuSpec gpu = load_gpu(o.out);
  CHECK(gpu.name == "a100-sxm4-80gb-operators");
  CHECK(gpu.display_name == "NVIDIA A100 SXM4 80GB (operator-calibrated)");
  for (const auto& field : c.fit.fields) {
    INFO(field);
    // Written with 4 decimals (fractions), 0.1 token or 1 ns: within 0.1%.
    CHECK(efficiency_field(gpu.efficiency, field) == Approx(efficiency_field(c.fit.efficiency, field)).epsilon(1e-3));
  }
  CHECK(c.yaml.find("--data") != std::string::npos);  // the header says how to regenerate it

  o.split = "models:llama-2-8b";
  CHECK_THROWS_WITH(calibrate_operators(o), Catch::Contains("no rows of model 'llama-2-8b'") &&
                                                Catch::Contains("did you mean 'llama-2-7b'"));
  o.split = "shapes";
  CHECK_THROWS_WITH(calibrate_operators(o), Catch::Contains("--split 'shapes'"));
  o.split = "tokens";
  o.data = (temp_dir() / "no-such-folder").string();
  CHECK_THROWS_WITH(calibrate_operators(o), Catch::Contains("no-such-folder: no such file or folder"));
}
