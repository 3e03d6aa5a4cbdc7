// workload.trace in a scenario, the caps, and streaming through large traces.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "util/error.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"
#include "workload/trace_source.h"
#include "config/workload_reader.h"
#include "workload/workload_spec.h"

using namespace servesim;
using Catch::Matchers::Contains;

namespace {

const std::string kFixtures = std::string(SERVESIM_TEST_FIXTURES) + "/traces/";
constexpr Nanos kSec = 1'000'000'000;

// Parses a workload mapping as if it were in a scenario file in the fixtures'
// traces folder (relative trace paths resolve there).
WorkloadSpec load(const std::string& yaml) {
  const ConfigNode m_doc = parse_yaml_text(yaml);
  ConfigMap m(m_doc, kFixtures + "scenario.yaml", "workload");
  return parse_workload(m);
}

std::vector<Request> drain(RequestSource& src) {
  std::vector<Request> out;
  while (auto r = src.next()) out.push_back(*r);
  return out;
}

}  // namespace

TEST_CASE("workload.trace parses and resolves beside the scenario", "[trace]") {
  const WorkloadSpec w = load("trace: generic.csv\nformat: csv\ntime_scale: 0.5\nrequests: 3\nseed: 4\n");
  REQUIRE(w.trace);
  CHECK(w.trace->path == kFixtures + "generic.csv");
  CHECK(w.trace->format == TraceFormat::csv);
  CHECK(w.trace->time_scale == 0.5);
  CHECK(w.requests == 3);
  CHECK(w.seed == 4);
  CHECK_FALSE(w.hash_block_tokens);
  const WorkloadSpec d = load("trace: mooncake.jsonl\nhash_block_tokens: 256\n");
  CHECK(d.trace->format == TraceFormat::automatic);
  CHECK(d.trace->time_scale == 1.0);
  CHECK(d.hash_block_tokens.value() == 256);
  // An absolute path is kept as is.
  CHECK(load("trace: " + kFixtures + "azure.csv\n").trace->path == kFixtures + "azure.csv");
}

TEST_CASE("workload.trace rejects synthetic keys, unknown formats and missing files", "[trace]") {
  CHECK_THROWS_WITH(load("trace: generic.csv\narrival: {process: poisson, rate: 2}\n"),
                    Contains("scenario.yaml:2:1: workload.arrival") && Contains("not used with workload.trace"));
  CHECK_THROWS_WITH(load("trace: generic.csv\ninput_tokens: {dist: fixed, value: 3}\n"),
                    Contains("workload.input_tokens") && Contains("not used with workload.trace"));
  CHECK_THROWS_WITH(load("trace: generic.csv\nshared_prefix: {groups: 2, tokens: 10}\n"),
                    Contains("workload.shared_prefix"));
  CHECK_THROWS_WITH(load("trace: generic.csv\nformat: mooncak\n"),
                    Contains("workload.format") && Contains("did you mean 'mooncake'"));
  CHECK_THROWS_WITH(load("trace: nowhere.csv\n"),
                    Contains("workload.trace") && Contains("trace file 'nowhere.csv' not found"));
  CHECK_THROWS_WITH(load("trace: generic.csv\ntime_scale: 0\n"), Contains("workload.time_scale: must be in [1e-06, 1e+06]") && Contains("got 0"));
  CHECK_THROWS_WITH(load("trace: generic.csv\ntrace_format: csv\n"), Contains("trace_format"));
  CHECK_THROWS_WITH(load("format: csv\narrival: {process: poisson, rate: 2}\nrequests: 5\n"
                         "input_tokens: {dist: fixed, value: 3}\noutput_tokens: {dist: fixed, value: 3}\n"),
                    Contains("workload.format") && Contains("only used with workload.trace"));
}

TEST_CASE("make_request_source replays the trace a scenario names", "[trace]") {
  const WorkloadSpec w = load("trace: generic.csv\n");
  auto src = make_request_source(w);
  CHECK(dynamic_cast<TraceSource*>(src.get()) != nullptr);
  CHECK(src->expected_total() == 4);
  CHECK(drain(*src).size() == 4);
  // The older name returns the same source.
  CHECK(dynamic_cast<TraceSource*>(make_synthetic_source(w).get()) != nullptr);
}

TEST_CASE("time_scale multiplies arrival offsets", "[trace]") {
  auto src = make_request_source(load("trace: generic.csv\ntime_scale: 2\n"));
  const auto rs = drain(*src);
  REQUIRE(rs.size() == 4);
  CHECK(rs[1].arrival == kSec / 2);
  CHECK(rs[3].arrival == 5 * kSec);
}

TEST_CASE("requests and duration cut a trace short", "[trace]") {
  auto capped = make_request_source(load("trace: generic.csv\nrequests: 2\n"));
  CHECK(capped->expected_total() == 2);
  CHECK(drain(*capped).size() == 2);
  CHECK(capped->exhausted());
  auto timed = make_request_source(load("trace: generic.csv\nduration: \"1 s\"\n"));
  CHECK(timed->expected_total() == -1);
  CHECK(drain(*timed).size() == 3);  // the 4th arrives at 2.5 s
}

TEST_CASE("a trace streams: records are read one ahead, whatever its length", "[trace]") {
  // Memory is not measured here; the reader holds one line (see trace_source.h).
  // A long generated trace replays in full, and a malformed row deep in it is
  // only found when the source reaches it, proving nothing parses it up front.
  const std::string path = (std::filesystem::temp_directory_path() / "servesim_test_trace_stream.csv").string();
  constexpr int kRows = 200000;
  constexpr int kBadRow = 150000;  // 0-based record index
  {
    std::ofstream out(path);
    out << "arrival_s,input_tokens,output_tokens,hash_ids\n";
    for (int i = 0; i < kRows; ++i) {
      out << i * 0.01 << ',' << (i == kBadRow ? std::string("oops") : std::to_string(32 + i % 100)) << ','
          << 1 + i % 7 << ",1 2\n";
    }
  }
  WorkloadSpec w;
  w.trace = TraceSpec{path, TraceFormat::csv, 1.0};
  w.requests = kBadRow;  // stop just before the bad row: never read
  {
    auto src = make_request_source(w);
    std::int64_t n = 0;
    Nanos last = -1;
    while (auto r = src->next()) {
      REQUIRE(r->id == n);
      REQUIRE(r->arrival >= last);
      last = r->arrival;
      ++n;
    }
    CHECK(n == kBadRow);
    CHECK(last == to_nanos((kBadRow - 1) * 0.01));
  }
  w.requests = -1;
  {
    auto src = make_request_source(w);
    CHECK(src->expected_total() == kRows);
    std::int64_t n = 0;
    // The request before the bad row reads it ahead, and throws.
    REQUIRE_THROWS_WITH(
        [&] {
          while (src->next()) ++n;
        }(),
        Contains(path + ":" + std::to_string(kBadRow + 2) + ":") && Contains("input_tokens 'oops'"));
    CHECK(n == kBadRow - 1);
  }
  std::remove(path.c_str());
}

TEST_CASE("the shipped sample traces replay", "[trace]") {
  const std::string data = std::string(SERVESIM_TEST_DATA) + "/traces/";
  struct Case {
    std::string file;
    std::int64_t count;
  };
  for (const Case& c : {Case{"azure_code.first1000.csv", 999}, Case{"azure_conv.first1000.csv", 999},
                        Case{"mooncake_conversation.first1000.jsonl", 1000},
                        Case{"mooncake_synthetic.first1000.jsonl", 1000},
                        Case{"vllm_bench_serve_llama405b_mi300x.json", 1000}}) {
    INFO(c.file);
    WorkloadSpec w;
    w.trace = TraceSpec{data + c.file, TraceFormat::automatic, 1.0};
    auto src = make_request_source(w);
    CHECK(src->expected_total() == c.count);
    const auto rs = drain(*src);
    CHECK(static_cast<std::int64_t>(rs.size()) == c.count);
    for (std::size_t i = 1; i < rs.size(); ++i) REQUIRE(rs[i].arrival >= rs[i - 1].arrival);
    for (const auto& r : rs) {
      REQUIRE(r.input_tokens >= 1);
      REQUIRE(r.output_tokens >= 1);
      REQUIRE(r.block_hashes.size() <= static_cast<std::size_t>(r.input_tokens / 16));
    }
  }
}
