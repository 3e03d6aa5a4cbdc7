// `servesim validate` input checks: a trace measured on another model is flagged, and
// rows that cannot be measurements (negative TTFT, negative inter-token gaps, an
// end-to-end time below the TTFT) are refused with where they are.
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "config/catalog_reader.h"
#include "test_sim_helpers.h"
#include "util/error.h"
#include "validation/trace_validation.h"
#include "workload/measured_requests.h"

using namespace servesim;
using servesim::testing::error_of;
using Catch::Contains;

namespace {
std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "servesim_test_validate_inputs";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

const char* kSetup = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n";

// Two requests of 100 input and 3 output tokens; TTFT 0.1 s, gaps 0.01 s.
std::string bench_json(const std::string& model_id, const std::string& ttfts = "[0.1, 0.1]",
                       const std::string& itls = "[[0.01, 0.01], [0.01, 0.01]]") {
  return "{\"model_id\": \"" + model_id + "\", \"request_rate\": 4.0, \"input_lens\": [100, 100], " +
         "\"output_lens\": [3, 3], \"ttfts\": " + ttfts + ", \"itls\": " + itls + "}";
}
}  // namespace

TEST_CASE("validate: the trace's model_id is compared with the scenario's model", "[validation][inputs]") {
  const ModelSpec m = load_model("llama-3.1-8b");
  // Same model under its Hugging Face name and an -Instruct suffix: no warning.
  CHECK_FALSE(model_id_mismatch("meta-llama/Llama-3.1-8B-Instruct", m).has_value());
  CHECK_FALSE(model_id_mismatch("llama-3.1-8b", m).has_value());
  CHECK_FALSE(model_id_mismatch("", m).has_value());
  // Another model: a warning naming both.
  const auto w = model_id_mismatch("meta-llama/Llama-2-70b-chat-hf", m);
  REQUIRE(w.has_value());
  CHECK_THAT(*w, Contains("model_id 'meta-llama/Llama-2-70b-chat-hf'") && Contains("simulates 'llama-3.1-8b'"));

  // Through validate_trace: the warning is carried in the result.
  const std::string other = temp_file("other_model.json", bench_json("meta-llama/Llama-2-70b-hf"));
  const TraceValidation v = validate_trace(trace_scenario(parse_yaml_text(kSetup), "t.yaml", other, TraceFormat::vllm_bench));
  REQUIRE(v.warnings.size() == 1);
  CHECK_THAT(v.warnings[0], Contains("model_id 'meta-llama/Llama-2-70b-hf'"));
  const std::string same = temp_file("same_model.json", bench_json("meta-llama/Llama-3.1-8B-Instruct"));
  CHECK(validate_trace(trace_scenario(parse_yaml_text(kSetup), "t.yaml", same, TraceFormat::vllm_bench)).warnings.empty());
}

TEST_CASE("validate: negative TTFTs and gaps in a vllm bench JSON are refused", "[validation][inputs]") {
  const std::string neg = temp_file("neg_ttft.json", bench_json("x", "[0.1, -0.05]"));
  CHECK_THAT(error_of([&] { read_measured_vllm_bench(neg, 1); }),
             Contains(neg + ": ttfts[1] is -0.05") && Contains(">= 0"));
  // A negative gap: e2e = 0.1 + 0.01 - 0.2 = -0.09 s, before the first token.
  const std::string gap = temp_file("neg_itl.json", bench_json("x", "[0.1, 0.1]", "[[0.01, 0.01], [0.01, -0.2]]"));
  CHECK_THAT(error_of([&] { read_measured_vllm_bench(gap, 1); }), Contains(gap + ": itls[1][1] is -0.2"));
}

TEST_CASE("validate: a CSV row with e2e_ms below ttft_ms is refused with its line", "[validation][inputs]") {
  const std::string path = temp_file("e2e_lt_ttft.csv",
                                     "arrival_s,input_tokens,output_tokens,ttft_ms,tpot_ms,e2e_ms\n"  // line 1
                                     "0.0,100,3,50,5,60\n"                                            // line 2: fine
                                     "0.5,100,3,80,5,40\n");                                          // line 3
  CHECK_THAT(error_of([&] { read_measured_csv(path); }),
             Contains(path + ":3") && Contains("e2e_ms 40 is less than ttft_ms 80"));
}

TEST_CASE("errors quote at most an excerpt of the input", "[validation][inputs]") {
  // A 20,000-character value: the error keeps 80 characters and says how long it was.
  std::string big = "[";
  for (int i = 0; i < 4000; ++i) {  // 4000 x 5 chars - 1 + 2
    if (i) big += ',';
    big += std::to_string(1000 + i);
  }
  big += "]";
  REQUIRE(big.size() == 20001);
  const std::string path =
      temp_file("huge_rate.json", "{\"request_rate\": " + big + ", \"input_lens\": [1], \"output_lens\": [1]}");
  const std::string e = error_of([&] { read_measured_vllm_bench(path, 1); });
  CHECK_THAT(e, Contains("'request_rate' must be a number") && Contains("... (20001 characters)"));
  // The message is the path, the sentence and 80 characters of the value, not 20 kB.
  CHECK(e.size() < path.size() + 200);
}
