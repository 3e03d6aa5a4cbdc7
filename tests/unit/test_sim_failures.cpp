// Requests that cannot be served are failures with a reason, and they count:
// SLO attainment is over offered requests, a run with failures never meets its
// SLOs, and statistics over zero completed requests are "-" / null, not 0 ms.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "metrics/summary_json.h"
#include "workload/workload_spec.h"
#include "test_sim_helpers.h"
#include "config/scenario_reader.h"

using namespace servesim;
using namespace servesim::testing;

namespace {
// Llama-3.1-8B on one H100, 8 KV blocks of 16 tokens, max_model_len 150, and an
// SLO (TTFT p99 <= 1e6 ms) that any served request meets.
Scenario tiny_kv_scenario() {
  const std::string text =
      "hardware: {gpu: h100-sxm}\n"
      "model: {name: llama-3.1-8b}\n"
      "engine: {kind: vllm, num_gpu_blocks_override: 8, max_model_len: 150}\n"
      "slo: {ttft_ms: {p99: 1000000}}\n";
  return parse_scenario(parse_yaml_text(text), "test.yaml", false);
}
}  // namespace

TEST_CASE("unservable requests fail with a reason and count as SLO misses", "[sim][failures]") {
  const Scenario sc = tiny_kv_scenario();
  // 100 + 60 = 160 > 150: too long. 120 + 20 = 140 <= 150, but its KV peaks at
  // 139 tokens = ceil(139 / 16) = 9 blocks > 8: exceeds the KV cache. 50 + 10 and
  // 40 + 5 fit (60 tokens = 4 blocks).
  VectorSource src({make_request(0.0, 100, 60), make_request(0.0, 120, 20), make_request(0.0, 50, 10),
                    make_request(0.5, 40, 5)});
  const RunWithCsv run = run_with_csv(sc, &src);
  const RunSummary& s = run.result.summary;
  CHECK(s.completed == 2);
  CHECK(s.failed == 2);
  CHECK(s.failures[static_cast<std::size_t>(FailureReason::too_long_for_max_model_len)] == 1);
  CHECK(s.failures[static_cast<std::size_t>(FailureReason::exceeds_kv_capacity)] == 1);
  // Both served requests meet the SLO; 2 of 4 offered did: 50%, and not met.
  CHECK(s.slo_attainment == Approx(0.5));
  REQUIRE(s.slo.size() == 1);
  CHECK(s.slo[0].met);  // the served requests' p99 is within the limit...
  CHECK_FALSE(s.slo_met);  // ...but completed < offered
  REQUIRE(run.rows.size() == 4);
  for (const auto& r : run.rows) {
    if (r.id == 0) CHECK(r.failure == "too_long_for_max_model_len");
    else if (r.id == 1) CHECK(r.failure == "exceeds_kv_capacity");
    else CHECK(r.failure.empty());
  }
  const nlohmann::json j = summary_json(s);
  CHECK(j["requests"]["failures"]["too_long_for_max_model_len"] == 1);
  CHECK(j["requests"]["failures"]["exceeds_kv_capacity"] == 1);
  CHECK(j["requests"]["failures"]["overload_guard"] == 0);
  CHECK(j["slo"]["met"] == false);
  CHECK_THAT(summary_table(s), Catch::Contains("2 failed (1 too_long_for_max_model_len, 1 exceeds_kv_capacity)"));
}

TEST_CASE("zero completed requests print no latency as if measured", "[sim][failures]") {
  const Scenario sc = tiny_kv_scenario();
  VectorSource src({make_request(0.0, 100, 60), make_request(1.0, 200, 10)});  // 160 and 210 > 150
  const SimulationResult r = simulate(sc, src, {});
  const RunSummary& s = r.summary;
  CHECK(s.completed == 0);
  CHECK(s.failed == 2);
  CHECK(s.slo_attainment == 0.0);
  CHECK_FALSE(s.slo_met);
  REQUIRE(s.slo.size() == 1);
  CHECK_FALSE(s.slo[0].measured);
  CHECK_FALSE(s.slo[0].met);
  const nlohmann::json j = summary_json(s);
  CHECK(j["ttft_ms"]["count"] == 0);
  CHECK(j["ttft_ms"]["p99"].is_null());
  CHECK(j["e2e_ms"]["mean"].is_null());
  CHECK(j["slo"]["targets"][0]["value_ms"].is_null());
  CHECK(j["slo"]["targets"][0]["met"] == false);
  const std::string table = summary_table(s);
  CHECK_THAT(table, Catch::Contains("TTFT                -          -"));
  CHECK_THAT(table, !Catch::Contains("0.00 ms"));
  CHECK_THAT(table, Catch::Contains("SLOs MISSED"));
}

TEST_CASE("a trace with a header and no rows is an error, not an empty run", "[sim][failures][trace]") {
  const std::string path = (std::filesystem::temp_directory_path() / "servesim_header_only.csv").string();
  std::ofstream(path) << "arrival_s,input_tokens,output_tokens\n";
  WorkloadSpec w;
  w.trace = TraceSpec{path, TraceFormat::csv, 1.0};
  CHECK_THROWS_WITH(make_request_source(w), Catch::Contains("the trace holds no requests"));
  std::filesystem::remove(path);
}
