// Sharded sweeps (sim/planning/sweep_shard.h): shard K of N runs the points with
// i mod N == K; the shard files of all K merge into exactly the unsharded rows, and
// the merge refuses shard sets that do not make one whole sweep.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "config/yaml_text.h"
#include "planning/sweep.h"
#include "planning/sweep_checkpoint.h"
#include "planning/sweep_shard.h"
#include "util/error.h"

using namespace servesim;
using namespace servesim::planning;
using Catch::Contains;

namespace {

const char* kScenario =
    "hardware: {gpu: h100-sxm}\n"
    "model: {name: llama-3.1-8b}\n"
    "workload:\n"
    "  seed: 5\n"
    "  requests: 30\n"
    "  arrival: {process: poisson, rate: 4}\n"
    "  input_tokens: {dist: uniform, min: 100, max: 300}\n"
    "  output_tokens: {dist: uniform, min: 10, max: 40}\n";

// 3 rates x 2 batch limits = 6 points of a few milliseconds each.
std::vector<SweepAxis> axes() {
  return {parse_vary("workload.arrival.rate=2,4,6"), parse_vary("engine.max_num_seqs=32,64")};
}

std::string shard_text(std::size_t k, std::size_t n, const std::string& fingerprint = "f1") {
  SweepOptions opt;
  opt.threads = 2;
  return run_sweep_shard(parse_yaml_text(kScenario), "t.yaml", axes(), opt, Shard{k, n}, fingerprint);
}

// Lines after the header: the shard's points.
std::size_t point_lines(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines - 1;
}

}  // namespace

TEST_CASE("shard K/N: 0 <= K < N, counted from 0") {
  CHECK(parse_shard("0/1").index == 0);
  CHECK(parse_shard("3/8").count == 8);
  for (const char* bad : {"1/1", "2/1", "0/0", "-1/2", "a/2", "1", "1/2/3", " 1/2", "1/2 ", "/2", "1/"})
    CHECK_THROWS_WITH(parse_shard(bad), Contains("expected K/N"));
  // Round robin: point 7 of shards of 3 is in shard 1 (7 = 2*3 + 1).
  CHECK(in_shard(7, Shard{1, 3}));
  CHECK_FALSE(in_shard(7, Shard{0, 3}));
}

TEST_CASE("shards merged in any order are the unsharded sweep's CSV and JSON") {
  SweepOptions opt;
  opt.threads = 1;
  const auto whole = run_sweep_checkpointed(parse_yaml_text(kScenario), "t.yaml", axes(), opt, "", "");
  const std::string s0 = shard_text(0, 4), s1 = shard_text(1, 4), s2 = shard_text(2, 4), s3 = shard_text(3, 4);
  // 6 points over 4 shards: points {0,4}, {1,5}, {2}, {3}.
  CHECK(point_lines(s0) == 2);
  CHECK(point_lines(s1) == 2);
  CHECK(point_lines(s2) == 1);
  CHECK(point_lines(s3) == 1);
  const MergedSweep m = merge_sweep_shards({{"s2", s2}, {"s0", s0}, {"s3", s3}, {"s1", s1}});
  CHECK(sweep_output_text(m, false) == records_csv(whole.records, axes()));
  CHECK(sweep_output_text(m, true) == records_json(whole.records).dump(2) + "\n");
}

TEST_CASE("a merge refuses shard sets that are not one whole sweep") {
  const std::string s0 = shard_text(0, 2), s1 = shard_text(1, 2);
  CHECK_THROWS_WITH(merge_sweep_shards({{"a", s0}}), Contains("shard 1 of 2 missing"));
  CHECK_THROWS_WITH(merge_sweep_shards({{"a", s0}, {"b", s0}, {"c", s1}}), Contains("given twice: a and b"));
  CHECK_THROWS_WITH(merge_sweep_shards({{"a", s0}, {"b", shard_text(1, 2, "f2")}}), Contains("different sweeps"));
  CHECK_THROWS_WITH(merge_sweep_shards({{"a", s0}, {"b", shard_text(1, 3)}}),
                    Contains("must split the sweep the same way"));
  CHECK_THROWS_WITH(merge_sweep_shards({{"a", s0}, {"b", s1.substr(0, s1.size() - 5)}}), Contains("cut short"));
  CHECK_THROWS_WITH(merge_sweep_shards({{"a", s0}, {"b", "point,rate\n1,2\n"}}),
                    Contains("b: not a servesim sweep shard file"));
  // A shard file that lost a point line (whole lines, so not "cut short").
  const std::string header_only = s1.substr(0, s1.find('\n') + 1);
  CHECK_THROWS_WITH(merge_sweep_shards({{"a", s0}, {"b", header_only}}),
                    Contains("b: point 1 is missing"));
  CHECK_THROWS_WITH(merge_sweep_shards({}), Contains("give the shard files"));
  // A damaged header claiming 10^15 shards: refused at once, naming the first missing ones.
  std::string huge = s0.substr(0, s0.find('\n') + 1);  // the header alone: no point in the wrong shard
  huge.replace(huge.find("\"shard\":[0,2]"), 13, "\"shard\":[0,1000000000000000]");
  // 10^15 - 1 missing; the first 10 named: 999999999999999 - 10 = 999999999999989 more.
  CHECK_THROWS_WITH(merge_sweep_shards({{"a", huge}}),
                    Contains("shards 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 999999999999989 more of "
                             "1000000000000000 missing"));
}
