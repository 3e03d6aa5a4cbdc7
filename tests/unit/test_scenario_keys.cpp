// The scenario's own key declarations (config/read_scenario.cpp, read_setup.cpp,
// read_parallelism.cpp, read_engine.cpp, read_slo.cpp, read_plan.cpp) against the
// spec structs they fill and the readers that read them.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "config/key_registry.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "util/error.h"

using namespace servesim;
using Catch::Matchers::Contains;

namespace {

const std::string kSetup = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const KeySection* section_at(std::string_view path) {
  for (const KeySection* s : config_sections())
    if (s->path == path && s->variant.empty()) return s;
  return nullptr;
}

}  // namespace

TEST_CASE("scenario keys: an empty engine mapping reads as EngineConfig's defaults", "[config][scenario]") {
  const Setup s = parse_setup_only(parse_yaml_text(kSetup + "engine: {}\n"), "s.yaml");
  const EngineConfig d;
  CHECK(s.engine.kind == d.kind);
  CHECK(s.engine.max_num_seqs == d.max_num_seqs);
  CHECK(s.engine.max_num_batched_tokens == d.max_num_batched_tokens);
  CHECK(s.engine.block_size == d.block_size);
  CHECK(s.engine.gpu_memory_utilization == d.gpu_memory_utilization);
  CHECK(s.engine.prefix_caching == d.prefix_caching);
  CHECK(s.engine.chunked_prefill == d.chunked_prefill);
  CHECK(s.engine.max_model_len == s.model.max_context);  // 0 resolves to the model's context
  CHECK(s.engine.num_gpu_blocks_override == d.num_gpu_blocks_override);
  CHECK(s.engine.runtime_overhead_bytes == d.runtime_overhead_bytes);
  CHECK(s.engine.step_cpu_overhead == d.step_cpu_overhead);
  CHECK(s.engine.per_seq_cpu_overhead == d.per_seq_cpu_overhead);
  CHECK(s.engine.frontend_latency == d.frontend_latency);
  CHECK(s.engine.async_scheduling == d.async_scheduling);
  CHECK(s.engine.cpu_offload_bytes == d.cpu_offload_bytes);
  CHECK(s.engine.max_queue_memory_bytes == d.max_queue_memory_bytes);
  CHECK(s.engine.attention == d.attention);
  const Parallelism p;
  CHECK(s.parallelism.tp == p.tp);
  CHECK(s.parallelism.pp == p.pp);
  CHECK(s.parallelism.ep == p.ep);
  CHECK(s.parallelism.replicas == p.replicas);
  CHECK(s.router == Setup{}.router);
}

TEST_CASE("scenario keys: the engine's memory settings default to the memory planner's", "[config][scenario]") {
  const MemoryConfig from_engine = EngineConfig{}.memory_config();
  const MemoryConfig planner;
  CHECK(from_engine.gpu_memory_utilization == planner.gpu_memory_utilization);
  CHECK(from_engine.block_size == planner.block_size);
  CHECK(from_engine.max_num_batched_tokens == planner.max_num_batched_tokens);
  CHECK(from_engine.max_num_seqs == planner.max_num_seqs);
  CHECK(from_engine.runtime_overhead_bytes == planner.runtime_overhead_bytes);
}

TEST_CASE("scenario keys: every top-level section key has its section", "[config][scenario]") {
  const KeySection* top = section_at("");
  REQUIRE(top);
  for (const Key* k : top->keys) {
    if (k->type != KeyType::section) continue;
    INFO("top-level key " << k->name);
    CHECK(section_at(k->name) != nullptr);
  }
}

TEST_CASE("scenario keys: inspect and run accept the same top-level keys", "[config][scenario]") {
  // `router` and `kv_offload` were once accepted by inspect alone.
  for (const char* key : {"router: round_robin\n", "kv_offload: {}\n"}) {
    const ConfigNode doc = parse_yaml_text(kSetup + key);
    CHECK_THAT(error_of([&] { parse_setup_only(doc, "s.yaml"); }), Contains("unknown key"));
    CHECK_THAT(error_of([&] { parse_scenario(doc, "s.yaml", false); }), Contains("unknown key"));
  }
  // A bad schema_version is refused by both, through the one declaration.
  const ConfigNode v99 = parse_yaml_text("schema_version: 99\n" + kSetup);
  CHECK_THAT(error_of([&] { parse_setup_only(v99, "s.yaml"); }), Contains("schema_version 99 is not one"));
  CHECK_THAT(error_of([&] { parse_scenario(v99, "s.yaml", false); }), Contains("schema_version 99 is not one"));
}

TEST_CASE("scenario keys: a top-level plan section is checked by every command, not only plan",
          "[config][scenario]") {
  CHECK_NOTHROW(parse_scenario(parse_yaml_text(kSetup + "plan: {target_rate: 5, candidates: {tp: [1, 2]}}\n"),
                               "s.yaml", false));
  CHECK_THAT(error_of([] {
               parse_scenario(parse_yaml_text(kSetup + "plan: {candidates: {gpus: [h100-sxm]}}\n"), "s.yaml", false);
             }),
             Contains("plan.candidates.gpus: unknown key 'gpus'"));
}
