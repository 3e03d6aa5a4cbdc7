// The benchmark tools' result files as their own repositories ship them
// (tests/fixtures/tool_exports/PROVENANCE.md), and the layouts of today's versions:
// every metric a file holds is read, and a layout servesim does not know is an error
// that names what the file holds, never a run with a metric silently missing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "config/yaml_text.h"
#include "util/error.h"
#include "util/warnings.h"
#include "validation/trace_validation.h"
#include "workload/measured_requests.h"
#include "workload/trace_reader.h"
#include "workload/trace_source.h"

using namespace servesim;
using Catch::Matchers::Contains;

namespace {

std::string real(const std::string& name) { return std::string(SERVESIM_TEST_FIXTURES) + "/tool_exports/" + name; }
std::string hand(const std::string& name) { return std::string(SERVESIM_TEST_FIXTURES) + "/traces/" + name; }

std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "servesim_test_real_exports";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::vector<TraceRecord> records(const std::string& path, TraceFormat format = TraceFormat::automatic) {
  auto reader = open_trace_reader(path, format, {});
  std::vector<TraceRecord> out;
  while (auto r = reader->read()) out.push_back(*r);
  return out;
}

double mean_of(const std::vector<MeasuredRequest>& m, std::optional<double> MeasuredRequest::*field) {
  double sum = 0;
  int n = 0;
  for (const auto& r : m)
    if (r.*field) {
      sum += *(r.*field);
      ++n;
    }
  return n > 0 ? sum / n : 0.0;
}

int count_of(const std::vector<MeasuredRequest>& m, std::optional<double> MeasuredRequest::*field) {
  return static_cast<int>(std::count_if(m.begin(), m.end(), [&](const MeasuredRequest& r) { return (r.*field).has_value(); }));
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

TEST_CASE("real AIPerf export (2025-10, ttft/ttst names): every metric of all 100 records", "[trace][exports][real]") {
  const std::string path = real("aiperf_2025-10-03_profile_export.jsonl");
  CHECK(detect_trace_format(path) == TraceFormat::aiperf);
  // 100 records: 89 successful, 11 cancelled (RequestCancellationError, no error_isl: replayed with 1 token).
  const auto recs = records(path);
  REQUIRE(recs.size() == 100);
  std::vector<double> itl;
  const auto m = read_measured_aiperf(path, &itl);
  REQUIRE(m.size() == 100);
  CHECK(count_of(m, &MeasuredRequest::ttft_ms) == 89);
  CHECK(count_of(m, &MeasuredRequest::e2e_ms) == 89);
  CHECK(count_of(m, &MeasuredRequest::tpot_ms) == 89);
  // The per-request means equal AIPerf's own summary of the same run (the sibling
  // profile_export_aiperf.json: records.ttft.avg 2343.219436988764, request_latency.avg
  // 9059.654633033708, inter_token_latency.avg 27.763065454471807): TTFT read under its
  // old name "ttft", not lost.
  CHECK(mean_of(m, &MeasuredRequest::ttft_ms) == Approx(2343.219436988764).epsilon(1e-12));
  CHECK(mean_of(m, &MeasuredRequest::e2e_ms) == Approx(9059.654633033708).epsilon(1e-12));
  CHECK(mean_of(m, &MeasuredRequest::tpot_ms) == Approx(27.763065454471807).epsilon(1e-12));
  // Per-token gaps: 85 of the 89 streamed one token per chunk (192 gaps for 193 tokens);
  // their 20,567 gaps average 27.5810766309136 ms (python3 over the file). The other 4
  // sent several tokens in a chunk and give no token gaps.
  CHECK(itl.size() == 20567);
  CHECK(std::accumulate(itl.begin(), itl.end(), 0.0) / itl.size() == Approx(27.5810766309136).epsilon(1e-12));
  // Output length: output_sequence_length (answer 61 + reasoning 132 = 193 for the first
  // successful record), input 550 for every request.
  for (const auto& r : m)
    if (r.ttft_ms) {
      CHECK(r.input_tokens == 550);
      CHECK(r.output_tokens >= 193);
      CHECK(r.output_tokens <= 247);
    }
  // Send times from metadata.timestamp_ns: the 100 were sent within 20,473,932 ns. The
  // readers hold send times as epoch seconds in a double (ExportedRequest::start_s): at
  // 1.76e9 s one ulp is 2^-22 s = 238 ns, so the span is exact to 2 ulps, under 1 us.
  CHECK(std::llabs(recs.back().time_ns - recs.front().time_ns - 20473932) < 1000);
}

TEST_CASE("real AIPerf summary (2025-10, metrics under records): regenerated and compared", "[trace][exports][real]") {
  const std::string path = real("aiperf_2025-10-03_profile_export_aiperf.json");
  // Was refused as a vLLM file ("missing per-request list 'input_lens'") before.
  CHECK(detect_trace_format(path) == TraceFormat::aiperf_summary);
  const MeasuredAggregate a = read_measured_aiperf_summary(path);
  CHECK(a.tool == "AIPerf");
  CHECK(a.requests == 89);  // records.request_count.avg: the successful ones
  CHECK(a.errored == 11);   // records.error_request_count.avg
  CHECK(*a.concurrency == 100.0);
  CHECK(a.model_id == "openai/gpt-oss-20b");
  CHECK(a.duration_s == Approx(9.317788951));
  CHECK(a.output_tps == Approx(2320.7222350404572));
  REQUIRE(a.metrics.size() == 3);
  CHECK(a.metrics[0].first == "ttft");  // records.ttft
  CHECK(a.metrics[0].second.mean == Approx(2343.219436988764));
  CHECK(a.metrics[0].second.p99 == Approx(3833.3894000399996));
  CHECK(a.metrics[0].second.min == Approx(464.66410099999996));
  CHECK(a.metrics[1].first == "tpot");
  CHECK(a.metrics[1].second.p50 == Approx(27.615130366666666));
  CHECK(a.metrics[2].first == "e2e");
  CHECK(a.metrics[2].second.max == Approx(9299.772642));
  // Lengths at the midpoints of 89 quantile slices: the input is 550 throughout; the
  // output's quantile function runs from 193 (min, p1) to 247 (p50 .. max).
  const auto recs = records(path);
  REQUIRE(recs.size() == 89);
  std::vector<std::int64_t> out;
  for (const auto& r : recs) {
    CHECK(r.input_tokens == 550);
    CHECK(r.time_ns == 0);  // a concurrency run: all at once, at most 100 in flight
    out.push_back(r.output_tokens);
  }
  std::sort(out.begin(), out.end());
  CHECK(out.front() == 193);  // q = 0.5/89 = 0.0056, between min 193 and p1 193
  CHECK(out.back() == 247);
  // q = 10.5/89 = 0.118, between p5 228.6 and p25 241: 228.6 + 12.4 x (0.118 - 0.05) / 0.2 = 232.8
  CHECK(out[10] == 233);
}

TEST_CASE("AIPerf's current layouts: time_to_first_token per record and flat summaries", "[trace][exports]") {
  // The record of docs/tutorials/working-with-profile-exports.md (ai-dynamo/aiperf@db4f639),
  // its second token as time_to_second_token (the page repeats the TTFT key there by mistake).
  const std::string rec =
      "{\"metadata\": {\"session_num\": 45, \"request_start_ns\": 1759813207532900363, \"request_ack_ns\": "
      "1759813207650730976, \"request_end_ns\": 1759813207838764604, \"benchmark_phase\": \"profiling\", "
      "\"was_cancelled\": false, \"cancellation_time_ns\": null}, \"metrics\": {\"input_sequence_length\": "
      "{\"value\": 550, \"unit\": \"tokens\"}, \"time_to_first_token\": {\"value\": 255.88656799999998, \"unit\": "
      "\"ms\"}, \"request_latency\": {\"value\": 297.52522799999997, \"unit\": \"ms\"}, \"output_token_count\": "
      "{\"value\": 9, \"unit\": \"tokens\"}, \"time_to_second_token\": {\"value\": 4.8984369999999995, \"unit\": "
      "\"ms\"}, \"inter_chunk_latency\": {\"value\": [4.898437, 5.316006, 4.801489, 5.674918, 4.811467, 5.097998, "
      "5.504797, 5.533548], \"unit\": \"ms\"}, \"output_sequence_length\": {\"value\": 9, \"unit\": \"tokens\"}, "
      "\"inter_token_latency\": {\"value\": 5.2048325, \"unit\": \"ms\"}, \"output_token_throughput_per_user\": "
      "{\"value\": 192.1291415237666, \"unit\": \"tokens/sec/user\"}}, \"error\": null}\n";
  std::vector<double> itl;
  const auto m = read_measured_aiperf(temp_file("current.jsonl", rec), &itl);
  REQUIRE(m.size() == 1);
  CHECK(*m[0].ttft_ms == Approx(255.88656799999998));
  CHECK(*m[0].e2e_ms == Approx(297.52522799999997));
  // (297.525 - 255.887) / (9 - 1) = 5.2048: AIPerf's inter_token_latency is servesim's TPOT.
  CHECK(*m[0].tpot_ms == Approx(5.2048325));
  CHECK(itl.size() == 8);  // 8 chunk gaps for 9 tokens: one token per chunk
  // Output length from the answer and the reasoning when output_sequence_length is absent.
  const std::string split =
      "{\"metadata\": {\"request_start_ns\": 1}, \"metrics\": {\"input_sequence_length\": {\"value\": 10}, "
      "\"output_token_count\": {\"value\": 61}, \"reasoning_token_count\": {\"value\": 132}, "
      "\"request_latency\": {\"value\": 100, \"unit\": \"ms\"}}, \"error\": null}\n";
  CHECK(records(temp_file("split.jsonl", split))[0].output_tokens == 193);
}

TEST_CASE("unknown layouts are errors that say what the file holds", "[trace][exports][errors]") {
  SECTION("an AIPerf record without request_latency") {
    const auto p = temp_file("nolat.jsonl",
                             "{\"metadata\": {\"request_start_ns\": 1}, \"metrics\": {\"input_sequence_length\": "
                             "{\"value\": 10}, \"output_sequence_length\": {\"value\": 5}, \"e2e_latency\": {\"value\": "
                             "9}}, \"error\": null}\n");
    CHECK_THROWS_WITH(records(p), Contains("without metrics.request_latency") && Contains("e2e_latency"));
  }
  SECTION("a streamed AIPerf record whose TTFT has a new name") {
    const auto p = temp_file("nottft.jsonl",
                             "{\"metadata\": {\"request_start_ns\": 1}, \"metrics\": {\"input_sequence_length\": "
                             "{\"value\": 10}, \"output_sequence_length\": {\"value\": 3}, \"request_latency\": "
                             "{\"value\": 9}, \"first_token_latency\": {\"value\": 3}, \"inter_chunk_latency\": "
                             "{\"value\": [3, 3]}}, \"error\": null}\n");
    CHECK_THROWS_WITH(records(p), Contains("without time_to_first_token or ttft") && Contains("first_token_latency"));
  }
  SECTION("a metric AIPerf never defined is named in a warning") {
    take_warnings();
    const auto p = temp_file("extra.jsonl",
                             "{\"metadata\": {\"request_start_ns\": 1}, \"metrics\": {\"input_sequence_length\": "
                             "{\"value\": 10}, \"output_sequence_length\": {\"value\": 1}, \"request_latency\": "
                             "{\"value\": 9}, \"time_to_first_token\": {\"value\": 9}, \"kv_hit_latency\": {\"value\": "
                             "1}}, \"error\": null}\n");
    records(p);
    const auto w = take_warnings();
    REQUIRE(w.size() == 1);
    CHECK_THAT(w[0], Contains("kv_hit_latency"));
  }
  SECTION("a summary whose metrics are in neither layout") {
    const auto p = temp_file("summary_x.json",
                             "{\"results\": {\"ttft\": {\"mean\": 1}}, \"input_config\": {\"loadgen\": {}}}\n");
    CHECK_THROWS_WITH(detect_trace_format(p), Contains("no trace layout servesim knows") && Contains("results"));
    CHECK_THROWS_WITH(read_measured_aiperf_summary(p), Contains("not a summary layout") && Contains("results"));
  }
  SECTION("a JSON document of no tool") {
    const auto p = temp_file("other.json", "{\"foo\": 1, \"bar\": [1, 2]}\n");
    CHECK_THROWS_WITH(detect_trace_format(p), Contains("keys: foo, bar") || Contains("keys: bar, foo"));
  }
  SECTION("a GuideLLM request whose measurements moved") {
    const auto p = temp_file("g.json",
                             "{\"benchmarks\": [{\"requests\": {\"successful\": [{\"request_start_time\": 1, "
                             "\"prompt_tokens\": 5, \"output_tokens\": 2, \"timings\": {\"ttft\": 3}}]}}]}\n");
    CHECK_THROWS_WITH(records(p), Contains("not a GuideLLM request layout") && Contains("timings"));
  }
  SECTION("a vllm_bench read of a statistics-only file points to vllm_bench_summary") {
    CHECK_THROWS_WITH(records(hand("vllm_bench_serve_summary.json"), TraceFormat::vllm_bench),
                      Contains("vllm_bench_summary"));
  }
}

TEST_CASE("real GuideLLM report (v0.3, JSON and YAML): every measured field", "[trace][exports][real]") {
  for (const char* name : {"guidellm_v0.3_benchmarks_stripped.json", "guidellm_v0.3_benchmarks_stripped.yaml"}) {
    const std::string path = real(name);
    CHECK(detect_trace_format(path) == TraceFormat::guidellm);
    const auto m = read_measured_guidellm(path);
    REQUIRE(m.size() == 1);
    CHECK(m[0].input_tokens == 257);
    CHECK(m[0].output_tokens == 128);
    CHECK(*m[0].ttft_ms == Approx(21.281957626342773));
    CHECK(*m[0].tpot_ms == Approx(5.258346167136365));         // inter_token_latency_ms
    CHECK(*m[0].e2e_ms == Approx(689.1846656799316));          // request_latency 0.68918 s
    // (TTFT + 127 x TPOT = 21.28 + 667.81 = 689.09 ms, within 0.1 ms of the recorded E2E.)
    CHECK(*m[0].ttft_ms + 127 * *m[0].tpot_ms == Approx(*m[0].e2e_ms).epsilon(2e-4));
  }
}

TEST_CASE("vllm bench serve, current layouts: recorded send times and statistics-only files", "[trace][exports]") {
  SECTION("--save-detailed with start_times and queue_times: arrivals as recorded") {
    const std::string path = hand("vllm_bench_serve_detailed.json");
    CHECK(detect_trace_format(path) == TraceFormat::vllm_bench);
    const auto recs = records(path);
    REQUIRE(recs.size() == 4);
    // start_times - queue_times = 1000.0, 1000.0, 1000.0, 1000.0: all four issued at once
    // (request_rate inf); the last two waited 0.3 and 0.5 s for one of the 2 slots.
    for (const auto& r : recs) CHECK(r.time_ns == recs[0].time_ns);
    const auto m = read_measured_vllm_bench(path);
    CHECK(*m[0].e2e_ms == Approx(70.0));   // ttft 50 + itls 10 + 10
    CHECK(*m[0].tpot_ms == Approx(10.0));  // 20 ms over 3 - 1 tokens
    CHECK(*m[2].e2e_ms == Approx(40.0));   // one token: E2E = TTFT, no TPOT
    CHECK(!m[2].tpot_ms);
  }
  SECTION("start_times alone: the wait for a slot is part of the send time") {
    const auto p = temp_file("starts.json",
                             "{\"request_rate\": \"inf\", \"input_lens\": [10, 10], \"output_lens\": [2, 2], "
                             "\"start_times\": [5.0, 5.25], \"ttfts\": [0.1, 0.1], \"latencies\": [0.3, 0.2]}\n");
    const auto recs = records(p);
    CHECK(recs[1].time_ns - recs[0].time_ns == 250000000);
    // No itls: E2E from latencies, TPOT = (0.3 - 0.1) s / (2 - 1).
    const auto m = read_measured_vllm_bench(p);
    CHECK(*m[0].e2e_ms == Approx(300.0));
    CHECK(*m[0].tpot_ms == Approx(200.0));
  }
  SECTION("without --save-detailed: statistics, requests regenerated from the means") {
    const std::string path = hand("vllm_bench_serve_summary.json");
    CHECK(detect_trace_format(path) == TraceFormat::vllm_bench_summary);
    const MeasuredAggregate a = read_measured_vllm_bench_summary(path);
    CHECK(a.tool == "vllm bench serve");
    CHECK(a.requests == 200);  // completed 198 + failed 2: all were sent
    CHECK(a.errored == 2);
    CHECK(*a.request_rate == 4.0);
    REQUIRE(a.metrics.size() == 3);  // ttft, tpot, itl (e2el not in the default --percentile-metrics)
    CHECK(a.metrics[0].first == "ttft");
    CHECK(a.metrics[0].second.mean == 45.0);
    CHECK(a.metrics[0].second.p50 == 41.0);  // median_ttft_ms
    CHECK(a.metrics[0].second.p99 == 92.0);
    CHECK(std::isnan(a.metrics[0].second.p90));  // not in the file: not made up
    CHECK(a.metrics[2].first == "itl");
    const auto recs = records(path);
    REQUIRE(recs.size() == 200);
    // 202752 / 198 = 1024 prompt tokens, 25344 / 198 = 128 output tokens, every request.
    for (const auto& r : recs) {
      CHECK(r.input_tokens == 1024);
      CHECK(r.output_tokens == 128);
    }
    CHECK(recs.back().time_ns > 0);  // Poisson at 4 req/s, not all at once
  }
  SECTION("statistics-only with latencies and no e2el statistics: E2E from the latencies") {
    const auto p = temp_file("lat.json",
                             "{\"num_prompts\": 4, \"request_rate\": 1.0, \"completed\": 4, \"failed\": 0, "
                             "\"total_input_tokens\": 40, \"total_output_tokens\": 8, \"mean_ttft_ms\": 5, "
                             "\"median_ttft_ms\": 5, \"p99_ttft_ms\": 6, \"latencies\": [0.4, 0.1, 0.3, 0.2]}\n");
    const MeasuredAggregate a = read_measured_vllm_bench_summary(p);
    REQUIRE(a.metrics.size() == 2);
    CHECK(a.metrics[1].first == "e2e");
    CHECK(a.metrics[1].second.mean == Approx(250.0));  // (100 + 200 + 300 + 400) / 4
    CHECK(a.metrics[1].second.p50 == Approx(200.0));   // nearest rank: the 2nd of 4
    CHECK(a.metrics[1].second.max == Approx(400.0));
  }
}

TEST_CASE("validate replays the real AIPerf files and a vLLM statistics-only file", "[validation][exports][real]") {
  auto run = [](const std::string& path) {
    return validate_trace(trace_scenario(parse_yaml_text(kSetup), "test.yaml", path, TraceFormat::automatic));
  };
  SECTION("AIPerf records: TTFT, TPOT, ITL and E2E all compared") {
    const TraceValidation v = run(real("aiperf_2025-10-03_profile_export.jsonl"));
    for (const char* name : {"ttft", "tpot", "itl", "e2e"}) CHECK(metric(v, name));
    CHECK(metric(v, "ttft")->measured.count == 89);
  }
  SECTION("AIPerf summary under records") {
    const TraceValidation v = run(real("aiperf_2025-10-03_profile_export_aiperf.json"));
    CHECK(v.aggregate_only);
    for (const char* name : {"ttft", "tpot", "e2e"}) CHECK(metric(v, name));
    CHECK_THAT(v.replay_note, Contains("11 requests the file counts as errors are not replayed"));
  }
  SECTION("vLLM statistics: ITL against the simulation's per-token gaps") {
    const TraceValidation v = run(hand("vllm_bench_serve_summary.json"));
    CHECK(v.format == TraceFormat::vllm_bench_summary);
    REQUIRE(metric(v, "itl"));
    CHECK(metric(v, "itl")->measured.mean == 11.0);
    CHECK(metric(v, "itl")->predicted.count > 0);
    CHECK(std::isnan(metric(v, "ttft")->measured.p90));
  }
}
