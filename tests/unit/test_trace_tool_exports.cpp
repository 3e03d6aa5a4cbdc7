// Benchmark tools' result files as traces: GuideLLM reports (JSON and YAML), AIPerf
// per-request records and AIPerf / genai-perf aggregate summaries. Every field is
// checked against the hand-written fixtures in tests/fixtures/traces/ (their values
// are chosen so the arithmetic is visible: E2E = TTFT + (output - 1) x TPOT).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/yaml_text.h"
#include "util/error.h"
#include "validation/trace_validation.h"
#include "workload/measured_requests.h"
#include "workload/trace_reader.h"
#include "workload/trace_source.h"
#include "workload/workload_spec.h"

using namespace servesim;
using Catch::Matchers::Contains;

namespace {

std::string fixture(const std::string& name) { return std::string(SERVESIM_TEST_FIXTURES) + "/traces/" + name; }

std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "servesim_test_tool_exports";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::vector<TraceRecord> records(const std::string& path, TraceFormat format = TraceFormat::automatic,
                                 std::uint64_t seed = 1) {
  TraceReaderOptions opt;
  opt.seed = seed;
  auto reader = open_trace_reader(path, format, opt);
  std::vector<TraceRecord> out;
  while (auto r = reader->read()) out.push_back(*r);
  return out;
}

const char* kSetup =
    "hardware: {gpu: h100-sxm}\n"
    "model: {name: llama-3.1-8b}\n"
    "parallelism: {tp: 1}\n"
    "engine: {kind: vllm, max_num_seqs: 64, max_num_batched_tokens: 4096}\n";

const MetricComparison* metric(const TraceValidation& v, const std::string& name) {
  for (const auto& c : v.metrics)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("tool exports: formats are detected from the content", "[trace][exports]") {
  CHECK(detect_trace_format(fixture("guidellm_report.json")) == TraceFormat::guidellm);
  CHECK(detect_trace_format(fixture("guidellm_report.yaml")) == TraceFormat::guidellm);
  CHECK(detect_trace_format(fixture("aiperf_profile_export.jsonl")) == TraceFormat::aiperf);
  CHECK(detect_trace_format(fixture("aiperf_summary.json")) == TraceFormat::aiperf_summary);
  CHECK(detect_trace_format(fixture("genai_perf_summary.json")) == TraceFormat::aiperf_summary);
  // The formats that were detected before keep their detection.
  CHECK(detect_trace_format(fixture("mooncake.jsonl")) == TraceFormat::mooncake);
  CHECK(detect_trace_format(fixture("vllm_bench.json")) == TraceFormat::vllm_bench);
  CHECK(detect_trace_format(fixture("generic.csv")) == TraceFormat::csv);
  // An AIPerf record file under another name is still AIPerf (its first line decides).
  std::ifstream in(fixture("aiperf_profile_export.jsonl"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(detect_trace_format(temp_file("records.txt", text)) == TraceFormat::aiperf);
  // genai-perf's per-request profile_export.json has no token counts: refused by name.
  const std::string gp = temp_file("profile_export.json", "{\n  \"experiments\": [{\"requests\": []}]\n}\n");
  CHECK_THROWS_WITH(detect_trace_format(gp), Contains("profile_export_genai_perf.json"));
  for (const char* name : {"guidellm", "aiperf", "aiperf_summary"})
    CHECK(trace_format_name(parse_trace_format(name, "test")) == name);
}

TEST_CASE("tool exports: a GuideLLM report, field by field", "[trace][exports]") {
  // Send order: bench-0's r0 (t 0), r1 (0.5 s), errored r2 (1.0 s); bench-1's r0 (10 s),
  // incomplete r1 (10.25 s). The file lists r1 before r0 and the statuses apart.
  const auto recs = records(fixture("guidellm_report.json"));
  REQUIRE(recs.size() == 5);
  const std::int64_t t0 = recs[0].time_ns;
  CHECK(t0 == 1750000000LL * 1000000000LL);
  const std::vector<std::int64_t> offsets_ms = {0, 500, 1000, 10000, 10250};
  const std::vector<std::int64_t> in = {512, 256, 300, 1024, 128}, out = {128, 64, 1, 1, 7};
  for (std::size_t i = 0; i < recs.size(); ++i) {
    CHECK(std::llround(static_cast<double>(recs[i].time_ns - t0) * 1e-6) == offsets_ms[i]);
    CHECK(recs[i].input_tokens == in[i]);
    CHECK(recs[i].output_tokens == out[i]);  // the errored request's null output_tokens replays as 1
    CHECK(recs[i].line == static_cast<std::int64_t>(i) + 1);
  }

  const auto m = read_measured_guidellm(fixture("guidellm_report.json"));
  REQUIRE(m.size() == 5);
  CHECK(m[1].arrival_s == Approx(0.5));
  CHECK(m[4].arrival_s == Approx(10.25));
  // b0-r0: TTFT 60 ms, inter_token_latency_ms 11.5 (servesim's TPOT), request_latency
  // 1.5205 s = 60 + 127 x 11.5 ms. time_per_output_token_ms (12.0, first token included) is not read.
  CHECK(*m[0].ttft_ms == Approx(60.0));
  CHECK(*m[0].tpot_ms == Approx(11.5));
  CHECK(*m[0].e2e_ms == Approx(60.0 + 127 * 11.5));
  // b0-r1: 40 + 63 x 14.6 = 959.8 ms.
  CHECK(*m[1].ttft_ms == Approx(40.0));
  CHECK(*m[1].tpot_ms == Approx(14.6));
  CHECK(*m[1].e2e_ms == Approx(959.8));
  // Errored and incomplete requests are replayed but measure nothing.
  for (const std::size_t i : {std::size_t{2}, std::size_t{4}}) {
    CHECK(!m[i].ttft_ms);
    CHECK(!m[i].tpot_ms);
    CHECK(!m[i].e2e_ms);
  }
  // b1-r0 produced one token: no TPOT; E2E = its 0.08 s.
  CHECK(*m[3].ttft_ms == Approx(80.0));
  CHECK(!m[3].tpot_ms);
  CHECK(*m[3].e2e_ms == Approx(80.0));
}

TEST_CASE("tool exports: a GuideLLM report saved as YAML reads as its JSON", "[trace][exports]") {
  const auto a = read_measured_guidellm(fixture("guidellm_report.json"));
  const auto b = read_measured_guidellm(fixture("guidellm_report.yaml"));
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].arrival_s == b[i].arrival_s);
    CHECK(a[i].input_tokens == b[i].input_tokens);
    CHECK(a[i].output_tokens == b[i].output_tokens);
    CHECK(a[i].ttft_ms == b[i].ttft_ms);
    CHECK(a[i].tpot_ms == b[i].tpot_ms);
    CHECK(a[i].e2e_ms == b[i].e2e_ms);
  }
  const auto ra = records(fixture("guidellm_report.json")), rb = records(fixture("guidellm_report.yaml"));
  REQUIRE(ra.size() == rb.size());
  for (std::size_t i = 0; i < ra.size(); ++i) CHECK(ra[i].time_ns == rb[i].time_ns);
}

TEST_CASE("tool exports: AIPerf records, field by field", "[trace][exports]") {
  // Send order: r0 (t 0), r1 (0.5 s), the cancelled r2 (1.0 s), r3 (1.5 s); the file has r1 first.
  const auto recs = records(fixture("aiperf_profile_export.jsonl"));
  REQUIRE(recs.size() == 4);
  CHECK(recs[0].time_ns == 1760000000000000000LL);
  CHECK(recs[1].time_ns - recs[0].time_ns == 500000000);
  CHECK(recs[3].time_ns - recs[0].time_ns == 1500000000);
  const std::vector<std::int64_t> in = {1000, 200, 300, 50}, out = {5, 4, 1, 1};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(recs[i].input_tokens == in[i]);  // the cancelled record's length is its metrics.error_isl
    CHECK(recs[i].output_tokens == out[i]);
  }

  std::vector<double> itl;
  const auto m = read_measured_aiperf(fixture("aiperf_profile_export.jsonl"), &itl);
  REQUIRE(m.size() == 4);
  // r0: TTFT 90, E2E 250 = 90 + 4 x 40 ms, TPOT (inter_token_latency) 40.
  CHECK(*m[0].ttft_ms == Approx(90.0));
  CHECK(*m[0].e2e_ms == Approx(250.0));
  CHECK(*m[0].tpot_ms == Approx(40.0));
  // r1: 40 + 3 x 20 = 100.
  CHECK(*m[1].ttft_ms == Approx(40.0));
  CHECK(*m[1].e2e_ms == Approx(100.0));
  CHECK(*m[1].tpot_ms == Approx(20.0));
  CHECK(!m[2].ttft_ms);  // cancelled
  CHECK(!m[2].e2e_ms);
  // r3: units other than ms: TTFT 0.03 sec, request_latency 30,000,000 ns; one token, no TPOT.
  CHECK(*m[3].ttft_ms == Approx(30.0));
  CHECK(*m[3].e2e_ms == Approx(30.0));
  CHECK(!m[3].tpot_ms);
  // Per-token gaps only from r1, whose 3 chunk gaps are its 4 - 1 token gaps; r0's 2 chunks
  // for 5 tokens carried several tokens each and are not token gaps.
  CHECK(itl == std::vector<double>{18.0, 20.0, 22.0});
}

TEST_CASE("tool exports: an AIPerf summary regenerates the run", "[trace][exports]") {
  const std::string path = fixture("aiperf_summary.json");
  const MeasuredAggregate a = read_measured_aiperf_summary(path);
  CHECK(a.tool == "AIPerf");
  CHECK(a.requests == 100);
  CHECK(*a.concurrency == 8.0);
  CHECK(!a.request_rate);
  CHECK(a.request_throughput == 4.0);
  CHECK(a.output_tps == 512.0);
  CHECK(a.duration_s == 25.0);
  CHECK(a.model_id == "meta-llama/Llama-3.1-8B-Instruct");
  REQUIRE(a.metrics.size() == 3);
  CHECK(a.metrics[0].first == "ttft");
  CHECK(a.metrics[0].second.mean == 80.0);
  CHECK(a.metrics[0].second.p50 == 75.0);
  CHECK(a.metrics[0].second.p90 == 110.0);
  CHECK(a.metrics[0].second.p95 == 120.0);
  CHECK(a.metrics[0].second.p99 == 150.0);
  CHECK(a.metrics[0].second.min == 35.0);
  CHECK(a.metrics[0].second.max == 160.0);
  CHECK(a.metrics[1].first == "tpot");
  CHECK(a.metrics[1].second.mean == 11.0);
  CHECK(a.metrics[2].first == "e2e");
  CHECK(a.metrics[2].second.p99 == 2200.0);

  TraceReaderOptions opt;
  auto reader = open_trace_reader(path, TraceFormat::automatic, opt);
  CHECK(reader->size() == 100);
  CHECK(*reader->max_concurrency() == 8);  // closed loop: all sent at once, 8 in flight
  std::vector<std::int64_t> in;
  while (auto r = reader->read()) {
    CHECK(r->time_ns == 0);
    CHECK(r->output_tokens == 128);  // min = p50 = max = 128
    in.push_back(r->input_tokens);
  }
  REQUIRE(in.size() == 100);
  std::vector<std::int64_t> sorted = in;
  std::sort(sorted.begin(), sorted.end());
  // Request k's length is the quantile function at (k + 0.5) / 100, through (0, min 500),
  // (0.01, p1 500), ..., (0.25, p25 535), (0.5, p50 550), (0.75, p75 565), ..., (1, max 600):
  CHECK(sorted[0] == 500);   // q 0.005: between min 500 and p1 500
  CHECK(sorted[49] == 550);  // q 0.495: 535 + 15 x 0.245 / 0.25 = 549.7
  CHECK(sorted[50] == 550);  // q 0.505: 550 + 15 x 0.005 / 0.25 = 550.3
  CHECK(sorted[74] == 565);  // q 0.745: 550 + 15 x 0.245 / 0.25 = 564.7
  CHECK(sorted[99] == 600);  // q 0.995: between p99 600 and max 600
  CHECK(in != sorted);       // shuffled, not sent in length order
}

TEST_CASE("tool exports: a summary of 400M requests streams its lengths instead of holding them", "[trace][exports]") {
  // The fuzzer's find: request_count 403,333,333 made the reader allocate 2 x 8 bytes per request
  // (6.5 GB) up front. Past 10M requests the lengths are drawn one at a time from the quantile
  // function, here constant (only avg 10 and avg 20 are given), so every record reads 10 / 20.
  const auto p = temp_file("s400m.json",
                           "{\"time_to_first_token\": {\"avg\": 1, \"p50\": 1, \"p90\": 1, \"p95\": 1, \"p99\": 1}, "
                           "\"request_count\": {\"avg\": 403333333}, \"request_throughput\": {\"avg\": 2}, "
                           "\"input_sequence_length\": {\"avg\": 10}, \"output_sequence_length\": {\"avg\": 20}}\n");
  TraceReaderOptions opt;
  auto reader = open_trace_reader(p, TraceFormat::aiperf_summary, opt);
  CHECK(reader->size() == 403333333);
  for (int i = 0; i < 1000; ++i) {
    const auto r = reader->read();
    REQUIRE(r);
    CHECK(r->input_tokens == 10);
    CHECK(r->output_tokens == 20);
  }
}

TEST_CASE("tool exports: a genai-perf summary sends Poisson arrivals at its request rate", "[trace][exports]") {
  const std::string path = fixture("genai_perf_summary.json");
  const MeasuredAggregate a = read_measured_aiperf_summary(path);
  CHECK(a.tool == "genai-perf");
  CHECK(a.requests == 40);  // input_config.request_count
  CHECK(*a.request_rate == 2.0);
  CHECK(!a.concurrency);
  CHECK(a.model_id == "meta-llama/Llama-3.1-8B-Instruct");
  const auto r1 = records(path, TraceFormat::aiperf_summary, 1);
  const auto r1b = records(path, TraceFormat::aiperf_summary, 1);
  const auto r2 = records(path, TraceFormat::aiperf_summary, 2);
  REQUIRE(r1.size() == 40);
  CHECK(r1[0].time_ns == 0);
  for (std::size_t i = 1; i < r1.size(); ++i) {
    CHECK(r1[i].time_ns >= r1[i - 1].time_ns);
    CHECK(r1[i].time_ns == r1b[i].time_ns);  // same seed, same arrivals
    CHECK(r1[i].input_tokens == 300);        // every percentile is 300
  }
  CHECK(r1.back().time_ns != r2.back().time_ns);  // another seed, other arrivals
  // 39 exponential gaps of mean 1/2 s: their mean has standard deviation 0.5 / sqrt(39) = 0.080 s;
  // within 3 of them of 0.5 s.
  const double mean_gap = static_cast<double>(r1.back().time_ns) * 1e-9 / 39.0;
  CHECK(mean_gap > 0.5 - 3 * 0.080);
  CHECK(mean_gap < 0.5 + 3 * 0.080);
}

TEST_CASE("tool exports: malformed files name the file and the field", "[trace][exports][errors]") {
  SECTION("GuideLLM without per-request details") {
    const auto p = temp_file("g1.json", "{\"benchmarks\": [{\"metrics\": {}}]}\n");
    CHECK_THROWS_WITH(records(p, TraceFormat::guidellm), Contains("g1.json") && Contains("benchmarks[0]") &&
                                                             Contains("'requests'"));
  }
  SECTION("GuideLLM successful request without prompt_tokens") {
    const auto p = temp_file("g2.json",
                             "{\"benchmarks\": [{\"requests\": {\"successful\": [{\"request_start_time\": 1.0, "
                             "\"output_tokens\": 3}]}}]}\n");
    CHECK_THROWS_WITH(records(p, TraceFormat::guidellm),
                      Contains("benchmarks[0].requests.successful[0]") && Contains("prompt_tokens"));
  }
  SECTION("GuideLLM request without a start time") {
    const auto p = temp_file("g3.json",
                             "{\"benchmarks\": [{\"requests\": {\"successful\": [{\"prompt_tokens\": 3, "
                             "\"output_tokens\": 3}]}}]}\n");
    CHECK_THROWS_WITH(records(p, TraceFormat::guidellm), Contains("no request start time"));
  }
  SECTION("GuideLLM negative latency") {
    const auto p = temp_file("g4.json",
                             "{\"benchmarks\": [{\"requests\": {\"successful\": [{\"request_start_time\": 1.0, "
                             "\"prompt_tokens\": 3, \"output_tokens\": 3, \"time_to_first_token_ms\": -5}]}}]}\n");
    CHECK_THROWS_WITH(read_measured_guidellm(p), Contains("time_to_first_token_ms") && Contains(">= 0"));
  }
  SECTION("AIPerf record that is not JSON, with its line") {
    const auto p = temp_file("a1.jsonl",
                             "{\"metadata\": {\"request_start_ns\": 1}, \"metrics\": {\"input_sequence_length\": "
                             "{\"value\": 5}, \"output_sequence_length\": {\"value\": 2}, \"request_latency\": {\"value\": 20}}, "
                             "\"error\": null}\n"
                             "{\"metadata\": \n");
    CHECK_THROWS_WITH(records(p, TraceFormat::aiperf), Contains("a1.jsonl:2"));
  }
  SECTION("AIPerf successful record without its output length") {
    const auto p = temp_file("a2.jsonl",
                             "{\"metadata\": {\"request_start_ns\": 1}, \"metrics\": {\"input_sequence_length\": "
                             "{\"value\": 5}}, \"error\": null}\n");
    CHECK_THROWS_WITH(records(p, TraceFormat::aiperf), Contains("a2.jsonl:1") && Contains("output_sequence_length"));
  }
  SECTION("AIPerf unknown time unit") {
    const auto p = temp_file("a3.jsonl",
                             "{\"metadata\": {\"request_start_ns\": 1}, \"metrics\": {\"input_sequence_length\": "
                             "{\"value\": 5}, \"output_sequence_length\": {\"value\": 2}, \"time_to_first_token\": "
                             "{\"value\": 5, \"unit\": \"fortnights\"}, \"request_latency\": {\"value\": 20}}, \"error\": null}\n");
    CHECK_THROWS_WITH(read_measured_aiperf(p), Contains("fortnights"));
  }
  SECTION("summary without a request count") {
    const auto p = temp_file("s1.json",
                             "{\"time_to_first_token\": {\"avg\": 1, \"p50\": 1, \"p90\": 1, \"p95\": 1, \"p99\": 1}, "
                             "\"request_throughput\": {\"avg\": 1}, \"input_sequence_length\": {\"avg\": 10}, "
                             "\"output_sequence_length\": {\"avg\": 10}}\n");
    CHECK_THROWS_WITH(records(p, TraceFormat::aiperf_summary), Contains("request count"));
  }
  SECTION("summary latency without a percentile") {
    const auto p = temp_file("s2.json",
                             "{\"time_to_first_token\": {\"avg\": 1, \"p50\": 1, \"p90\": 1, \"p99\": 1}, "
                             "\"request_count\": {\"avg\": 3}, \"request_throughput\": {\"avg\": 1}, "
                             "\"input_sequence_length\": {\"avg\": 10}, \"output_sequence_length\": {\"avg\": 10}}\n");
    CHECK_THROWS_WITH(read_measured_aiperf_summary(p), Contains("time_to_first_token has no 'p95'"));
  }
}

TEST_CASE("tool exports: validate compares each tool's measurements", "[validation][exports]") {
  auto run = [](const std::string& name, const char* setup = kSetup) {
    return validate_trace(trace_scenario(parse_yaml_text(setup), "test.yaml", fixture(name), TraceFormat::automatic));
  };
  SECTION("GuideLLM: 3 successful of 5 replayed") {
    const TraceValidation v = run("guidellm_report.json");
    CHECK(v.format == TraceFormat::guidellm);
    CHECK(v.requests == 5);
    CHECK(v.predicted_completed == 5);
    REQUIRE(metric(v, "ttft"));
    CHECK(metric(v, "ttft")->measured.count == 3);
    CHECK(metric(v, "ttft")->measured.mean == Approx((60.0 + 40.0 + 80.0) / 3));
    CHECK(metric(v, "tpot")->measured.count == 2);
    CHECK(!metric(v, "itl"));  // GuideLLM keeps no per-token gaps
    CHECK(v.warnings.empty());  // its model is the scenario's
  }
  SECTION("GuideLLM measured on another model: said") {
    const TraceValidation v = run("guidellm_report.json",
                                  "hardware: {gpu: h100-sxm}\nmodel: {name: qwen3-14b}\nparallelism: {tp: 1}\n");
    REQUIRE(v.warnings.size() == 1);
    CHECK_THAT(v.warnings[0], Contains("Llama-3.1-8B-Instruct"));
  }
  SECTION("AIPerf: ITL from the one-token chunks") {
    const TraceValidation v = run("aiperf_profile_export.jsonl");
    CHECK(v.format == TraceFormat::aiperf);
    REQUIRE(metric(v, "itl"));
    CHECK(metric(v, "itl")->measured.count == 3);
    CHECK(metric(v, "itl")->measured.mean == Approx(20.0));
    CHECK(metric(v, "e2e")->measured.mean == Approx((250.0 + 100.0 + 30.0) / 3));
  }
  SECTION("AIPerf summary: distributions against the replay of 100 regenerated requests") {
    const TraceValidation v = run("aiperf_summary.json");
    CHECK(v.aggregate_only);
    CHECK(v.requests == 100);
    CHECK(v.predicted_completed == 100);
    REQUIRE(metric(v, "ttft"));
    CHECK(metric(v, "ttft")->measured.mean == 80.0);
    CHECK(metric(v, "ttft")->predicted.count == 100);
    CHECK(!metric(v, "ttft")->pearson);
    CHECK(v.measured_output_tps == 512.0);
    CHECK(v.measured_output_tokens == 512 * 25);
  }
}
