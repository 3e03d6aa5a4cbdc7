// Inputs that used to abort the process (an exception that was not a servesim::Error
// reached main()) or were read wrongly: each must now be a servesim::Error naming the
// file and, where there is one, the place and key. Reproducers 01-03 of
// /work/shared/reliability/crashes are copied into tests/fixtures/robust/.
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "core/rng.h"
#include "run/simulation.h"
#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/paths.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"
#include "validation/vllm_experiments.h"
#include "workload/trace_reader.h"

using namespace servesim;
using Catch::Contains;

namespace {

const std::string kRobust = std::string(SERVESIM_TEST_FIXTURES) + "/robust";

// Reads every record of a trace (the readers fail lazily, record by record).
void read_all(const std::string& path, TraceFormat format) {
  auto reader = open_trace_reader(path, format);
  while (reader->read()) {
  }
}

Scenario quickstart_with(const std::string& set) {
  return load_scenario(std::string(SERVESIM_TEST_DATA) + "/../scenarios/quickstart.yaml", {set});
}

}  // namespace

// --- 01: YAML mapping keys that are not scalars ------------------------------------

TEST_CASE("robust: a list as a top-level YAML key is an error at its line and column", "[robust]") {
  // Line 4 of the fixture is "? [a]": the key node [a] starts at column 3.
  REQUIRE_THROWS_AS(load_scenario(kRobust + "/nonscalar_key.yaml"), Error);
  REQUIRE_THROWS_WITH(load_scenario(kRobust + "/nonscalar_key.yaml"),
                      Contains("nonscalar_key.yaml:4:3") && Contains("(top level)") &&
                          Contains("mapping keys must be plain names"));
}

TEST_CASE("robust: a mapping key inside a section, from a file or --set, names the section", "[robust]") {
  const ConfigNode root_doc = parse_yaml_text("engine:\n  {x: 1}: 2\n");
  ConfigMap root(root_doc, "s.yaml");  // key at line 2, column 3
  REQUIRE_THROWS_WITH(root.map("engine"), Contains("s.yaml:2:3") && Contains("engine:") &&
                                              Contains("mapping keys must be plain names, not a mapping"));
  // The --set forms of reproducer 01.
  REQUIRE_THROWS_WITH(quickstart_with("engine={[x]: 1}"),
                      Contains("engine") && Contains("mapping keys must be plain names, not a list"));
  REQUIRE_THROWS_WITH(quickstart_with("workload.multi_turn={a: 1}:"),
                      Contains("workload.multi_turn") && Contains("mapping keys must be plain names"));
}

TEST_CASE("robust: a list key in a document built in code is refused too", "[robust]") {
  // No file position: the error still says what is wrong (before: a bad conversion
  // from as<std::string>() on the key, which escaped as a yaml-cpp exception).
  ConfigNode n = ConfigNode::map();
  ConfigNode key = ConfigNode::sequence();
  key.items().push_back(ConfigNode::scalar("a"));
  n.entries().push_back({key, ConfigNode::scalar("1")});
  n.set("rate", ConfigNode::scalar("2"));
  REQUIRE_THROWS_WITH(ConfigMap(n, "f.yaml"), Contains("mapping keys must be plain names"));
}

// --- 02: JSON numbers beyond double range -------------------------------------------

TEST_CASE("robust: a config.json number beyond double range names the file", "[robust]") {
  const std::string path = kRobust + "/config_1e999.json";  // "rope_theta": 1e999
  REQUIRE_THROWS_AS(import_hf_config(path), Error);
  REQUIRE_THROWS_WITH(import_hf_config(path), Contains("config_1e999.json: not valid JSON") &&
                                                  Contains("number overflow parsing '1e999'"));
}

TEST_CASE("robust: an experiments file number beyond double range names the file", "[robust]") {
  const std::string path = kRobust + "/experiments_1e999.json";
  REQUIRE_THROWS_AS(load_vllm_experiments(path), Error);
  REQUIRE_THROWS_WITH(load_vllm_experiments(path), Contains("experiments_1e999.json") && Contains("1e999"));
}

TEST_CASE("robust: a JSON field of the wrong type is an Error, not a nlohmann exception", "[robust]") {
  // experiments.key is a number: get<std::string>() throws nlohmann's type_error.
  const std::string dir = (std::filesystem::temp_directory_path() / "servesim-robust-json").string();
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/bad_type.json";
  {
    std::ofstream f(path);
    f << R"({"experiments": [{"key": 5}]})" << "\n";
  }
  REQUIRE_THROWS_AS(load_vllm_experiments(path), Error);
  REQUIRE_THROWS_WITH(load_vllm_experiments(path), Contains("bad_type.json: unexpected layout"));
  std::filesystem::remove_all(dir);
}

// --- 03: gamma parameters that under/overflow ---------------------------------------

TEST_CASE("robust: gamma cv whose shape 1/cv^2 leaves double range is refused by key", "[robust]") {
  // cv = 1e200: 1/cv^2 underflows to 0; cv = 1e-200: it overflows to inf.
  for (const char* cv : {"1e200", "1e-200"}) {
    INFO(cv);
    REQUIRE_THROWS_WITH(quickstart_with(std::string("workload.arrival={process: gamma, rate: 8, cv: ") + cv + "}"),
                        Contains("workload.arrival.cv: must be in [1e-06, 1e+06]") && Contains("leave double range"));
  }
  // The ends of the range are accepted (shape 1e-12 and 1e12, scale finite at 8/s).
  CHECK_NOTHROW(quickstart_with("workload.arrival={process: gamma, rate: 8, cv: 1e6}"));
  CHECK_NOTHROW(quickstart_with("workload.arrival={process: gamma, rate: 8, cv: 1e-6}"));
}

TEST_CASE("robust: vllm bench burstiness 1e308 is refused with its range", "[robust]") {
  // request_rate 16 x burstiness 1e308 = inf: the gamma scale would be 0.
  REQUIRE_THROWS_WITH(simulate(load_scenario(kRobust + "/replay_burstiness_1e308.yaml")),
                      Contains("vllm_bench_burstiness_1e308.json") &&
                          Contains("burstiness must be between 1e-06 and 1e+06") && Contains("1e+308"));
}

TEST_CASE("robust: RandomStream::gamma throws servesim::Error on a non-finite or zero parameter", "[robust]") {
  RandomStream r(1, "t");
  CHECK_THROWS_AS(r.gamma(1.0, 0.0), Error);
  CHECK_THROWS_AS(r.gamma(1.0, std::numeric_limits<double>::infinity()), Error);
  CHECK_THROWS_AS(r.gamma(std::numeric_limits<double>::infinity(), 1.0), Error);
  CHECK_THROWS_WITH(r.gamma(0.0, 1.0), Contains("RandomStream::gamma"));
}

// --- a directory where a file is expected -------------------------------------------

TEST_CASE("robust: a directory given as an input file is named as one", "[robust]") {
  const std::string dir = kRobust;  // any existing directory
  const auto is_dir = Contains("is a directory, expected a file");
  CHECK_THROWS_WITH(load_yaml_file(dir), is_dir);
  CHECK_THROWS_WITH(load_scenario(dir), is_dir);
  CHECK_THROWS_WITH(read_text_file(dir), is_dir);
  CHECK_THROWS_WITH(read_json_file(dir), is_dir);
  CHECK_THROWS_WITH(load_vllm_experiments(dir), is_dir);
  // A model may be a Hugging Face model folder, so a directory there is read as one, and one
  // without a config.json is named as not being a model folder (also when its name ends in .json).
  const auto not_a_model_folder = Contains("a folder without a config.json (or Mistral's params.json): not a Hugging Face model folder");
  const auto json_dir = std::filesystem::temp_directory_path() / "servesim-robust-dir.json";
  std::filesystem::create_directories(json_dir);
  CHECK_THROWS_WITH(import_hf_config(json_dir.string()), not_a_model_folder);
  CHECK_THROWS_WITH(load_model(json_dir.string()), not_a_model_folder);
  std::filesystem::remove_all(json_dir);
  CHECK_THROWS_WITH(read_all(dir, TraceFormat::csv), is_dir);
  CHECK_THROWS_WITH(load_model(dir + "/"), not_a_model_folder);
  CHECK_THROWS_WITH(load_gpu(dir + "/"), is_dir);
}

TEST_CASE("robust: a missing input file gives the OS reason", "[robust]") {
  CHECK_THROWS_WITH(read_text_file(kRobust + "/no-such-file.txt"),
                    Contains("no-such-file.txt: cannot open: No such file or directory"));
}

// --- a trace cut short --------------------------------------------------------------

TEST_CASE("robust: a CSV trace without a final newline is an error naming its last line", "[robust]") {
  // The file ends "0.5,33,375" with no newline: it could be a cut of 3751 (or of 375.5).
  const std::string path = kRobust + "/generic_no_final_newline.csv";
  REQUIRE_THROWS_WITH(read_all(path, TraceFormat::csv),
                      Contains("generic_no_final_newline.csv:3: file ends without a newline: line 3 may be truncated"));
  REQUIRE_THROWS_WITH(simulate(load_scenario(kRobust + "/replay_no_final_newline.yaml")),
                      Contains("file ends without a newline"));
}

TEST_CASE("robust: a Mooncake JSONL trace without a final newline is an error", "[robust]") {
  const std::string path = kRobust + "/mooncake_no_final_newline.jsonl";
  REQUIRE_THROWS_WITH(read_all(path, TraceFormat::mooncake), Contains(":2: file ends without a newline"));
}

TEST_CASE("robust: every shipped trace ends in a newline (the check refuses none of them)", "[robust]") {
  const std::string traces = std::string(SERVESIM_TEST_FIXTURES) + "/traces";
  for (const char* name : {"generic.csv", "azure.csv", "mooncake.jsonl"}) {
    INFO(name);
    CHECK_NOTHROW(read_all(traces + "/" + name, TraceFormat::automatic));
  }
}

// --- Scenarios built from data: names are values, never YAML text --------------------

TEST_CASE("robust: an experiment whose names would break YAML text is read as a name", "[robust]") {
  // The loader maps names to catalog entries, so this needs a hand-made Experiment.
  // "h100: [" pasted into "hardware: {gpu: ...}" used to be a YAML syntax error; the
  // scenario is now built key by key, so it is looked up as the GPU name it is.
  Experiment e;
  e.key = "broken";
  e.gpu = "h100: [";
  e.model = "llama-3.1-8b";
  REQUIRE_THROWS_AS(experiment_scenario(e, {}), Error);
  REQUIRE_THROWS_WITH(experiment_scenario(e, {}),
                      Contains("experiment broken") && Contains("hardware.gpu") && Contains("unknown GPU 'h100: ['"));
}
