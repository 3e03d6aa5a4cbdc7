// `servesim validate`: replay of a trace with measured latencies. The fixture's
// "measured" values are the closed form of the step-cost model at concurrency 1
// (requests far apart), so the replay must reproduce them; plus the error paths
// (lengths over the context limit, vllm bench JSON without the measured fields).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "test_sim_helpers.h"
#include "util/error.h"
#include "validation/trace_validation.h"
#include "config/scenario_reader.h"

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

const char* kSetup =
    "hardware: {gpu: h100-sxm}\n"
    "model: {name: llama-3.1-8b}\n"
    "parallelism: {tp: 1}\n"
    // The closed forms below are the engine core's alone: no client-side front-end latency.
    "engine: {kind: vllm, max_num_seqs: 64, max_num_batched_tokens: 4096, frontend_latency: \"0 s\"}\n";

// TTFT, TPOT and E2E (ms) of one request alone on the engine: one prefill step
// (input <= max_num_batched_tokens), then out-1 decode steps with growing context.
struct Alone {
  double ttft_ms, tpot_ms, e2e_ms;
};
Alone alone(const Scenario& sc, std::int64_t in, std::int64_t out) {
  const CostModel cost = make_cost_model(sc);
  const Nanos ttft = step_nanos(cost, sc.engine, batch_of(1, SeqWork{in, 0, true}));
  Nanos decode = 0;
  for (std::int64_t j = 1; j <= out - 1; ++j) decode += step_nanos(cost, sc.engine, batch_of(1, SeqWork{1, in + j - 1, true}));
  const double e2e = static_cast<double>(ttft + decode) * 1e-6;
  return {static_cast<double>(ttft) * 1e-6, out > 1 ? static_cast<double>(decode) * 1e-6 / static_cast<double>(out - 1) : 0.0,
          e2e};
}

const MetricComparison& metric(const TraceValidation& v, const std::string& name) {
  for (const auto& c : v.metrics)
    if (c.name == name) return c;
  FAIL("metric " << name << " missing");
  return v.metrics.front();
}

}  // namespace

TEST_CASE("validate: a closed-form CSV at concurrency 1 is reproduced", "[validation]") {
  // Requests 100 s apart never overlap, so each sees the engine alone.
  const std::vector<std::pair<std::int64_t, std::int64_t>> lengths = {{100, 20}, {800, 5}, {2000, 40}, {300, 2}, {50, 64}};
  const Scenario setup = parse_scenario(parse_yaml_text(kSetup), "test.yaml", false);
  std::string csv = "arrival_s,input_tokens,output_tokens,ttft_ms,tpot_ms,e2e_ms\n";
  double measured_tokens = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const auto [in, out] = lengths[i];
    const Alone a = alone(setup, in, out);
    csv += fmt::format("{},{},{},{:.6f},{:.6f},{:.6f}\n", 100.0 * static_cast<double>(i), in, out, a.ttft_ms, a.tpot_ms,
                       a.e2e_ms);
    measured_tokens += static_cast<double>(out);
  }
  const std::string path = temp_file("closed_form.csv", csv);
  const Scenario sc = trace_scenario(parse_yaml_text(kSetup), "test.yaml", path, TraceFormat::csv);
  const TraceValidation v = validate_trace(sc);

  REQUIRE(v.requests == 5);
  REQUIRE(v.predicted_completed == 5);
  REQUIRE(v.predicted_failed == 0);
  REQUIRE(v.metrics.size() == 3);  // ttft, tpot, e2e (no ITL in a CSV)
  for (const std::string m : {"ttft", "tpot", "e2e"}) {
    const MetricComparison& c = metric(v, m);
    INFO(m);
    CHECK(c.measured.count == 5);
    CHECK(c.predicted.count == 5);
    CHECK(c.paired == 5);
    // requests.csv carries milliseconds to 3 decimals (1 us): well under 0.1% of a ms-scale step.
    CHECK(std::fabs(percent_error(c.predicted.mean, c.measured.mean)) < 0.1);
    CHECK(std::fabs(percent_error(c.predicted.p99, c.measured.p99)) < 0.1);
    REQUIRE(c.pearson.has_value());
    // The predicted side is rounded to 1 us (requests.csv); the five TPOTs here span
    // only ~0.1 ms (6.94-7.05 ms on H100), so rounding alone moves r by up to about
    // (0.5 us / 40 us spread)^2 ~ 1.6e-4: the margin the resolution allows.
    CHECK(*c.pearson == Approx(1.0).margin(m == "tpot" ? 2e-4 : 1e-6));
  }
  // Per request, matched by index.
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    REQUIRE(v.predicted[i].present);
    CHECK(v.predicted[i].e2e_ms == Approx(*v.measured[i].e2e_ms).margin(2e-3));
    CHECK(v.predicted[i].ttft_ms == Approx(*v.measured[i].ttft_ms).margin(2e-3));
  }
  // Throughput: the same tokens over the same span (first arrival to last completion).
  CHECK(v.measured_output_tokens == static_cast<std::int64_t>(measured_tokens));
  CHECK(v.predicted_output_tps == Approx(v.measured_output_tps).epsilon(1e-5));
  CHECK(v.within_targets);
  CHECK(v.verdict.rfind("within targets", 0) == 0);

  // One row per request in predicted_vs_measured.csv.
  const std::string out = predicted_vs_measured_csv(v);
  CHECK(std::count(out.begin(), out.end(), '\n') == 6);
}

TEST_CASE("validate: a prediction off by more than the target misses it", "[validation]") {
  const Scenario setup = parse_scenario(parse_yaml_text(kSetup), "test.yaml", false);
  const Alone a = alone(setup, 500, 10);
  // Measured E2E and TPOT twice the prediction: -50% error.
  const std::string path = temp_file(
      "off.csv", fmt::format("arrival_s,input_tokens,output_tokens,ttft_ms,tpot_ms,e2e_ms\n0,500,10,{:.6f},{:.6f},{:.6f}\n",
                             a.ttft_ms, 2 * a.tpot_ms, 2 * a.e2e_ms));
  const TraceValidation v = validate_trace(trace_scenario(parse_yaml_text(kSetup), "test.yaml", path, TraceFormat::csv));
  CHECK_FALSE(v.within_targets);
  CHECK(v.verdict.rfind("misses targets", 0) == 0);
  CHECK(v.verdict.find("E2E mean -5") != std::string::npos);
  CHECK(v.verdict.find("within: TTFT") != std::string::npos);
  CHECK_FALSE(metric(v, "e2e").pearson.has_value());  // one request: no correlation
}

TEST_CASE("validate: lengths over max_model_len are refused with the count and the first line", "[validation]") {
  const std::string path = temp_file("too_long.csv",
                                     "arrival_s,input_tokens,output_tokens,e2e_ms\n"
                                     "0,100,10,5\n"
                                     "1,900,200,5\n"
                                     "2,1000,1,5\n"
                                     "3,10,10,5\n");
  ConfigNode doc = parse_yaml_text(kSetup);
  apply_override(doc, "engine.max_model_len=1000");
  const Scenario sc = trace_scenario(doc, "test.yaml", path, TraceFormat::csv);
  try {
    validate_trace(sc);
    FAIL("expected an error");
  } catch (const Error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("2 of 4 requests") != std::string::npos);
    CHECK(msg.find("max_model_len = 1000") != std::string::npos);
    CHECK(msg.find("line 3: 900 + 200 = 1100") != std::string::npos);
  }
}

TEST_CASE("validate: a vllm bench JSON without the measured fields names the field", "[validation]") {
  const std::string base =
      "\"request_rate\": 4.0, \"input_lens\": [100, 200], \"output_lens\": [10, 20]";
  SECTION("no ttfts") {
    const std::string path = temp_file("no_ttfts.json", "{" + base + ", \"itls\": [[0.01], [0.02]]}");
    const Scenario sc = trace_scenario(parse_yaml_text(kSetup), "test.yaml", path, TraceFormat::vllm_bench);
    CHECK_THROWS_WITH(validate_trace(sc), Catch::Contains("missing field 'ttfts'"));
  }
  SECTION("no itls") {
    const std::string path = temp_file("no_itls.json", "{" + base + ", \"ttfts\": [0.1, 0.2]}");
    const Scenario sc = trace_scenario(parse_yaml_text(kSetup), "test.yaml", path, TraceFormat::vllm_bench);
    CHECK_THROWS_WITH(validate_trace(sc), Catch::Contains("missing field 'itls'"));
  }
  SECTION("ttfts of the wrong length") {
    const std::string path = temp_file("short_ttfts.json", "{" + base + ", \"ttfts\": [0.1], \"itls\": [[], []]}");
    const Scenario sc = trace_scenario(parse_yaml_text(kSetup), "test.yaml", path, TraceFormat::vllm_bench);
    CHECK_THROWS_WITH(validate_trace(sc), Catch::Contains("'ttfts' has 1 entries"));
  }
  SECTION("no output_lens") {
    const std::string path =
        temp_file("no_output.json", "{\"request_rate\": 4.0, \"input_lens\": [1], \"ttfts\": [0.1], \"itls\": [[]]}");
    const Scenario sc = trace_scenario(parse_yaml_text(kSetup), "test.yaml", path, TraceFormat::vllm_bench);
    CHECK_THROWS_WITH(validate_trace(sc), Catch::Contains("'output_lens'"));
  }
}

TEST_CASE("validate: a vllm bench JSON yields TTFT, TPOT, ITL and E2E", "[validation]") {
  const std::string path = std::string(SERVESIM_TEST_FIXTURES) + "/traces/vllm_bench.json";
  const TraceValidation v = validate_trace(trace_scenario(parse_yaml_text(kSetup), "test.yaml", path, TraceFormat::automatic));
  CHECK(v.format == TraceFormat::vllm_bench);
  CHECK(v.requests == 5);
  std::vector<std::string> names;
  for (const auto& c : v.metrics) names.push_back(c.name);
  CHECK(names == std::vector<std::string>{"ttft", "tpot", "itl", "e2e"});
  // Request 2 failed (errors[2]): 4 measured TTFTs; ITLs: 9 + 1 + 0 + 2 gaps.
  CHECK(metric(v, "ttft").measured.count == 4);
  CHECK(metric(v, "itl").measured.count == 12);
  CHECK(metric(v, "ttft").measured.mean == Approx((100 + 200 + 400 + 500) / 4.0));
}

TEST_CASE("pearson correlation", "[validation]") {
  CHECK(*pearson({1, 2, 3, 4}, {2, 4, 6, 8}) == Approx(1.0));
  CHECK(*pearson({1, 2, 3, 4}, {8, 6, 4, 2}) == Approx(-1.0));
  CHECK_FALSE(pearson({1, 2}, {1, 2}).has_value());
  CHECK_FALSE(pearson({1, 1, 1}, {1, 2, 3}).has_value());
}

TEST_CASE("validate: a vllm bench request that streamed no token is not a zero-latency measurement",
          "[validation]") {
  // vLLM's benchmark records a request whose server sent no text as output_lens 0
  // and ttfts 0. The reader must leave its latencies unmeasured (a TTFT of 0 ms
  // would pull the measured mean down) and flag it; a real measurement next to it
  // stays: request 0 has TTFT 100 ms and E2E 100 + 9 x 10 = 190 ms.
  const std::string path = temp_file(
      "no_token.json",
      "{\"request_rate\": 4.0, \"input_lens\": [100, 200], \"output_lens\": [10, 0], "
      "\"ttfts\": [0.1, 0.0], \"itls\": [[0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01], []]}");
  const std::vector<MeasuredRequest> m = read_measured_vllm_bench(path, 1);
  REQUIRE(m.size() == 2);
  CHECK(m[0].ttft_ms.value() == Approx(100.0));
  CHECK(m[0].e2e_ms.value() == Approx(190.0));
  CHECK_FALSE(m[0].no_token);
  CHECK(m[1].no_token);
  CHECK_FALSE(m[1].ttft_ms.has_value());
  CHECK_FALSE(m[1].e2e_ms.has_value());
  const TraceValidation v =
      validate_trace(trace_scenario(parse_yaml_text(kSetup), "test.yaml", path, TraceFormat::vllm_bench));
  CHECK(v.no_token_requests == 1);
}
