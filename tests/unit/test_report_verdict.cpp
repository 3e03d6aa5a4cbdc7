// The verdict parts of `servesim report` pages (sim/report/html_run_verdict.cpp) and the
// round axis ticks of its charts (svg_chart.h nice_ticks): what a reader sees first.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "report/html_sections.h"
#include "report/svg_chart.h"

using namespace servesim::report;
using nlohmann::json;
using Catch::Matchers::Contains;

TEST_CASE("nice_ticks: 1-2-5 steps that cover the data, labelled without stray decimals", "[report][ticks]") {
  // [0, 28.82], at most 5 intervals: 28.82 / 5 = 5.76 per interval; steps 1, 2, 5 need
  // 29, 15, 6 intervals to reach 30, step 10 needs 3: ticks 0, 10, 20, 30 (the old axis put
  // 5 ticks at the quarter points of its padded range, at values like 28.82 and 68.35).
  Ticks t = nice_ticks(0, 28.82);
  CHECK(t.step == 10);
  CHECK(t.values == std::vector<double>{0, 10, 20, 30});
  CHECK(tick_label(20, t) == "20");
  // [0.1, 0.37]: step 0.05 needs 6 intervals (0.1 .. 0.4), step 0.1 needs 3; one decimal.
  t = nice_ticks(0.1, 0.37);
  CHECK(t.step == Approx(0.1));
  REQUIRE(t.values.size() == 4);
  CHECK(tick_label(t.values[0], t) == "0.1");
  CHECK(tick_label(t.values[3], t) == "0.4");
  // [68.35, 4296.6]: (4296.6 - 68.35) / 5 = 845.7; step 1000 covers 0 .. 5000 in 5.
  t = nice_ticks(68.35, 4296.6);
  CHECK(t.step == 1000);
  CHECK(t.values.front() == 0);
  CHECK(t.values.back() == 5000);
  CHECK(tick_label(5000, t) == "5000");
  // Negative to positive: no "-0" label.
  t = nice_ticks(-3, 7);
  for (double v : t.values) CHECK(tick_label(v, t) != "-0");
  // A flat series (lo == hi) still gets a tick, never a division by zero.
  CHECK(nice_ticks(5, 5).values == std::vector<double>{5});
}

namespace {
// A summary.json as `servesim run --out` writes it, cut to the keys the verdict reads.
json summary(bool met, bool overloaded, int failed, double usd_per_hour) {
  return json::parse(R"({
    "requests": {"completed": 297, "failed": 0, "failures": {}},
    "duration_s": 40.8,
    "throughput": {"requests_per_s": 7.35, "output_tokens_per_s": 2153, "output_tokens_per_s_per_gpu": 2153},
    "ttft_ms": {"mean": 60.6, "p50": 54.4, "p90": 91.5, "p99": 145.0},
    "tpot_ms": {"mean": 10.7, "p50": 10.7, "p90": 12.1, "p99": 13.3},
    "e2e_ms": {"mean": 3177.8, "p50": 3201.1, "p90": 4975.7, "p99": 5933.2},
    "utilization": {"busy_fraction": 1.0, "mfu": 0.146, "memory_bandwidth": 0.57, "kv_cache_mean": 0.07, "kv_cache_max": 0.12},
    "energy": {"energy_j": 18144, "power_w_per_gpu": 445, "busy_power_w_per_gpu": 445, "joules_per_output_token": 0.2065, "joules_per_request": 60.48},
    "load": {"overloaded": false, "offered_rps": 7.4, "served_rps": 7.35, "queue_delay_mid_ms": 20, "queue_delay_last_ms": 25},
    "slo": {"met": true, "attainment": 1.0, "goodput_rps": 7.35,
            "targets": [{"metric": "ttft_ms", "statistic": "p99", "limit_ms": 500, "value_ms": 145.0, "met": true},
                        {"metric": "tpot_ms", "statistic": "p99", "limit_ms": 50, "value_ms": 13.3, "met": true}]},
    "bands": {"available": true, "coverage": 0.8,
              "ttft_ms": {"p99": {"lo": 135.3, "hi": 233.1, "label": "defaults, hopper GPUs, vllm, low load", "n": 11}}},
    "cost": {"usd_per_hour": 2.99, "usd_per_million_output_tokens": 0.386, "usd_for_run": 0.03389},
    "config": {"model": "llama-3.1-8b", "gpu": "h100-sxm", "scenario": "q.yaml", "servesim_version": "0.1.0",
               "parallelism": {"gpus": 1, "tp": 1, "pp": 1, "replicas": 1},
               "precision": {"label": "W16A16 bf16, KV bf16"}, "engine": {"kind": "vllm", "framework": "vllm-v1"}}
  })")
      .patch(json::array({
          {{"op", "replace"}, {"path", "/slo/met"}, {"value", met}},
          {{"op", "replace"}, {"path", "/slo/targets/1/met"}, {"value", met}},
          {{"op", "replace"}, {"path", "/load/overloaded"}, {"value", overloaded}},
          {{"op", "replace"}, {"path", "/requests/failed"}, {"value", failed}},
          {{"op", "replace"}, {"path", "/requests/failures"},
           {"value", failed ? json{{"too_long_for_max_model_len", failed}} : json::object()}},
          {{"op", "replace"}, {"path", "/cost/usd_per_hour"}, {"value", usd_per_hour}},
      }));
}
}  // namespace

TEST_CASE("run verdict: a run that meets its SLOs says so first, with setup, band, energy and cost", "[report][verdict]") {
  const std::string html = run_verdict_section(summary(true, false, 0, 2.99));
  // The setup line comes before the verdict, the verdict before the figures.
  const auto setup = html.find("<b>llama-3.1-8b</b> on <b>h100-sxm</b> x1"), verdict = html.find("SLOs met"),
             energy = html.find("445 W per GPU");
  REQUIRE(setup != std::string::npos);
  REQUIRE(verdict != std::string::npos);
  REQUIRE(energy != std::string::npos);
  CHECK(setup < verdict);
  CHECK(verdict < energy);
  CHECK_THAT(html, Contains("class=\"verdict good\""));
  // 297 completed + 0 failed offered; attainment 1.0 -> 100.0%.
  CHECK_THAT(html, Contains("attainment <b>100.0%</b> of 297 offered requests"));
  CHECK_THAT(html, Contains("145.0 <span class=\"band\">[135.3, 233.1]</span>"));
  CHECK_THAT(html, Contains("80% bands from servesim's errors"));
  CHECK_THAT(html, Contains("$2.99/hour; $0.386 per million output tokens"));
  CHECK(html.find("OVERLOADED") == std::string::npos);
}

TEST_CASE("run verdict: missed SLOs, overload and failures are in the headline, with the reasons", "[report][verdict]") {
  const std::string html = run_verdict_section(summary(false, true, 3, 2.99));
  CHECK_THAT(html, Contains("SLOs MISSED · OVERLOADED · 3 requests failed"));
  CHECK_THAT(html, Contains("class=\"verdict bad\""));
  CHECK_THAT(html, Contains("OVERLOADED: the server cannot keep up: offered 7.40 req/s, served 7.35 req/s"));
  CHECK_THAT(html, Contains("failures by reason: 3 too_long_for_max_model_len"));
  // 297 completed + 3 failed = 300 offered.
  CHECK_THAT(html, Contains("of 300 offered requests"));
  CHECK_THAT(html, Contains("<span class=\"bad\">MISSED</span>"));
}

TEST_CASE("run verdict: a GPU without a price says what to set, not $0", "[report][verdict]") {
  const std::string html = run_verdict_section(summary(true, false, 0, 0));
  CHECK_THAT(html, Contains("no price for this GPU (hardware.price_per_hour"));
  CHECK(html.find("$0.00/hour") == std::string::npos);
}
