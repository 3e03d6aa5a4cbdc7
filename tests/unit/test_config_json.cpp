// summary.json describes what produced it: the resolved configuration.
#include <catch2/catch.hpp>

#include "scenario/config_json.h"
#include "test_sim_helpers.h"
#include "util/version.h"

using namespace servesim;
using namespace servesim::testing;

TEST_CASE("precision labels say W/A bits, the dtypes and the KV dtype", "[config]") {
  ResolvedPrecision p;
  p.weights = DType::fp8;
  p.compute = DType::fp8;
  p.kv_cache = DType::fp8;
  CHECK(precision_label(p) == "W8A8 fp8, KV fp8");
  p.compute = DType::bf16;
  p.kv_cache = DType::bf16;
  CHECK(precision_label(p) == "W8A16 fp8/bf16, KV bf16");
  p.weights = DType::int4;
  CHECK(precision_label(p) == "W4A16 int4/bf16, KV bf16");
}

TEST_CASE("the resolved configuration names everything a result depends on", "[config]") {
  const Scenario sc = scenario_from("{kind: vllm, max_num_seqs: 64, max_queue_memory: \"1 GiB\"}",
                                    "{requests: 30, arrival: {process: constant, rate: 3}, "
                                    "input_tokens: {dist: fixed, value: 100}, output_tokens: {dist: fixed, value: 10}}");
  const SimulationResult r = simulate(sc, {});
  const nlohmann::json j = resolved_config_json(sc, r.kv_blocks_per_replica, r.summary);
  CHECK(j["servesim_version"] == kServesimVersion);
  CHECK(j["scenario"] == "test.yaml");
  CHECK(j["gpu"] == "h100-sxm");
  CHECK(j["model"] == "llama-3.1-8b");
  CHECK(j["precision"]["label"] == "W16A16 bf16, KV bf16");
  CHECK(j["parallelism"]["tp"] == 1);
  CHECK(j["engine"]["max_num_seqs"] == 64);
  CHECK(j["engine"]["max_queue_memory_bytes"] == 1024.0 * 1024 * 1024);
  CHECK(j["engine"]["max_queue_memory_from_machine"] == false);
  CHECK(j["engine"]["max_model_len"] == sc.model.max_context);  // the default, resolved
  CHECK(j["kv_cache"]["blocks_per_replica"] == r.kv_blocks_per_replica);
  CHECK(j["kv_cache"]["tokens_per_replica"] == r.kv_blocks_per_replica * 16);
  // 30 constant arrivals 1/3 s apart: span 29/3 s, offered 30 / (29/3) = 90/29 req/s.
  CHECK(j["workload"]["offered"] == 30);
  CHECK(j["workload"]["offered_rps"].get<double>() == Approx(90.0 / 29.0));
}
