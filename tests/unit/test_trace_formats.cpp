// Trace replay: each format from its fixture, and malformed files.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/rng.h"
#include "util/error.h"
#include "workload/measured_requests.h"
#include "workload/trace_reader.h"
#include "workload/trace_source.h"
#include "workload/workload_spec.h"

using namespace servesim;
using Catch::Matchers::Contains;

namespace {

std::string fixture(const std::string& name) { return std::string(SERVESIM_TEST_FIXTURES) + "/traces/" + name; }

WorkloadSpec trace_spec(const std::string& name, TraceFormat format = TraceFormat::automatic) {
  WorkloadSpec w;
  w.trace = TraceSpec{fixture(name), format, 1.0};
  return w;
}

std::vector<Request> replay(const WorkloadSpec& spec) {
  auto src = make_request_source(spec);
  std::vector<Request> out;
  while (auto r = src->next()) out.push_back(*r);
  REQUIRE(src->exhausted());
  return out;
}

std::vector<Request> replay(const std::string& name, TraceFormat format = TraceFormat::automatic) {
  return replay(trace_spec(name, format));
}

constexpr Nanos kSec = 1'000'000'000;
constexpr Nanos kMs = 1'000'000;

}  // namespace

TEST_CASE("formats are detected by extension and header", "[trace]") {
  CHECK(detect_trace_format(fixture("generic.csv")) == TraceFormat::csv);
  CHECK(detect_trace_format(fixture("generic_reordered.csv")) == TraceFormat::csv);
  CHECK(detect_trace_format(fixture("azure.csv")) == TraceFormat::azure);
  CHECK(detect_trace_format(fixture("mooncake.jsonl")) == TraceFormat::mooncake);
  CHECK(detect_trace_format(fixture("vllm_bench.json")) == TraceFormat::vllm_bench);
  CHECK(parse_trace_format("mooncake", "x") == TraceFormat::mooncake);
  CHECK_THROWS_WITH(parse_trace_format("mooncak", "scenario.yaml:3:11: workload.format"),
                    Contains("scenario.yaml:3:11: workload.format") && Contains("unknown trace format 'mooncak'") &&
                        Contains("did you mean 'mooncake'"));
}

TEST_CASE("detection reads the content, not only the extension", "[trace]") {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string mooncake_json = (dir / "servesim_test_mooncake_lines.json").string();
  const std::string azure_bom = (dir / "servesim_test_azure_bom.txt").string();
  {
    std::ofstream(mooncake_json) << "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [4, 5]}\n";
    std::ofstream(azure_bom) << "\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:15:46.68,10,2\r\n";
  }
  CHECK(detect_trace_format(mooncake_json) == TraceFormat::mooncake);
  CHECK(detect_trace_format(azure_bom) == TraceFormat::azure);
  WorkloadSpec w;
  w.trace = TraceSpec{mooncake_json, TraceFormat::automatic, 1.0};
  const auto m = replay(w);
  REQUIRE(m.size() == 1);
  CHECK(m[0].block_hashes == std::vector<std::uint64_t>{4});
  w.trace = TraceSpec{azure_bom, TraceFormat::automatic, 1.0};
  const auto a = replay(w);
  REQUIRE(a.size() == 1);
  CHECK(a[0].input_tokens == 10);
  CHECK(a[0].output_tokens == 2);
  std::remove(mooncake_json.c_str());
  std::remove(azure_bom.c_str());
}

TEST_CASE("generic CSV replays arrivals, lengths and hash ids", "[trace]") {
  const auto rs = replay("generic.csv");
  REQUIRE(rs.size() == 4);
  // Arrivals relative to the first row (10.0 s).
  CHECK(rs[0].arrival == 0);
  CHECK(rs[1].arrival == kSec / 4);
  CHECK(rs[2].arrival == kSec / 4);
  CHECK(rs[3].arrival == 5 * kSec / 2);
  for (std::size_t i = 0; i < rs.size(); ++i) CHECK(rs[i].id == static_cast<std::int64_t>(i));
  CHECK(rs[0].input_tokens == 40);
  CHECK(rs[0].output_tokens == 5);
  CHECK(rs[2].output_tokens == 1);
  // Only full 16-token blocks keep their ids: 40 tokens = 2 blocks.
  CHECK(rs[0].block_hashes == std::vector<std::uint64_t>{1, 2});
  CHECK(rs[0].hash_block_tokens == 16);
  CHECK(rs[1].block_hashes == std::vector<std::uint64_t>{1, 2});
  CHECK(rs[2].block_hashes.empty());
  CHECK(rs[2].hash_block_tokens == 0);
  CHECK(rs[3].block_hashes == std::vector<std::uint64_t>{7});
  CHECK(rs[0].session == -1);
}

TEST_CASE("generic CSV hash blocks follow workload.hash_block_tokens", "[trace]") {
  WorkloadSpec w = trace_spec("generic.csv");
  w.hash_block_tokens = 10;
  const auto rs = replay(w);
  CHECK(rs[0].block_hashes == std::vector<std::uint64_t>{1, 2, 3});  // 40 tokens: 4 blocks, 3 ids
  CHECK(rs[0].hash_block_tokens == 10);
  CHECK(rs[3].block_hashes == std::vector<std::uint64_t>{7});
}

TEST_CASE("generic CSV columns may come in any order, with extra columns and comments", "[trace]") {
  const auto rs = replay("generic_reordered.csv");
  REQUIRE(rs.size() == 2);
  CHECK(rs[0].input_tokens == 100);
  CHECK(rs[0].output_tokens == 5);
  CHECK(rs[1].input_tokens == 200);
  CHECK(rs[1].output_tokens == 8);
  CHECK(rs[1].arrival == kSec);
}

TEST_CASE("generic CSV errors name the file, the line and the problem", "[trace]") {
  CHECK_THROWS_WITH(replay("generic_missing_column.csv"),
                    Contains("generic_missing_column.csv:1") && Contains("missing required column output_tokens") &&
                        Contains("found columns: arrival_s, input_tokens, hash_ids") &&
                        Contains("required: arrival_s, input_tokens, output_tokens"));
  CHECK_THROWS_WITH(replay("generic_bad_columns.csv"),
                    Contains("generic_bad_columns.csv:3:") && Contains("expected 3 columns") && Contains("found 2"));
  CHECK_THROWS_WITH(replay("generic_bad_number.csv"),
                    Contains("generic_bad_number.csv:4:") && Contains("input_tokens 'abc' is not an integer"));
  CHECK_THROWS_WITH(replay("generic_negative.csv"),
                    Contains("generic_negative.csv:2:") && Contains("output_tokens must be >= 1 token, got -3"));
  CHECK_THROWS_WITH(replay("generic_decreasing.csv"),
                    Contains("generic_decreasing.csv:4:") && Contains("timestamps decrease") &&
                        Contains("line 3"));
  CHECK_THROWS_WITH(replay("generic_bad_hash.csv"),
                    Contains("generic_bad_hash.csv:2:") && Contains("hash_ids entry 'x'"));
  CHECK_THROWS_WITH(replay("no_such_trace.csv", TraceFormat::csv),
                    Contains("no_such_trace.csv") && Contains("cannot open"));
}

TEST_CASE("a generic CSV given as azure lists the columns it wanted", "[trace]") {
  CHECK_THROWS_WITH(replay("generic.csv", TraceFormat::azure),
                    Contains("missing required columns TIMESTAMP, ContextTokens, GeneratedTokens") &&
                        Contains("found columns: arrival_s"));
}

TEST_CASE("the measured latencies of a generic CSV are readable for validation", "[trace]") {
  const auto m = read_measured_csv(fixture("generic.csv"));
  REQUIRE(m.size() == 4);
  CHECK(m[0].index == 0);
  CHECK(m[0].arrival_s == 10.0);
  CHECK(m[0].input_tokens == 40);
  CHECK(m[0].output_tokens == 5);
  CHECK(m[0].ttft_ms.value() == 12.5);
  CHECK(m[0].tpot_ms.value() == 3.25);
  CHECK(m[0].e2e_ms.value() == 25.5);
  CHECK(m[2].ttft_ms.value() == 9.5);
  CHECK_FALSE(m[2].tpot_ms.has_value());
  CHECK_FALSE(m[3].ttft_ms.has_value());
  CHECK_FALSE(m[3].e2e_ms.has_value());
  // Without measured columns every latency is absent.
  const auto bare = read_measured_csv(fixture("generic_reordered.csv"));
  REQUIRE(bare.size() == 2);
  CHECK_FALSE(bare[0].ttft_ms.has_value());
}

TEST_CASE("Azure timestamps parse to nanoseconds, 7 fractional digits included", "[trace]") {
  const auto a = parse_azure_timestamp("2023-11-16 18:15:46.6805900");
  const auto b = parse_azure_timestamp("2023-11-16 18:15:50.9951690");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(*b - *a == 4'314'579'000);
  CHECK(*parse_azure_timestamp("1970-01-01 00:00:01") == kSec);
  CHECK(*parse_azure_timestamp("1970-01-01T00:00:00.5Z") == kSec / 2);
  CHECK(*parse_azure_timestamp("2024-05-10 01:00:00.000000+01:00") == *parse_azure_timestamp("2024-05-10 00:00:00"));
  CHECK(*parse_azure_timestamp("2023-11-16 18:15:46.123456789") % kSec == 123'456'789);
  CHECK_FALSE(parse_azure_timestamp("2023-11-16"));
  CHECK_FALSE(parse_azure_timestamp("2023-13-16 18:15:46"));
  CHECK_FALSE(parse_azure_timestamp("2023-11-16 18:15:4x.99"));
  CHECK_FALSE(parse_azure_timestamp("2023-11-16 18:15:46."));
}

TEST_CASE("Azure trace replays relative arrivals and lengths", "[trace]") {
  const auto rs = replay("azure.csv");
  REQUIRE(rs.size() == 4);
  CHECK(rs[0].arrival == 0);
  CHECK(rs[0].input_tokens == 374);
  CHECK(rs[0].output_tokens == 44);
  CHECK(rs[1].arrival == 4'314'579'000);  // 18:15:50.9951690 - 18:15:46.6805900
  CHECK(rs[1].input_tokens == 396);
  CHECK(rs[1].output_tokens == 109);
  for (const auto& r : rs) CHECK(r.block_hashes.empty());
  for (std::size_t i = 1; i < rs.size(); ++i) CHECK(rs[i].arrival >= rs[i - 1].arrival);
}

TEST_CASE("Azure arrivals cross midnight and the new year", "[trace]") {
  const auto rs = replay("azure_midnight.csv");
  REQUIRE(rs.size() == 2);
  CHECK(rs[1].arrival == 200 * kMs);
}

TEST_CASE("a malformed Azure timestamp errors with file and line", "[trace]") {
  CHECK_THROWS_WITH(replay("azure_bad.csv"),
                    Contains("azure_bad.csv:3:") && Contains("TIMESTAMP '2023-11-16 18:15:4x.9951690'"));
}

TEST_CASE("Mooncake JSONL replays ms timestamps and 512-token hash blocks", "[trace]") {
  const auto rs = replay("mooncake.jsonl");
  REQUIRE(rs.size() == 4);
  CHECK(rs[0].arrival == 0);
  CHECK(rs[1].arrival == 500 * kMs);
  CHECK(rs[2].arrival == 500 * kMs);
  CHECK(rs[3].arrival == 3250 * kMs);
  CHECK(rs[0].input_tokens == 1100);
  CHECK(rs[0].output_tokens == 50);
  // The id of a trailing partial block is dropped: 1100 tokens = 2 full blocks.
  CHECK(rs[0].block_hashes == std::vector<std::uint64_t>{0, 1});
  CHECK(rs[0].hash_block_tokens == 512);
  CHECK(rs[1].block_hashes == std::vector<std::uint64_t>{0, 1});
  CHECK(rs[2].block_hashes == std::vector<std::uint64_t>{0});
  CHECK(rs[3].block_hashes.empty());
  CHECK(rs[3].hash_block_tokens == 0);
}

TEST_CASE("malformed Mooncake lines error with file and line", "[trace]") {
  CHECK_THROWS_WITH(replay("mooncake_bad.jsonl"),
                    Contains("mooncake_bad.jsonl:3:") && Contains("not a JSON object"));
  CHECK_THROWS_WITH(replay("mooncake_missing_field.jsonl"),
                    Contains("mooncake_missing_field.jsonl:1:") && Contains("missing field 'output_length'"));
}

TEST_CASE("vllm bench results replay lengths with regenerated Poisson arrivals", "[trace]") {
  WorkloadSpec w = trace_spec("vllm_bench.json");
  w.seed = 7;
  auto src = make_request_source(w);
  CHECK(src->expected_total() == 5);
  std::vector<Request> rs;
  while (auto r = src->next()) rs.push_back(*r);
  REQUIRE(rs.size() == 5);
  CHECK(rs[0].input_tokens == 100);
  CHECK(rs[4].input_tokens == 500);
  CHECK(rs[1].output_tokens == 20);
  CHECK(rs[2].output_tokens == 1);  // 0 generated tokens (a failed request) is replayed as 1
  // vLLM's get_request(): Gamma(1, 1/rate) gaps, summed, rescaled so the last
  // arrival is n / rate; arrivals relative to the first.
  RandomStream rng(7, "arrivals");
  std::vector<double> t(5);
  double sum = 0;
  for (auto& x : t) x = (sum += rng.gamma(1.0, 1.0 / 4.0));
  for (auto& x : t) x *= (5.0 / 4.0) / sum;
  for (std::size_t i = 0; i < 5; ++i) CHECK(std::llabs(rs[i].arrival - to_nanos(t[i] - t[0])) <= 1);
  // Another seed, other arrivals; the same seed, the same.
  WorkloadSpec w2 = w;
  w2.seed = 8;
  CHECK(replay(w2)[4].arrival != rs[4].arrival);
  CHECK(replay(w)[4].arrival == rs[4].arrival);
}

TEST_CASE("vllm bench at an infinite rate sends at t = 0, capped by max_concurrency", "[trace]") {
  auto src = make_request_source(trace_spec("vllm_bench_inf.json"));
  auto a = src->next();
  auto b = src->next();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->arrival == 0);
  CHECK(b->arrival == 0);
  // max_concurrency 2: the third waits for a completion.
  CHECK_FALSE(src->next());
  CHECK_FALSE(src->exhausted());
  src->on_complete(*a, 7 * kSec);
  auto c = src->next();
  REQUIRE(c);
  CHECK(c->arrival == 7 * kSec);
  CHECK(c->input_tokens == 30);
  CHECK(src->exhausted());
}

TEST_CASE("a vllm bench result without per-request lengths says what is missing", "[trace]") {
  CHECK_THROWS_WITH(replay("vllm_bench_bad.json"),
                    Contains("vllm_bench_bad.json") && Contains("missing per-request list 'output_lens'"));
}

TEST_CASE("vllm bench measured latencies come from ttfts and itls", "[trace]") {
  const auto m = read_measured_vllm_bench(fixture("vllm_bench.json"), 7);
  REQUIRE(m.size() == 5);
  CHECK(m[0].ttft_ms.value() == Approx(100.0));
  CHECK(m[0].e2e_ms.value() == Approx(190.0));
  CHECK(m[0].tpot_ms.value() == Approx(10.0));  // 90 ms over 9 tokens after the first
  CHECK_FALSE(m[2].ttft_ms.has_value());         // failed
  CHECK(m[3].e2e_ms.value() == Approx(400.0));
  CHECK_FALSE(m[3].tpot_ms.has_value());         // a single output token
  CHECK(m[4].tpot_ms.value() == Approx(1000.0 / 49.0));
  CHECK(m[4].arrival_s == Approx(5.0 / 4.0));
}
