// `servesim plan --emit`: the launch commands and the Kubernetes Deployment of a
// planned configuration. Golden files (tests/fixtures/emit/*.golden) hold every byte;
// the checks below derive the values in them from the scenario, and every flag the
// files pass is one its engine declares (tests/fixtures/emit/engine_flags.txt, with
// the engines' sources).
#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "deploy/deployment.h"
#include "scenario/setup.h"
#include "util/error.h"

using namespace servesim;
using namespace servesim::deploy;
using Catch::Matchers::Contains;

namespace {

std::string fixture(const std::string& name) { return std::string(SERVESIM_TEST_FIXTURES) + "/emit/" + name; }

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Llama-3.1-70B, fp8 weights and KV on H100 TP 4, EAGLE k = 3 without a named head.
const char* kScenario =
    "hardware: {gpu: h100-sxm}\n"
    "model: {name: llama-3.1-70b, weights: fp8, kv_cache: fp8}\n"
    "parallelism: {tp: 4}\n"
    "engine: {kind: vllm, max_num_seqs: 128, max_num_batched_tokens: 4096, block_size: 16,\n"
    "         gpu_memory_utilization: 0.9, prefix_caching: true, max_model_len: 16384,\n"
    "         speculative: {method: eagle, num_speculative_tokens: 3, acceptance_rate: 0.7}}\n"
    "workload: {requests: 10, arrival: {process: poisson, rate: 1},\n"
    "           input_tokens: {dist: fixed, value: 100}, output_tokens: {dist: fixed, value: 10}}\n"
    "slo: {ttft_ms: {p99: 1000}, tpot_ms: {p99: 40}, attainment: 0.99}\n";

DeploymentPlan plan_of(const Scenario& sc) {
  DeploymentPlan p;
  p.scenario = &sc;
  p.label = "h100-sxm fp8 tp=4";
  p.source = "golden.yaml";
  p.replicas = 3;
  p.target_rate = 12;
  p.rate_per_replica = 4;
  p.ttft_p99_ms = 512.25;
  p.tpot_p99_ms = 33.5;
  p.e2e_p99_ms = 9876;
  p.attainment = 0.995;
  p.usd_per_hour = 35.88;
  p.usd_per_million_output_tokens = 1.234;
  p.joules_per_output_token = 0.5;
  return p;
}

std::map<std::string, std::string> emitted(const Scenario& sc, EmitTarget t) {
  std::map<std::string, std::string> out;
  for (const auto& f : emit_deployment(plan_of(sc), t)) out[f.name] = f.text;
  return out;
}

// "flag value" pairs of a shell command written one argument per line ("  --flag value \").
std::map<std::string, std::string> flags_of(const std::string& script) {
  std::map<std::string, std::string> out;
  std::istringstream in(script);
  std::string line;
  const std::regex arg(R"(^  (--[A-Za-z0-9_-]+)(?: (.*?))?( \\)?$)");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, arg)) out[m[1]] = m[2];
  return out;
}

std::set<std::string> accepted(const std::string& engine) {
  std::set<std::string> out;
  std::istringstream in(read(fixture("engine_flags.txt")));
  std::string e, flag;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream w(line);
    w >> e >> flag;
    if (e == engine) out.insert(flag);
  }
  return out;
}

}  // namespace

TEST_CASE("emit: the files match their golden copies byte for byte", "[deploy][emit]") {
  const Scenario sc = parse_scenario(parse_yaml_text(kScenario), "golden.yaml");
  for (const auto t : {EmitTarget::vllm, EmitTarget::sglang, EmitTarget::trtllm, EmitTarget::kubernetes})
    for (const auto& [name, text] : emitted(sc, t)) {
      INFO(name << " (regenerate: see tests/fixtures/emit/README.md)");
      if (std::getenv("SERVESIM_WRITE_EMIT_GOLDEN")) std::ofstream(fixture(name + ".golden"), std::ios::binary) << text;
      CHECK(text == read(fixture(name + ".golden")));
    }
}

TEST_CASE("emit: each engine gets the simulated settings under its own flag names", "[deploy][emit]") {
  const Scenario sc = parse_scenario(parse_yaml_text(kScenario), "golden.yaml");
  SECTION("vLLM") {
    const auto f = flags_of(emitted(sc, EmitTarget::vllm).at("launch-vllm.sh"));
    CHECK(f.at("--tensor-parallel-size") == "4");
    CHECK(f.at("--pipeline-parallel-size") == "1");
    CHECK(f.at("--max-num-seqs") == "128");
    CHECK(f.at("--max-num-batched-tokens") == "4096");
    CHECK(f.at("--block-size") == "16");
    CHECK(f.at("--gpu-memory-utilization") == "0.9");
    CHECK(f.at("--max-model-len") == "16384");
    CHECK(f.at("--kv-cache-dtype") == "fp8");
    CHECK(f.at("--quantization") == "fp8");  // W8A8 on an H100: vLLM's online fp8
    CHECK(f.count("--enable-prefix-caching"));
    CHECK(f.count("--enable-chunked-prefill"));
    CHECK(f.at("--speculative-config") ==
          R"('{"method": "eagle", "num_speculative_tokens": 3, "model": "EAGLE_HEAD_CHECKPOINT"}')");
  }
  SECTION("SGLang") {
    const auto f = flags_of(emitted(sc, EmitTarget::sglang).at("launch-sglang.sh"));
    CHECK(f.at("--tp-size") == "4");
    CHECK(f.at("--max-running-requests") == "128");
    CHECK(f.at("--chunked-prefill-size") == "4096");
    CHECK(f.at("--page-size") == "16");
    CHECK(f.at("--mem-fraction-static") == "0.9");
    CHECK(f.at("--context-length") == "16384");
    CHECK(f.at("--kv-cache-dtype") == "fp8_e4m3");
    CHECK(f.count("--disable-radix-cache") == 0);  // prefix caching on
    CHECK(f.at("--speculative-algorithm") == "EAGLE");
    CHECK(f.at("--speculative-num-steps") == "3");
    CHECK(f.at("--speculative-num-draft-tokens") == "4");  // k + 1: the chain of 3 drafts and the bonus token
  }
  SECTION("TensorRT-LLM: the KV fraction is of the memory left after weights and buffers") {
    const auto files = emitted(sc, EmitTarget::trtllm);
    const auto f = flags_of(files.at("launch-trtllm.sh"));
    CHECK(f.at("--tp_size") == "4");
    CHECK(f.at("--max_batch_size") == "128");
    CHECK(f.at("--max_num_tokens") == "4096");
    CHECK(f.at("--max_seq_len") == "16384");
    // vLLM keeps 0.9 x capacity for weights, activations, overhead and KV; TRT-LLM's
    // fraction applies to capacity - weights - activations - overhead, so the same KV bytes
    // are kv / that, rounded down to 2 decimals.
    const MemoryPlan m = plan_setup_memory(sc, make_cost_model(sc));
    const double expected = std::floor(100 * m.kv_bytes / (m.capacity - m.weights - m.activations - m.runtime_overhead)) / 100;
    CHECK(std::stod(f.at("--kv_cache_free_gpu_memory_fraction")) == Approx(expected));
    CHECK(expected > 0.8);  // most of the free memory: 70B fp8 weights are 17.6 GB of 79.6 GB per GPU at TP 4
    const std::string yaml = files.at("trtllm-extra-options.yaml");
    const YAML::Node y = YAML::Load(yaml);
    CHECK(y["kv_cache_config"]["dtype"].as<std::string>() == "fp8");
    CHECK(y["kv_cache_config"]["enable_block_reuse"].as<bool>());
    CHECK(y["kv_cache_config"]["tokens_per_block"].as<int>() == 16);
    CHECK(y["speculative_config"]["decoding_type"].as<std::string>() == "Eagle");
    CHECK(y["speculative_config"]["max_draft_len"].as<int>() == 3);
  }
  SECTION("Kubernetes: replicas pods of tp x pp GPUs, running the vLLM arguments") {
    const std::string text = emitted(sc, EmitTarget::kubernetes).at("deployment.yaml");
    const std::vector<YAML::Node> docs = YAML::LoadAll(text);
    REQUIRE(docs.size() == 2);
    CHECK(docs[0]["kind"].as<std::string>() == "Deployment");
    CHECK(docs[0]["spec"]["replicas"].as<int>() == 3);
    const YAML::Node c = docs[0]["spec"]["template"]["spec"]["containers"][0];
    CHECK(c["resources"]["limits"]["nvidia.com/gpu"].as<int>() == 4);  // tp 4 x pp 1
    std::vector<std::string> args;
    for (const auto& a : c["args"]) args.push_back(a.as<std::string>());
    CHECK(args.front() == "meta-llama/Llama-3.1-70B");  // the model's Hugging Face id
    // The model, then each of vLLM's flags and its value (the on/off flags have none).
    std::vector<std::string> expected = {"meta-llama/Llama-3.1-70B"};
    for (const auto& [flag, value] : vllm_args(sc)) {
      expected.push_back(flag);
      if (!value.empty()) expected.push_back(value);
    }
    CHECK(args == expected);
    CHECK(docs[1]["kind"].as<std::string>() == "Service");
  }
  SECTION("the predicted SLO figures head every file") {
    for (const auto t : {EmitTarget::vllm, EmitTarget::sglang, EmitTarget::trtllm, EmitTarget::kubernetes})
      for (const auto& [name, text] : emitted(sc, t)) {
        CHECK_THAT(text, Contains("Predicted per replica at 4 req/s: TTFT p99 512 ms, TPOT p99 33.5 ms"));
        CHECK_THAT(text, Contains("SLOs: ttft_ms p99 <= 1000 ms, tpot_ms p99 <= 40 ms, attainment >= 99%"));
      }
  }
}

TEST_CASE("emit: every flag written is one its engine accepts", "[deploy][emit]") {
  // Both variants of the on/off settings and of the precisions, so every branch's flag is seen.
  for (const char* extra : {"", "--- off", "--- bf16", "--- int4"}) {
    std::string text = kScenario;
    if (std::string(extra) == "--- off")
      text = std::regex_replace(text, std::regex("prefix_caching: true"), "prefix_caching: false, chunked_prefill: false");
    // (without chunked prefill a whole prompt fits one step: vLLM refuses a budget under max_model_len)
    if (std::string(extra) == "--- off")
      text = std::regex_replace(text, std::regex("max_num_batched_tokens: 4096"), "max_num_batched_tokens: 16384");
    if (std::string(extra) == "--- bf16") text = std::regex_replace(text, std::regex("weights: fp8, kv_cache: fp8"), "weights: bf16");
    if (std::string(extra) == "--- int4") text = std::regex_replace(text, std::regex("weights: fp8"), "weights: int4");
    const Scenario sc = parse_scenario(parse_yaml_text(text), "flags.yaml");
    for (const auto& [engine, target, file] :
         {std::tuple<std::string, EmitTarget, std::string>{"vllm", EmitTarget::vllm, "launch-vllm.sh"},
          {"sglang", EmitTarget::sglang, "launch-sglang.sh"},
          {"trtllm", EmitTarget::trtllm, "launch-trtllm.sh"}}) {
      const auto ok = accepted(engine);
      REQUIRE(!ok.empty());
      for (const auto& [flag, value] : flags_of(emitted(sc, target).at(file))) {
        INFO(engine << " " << flag << " (" << extra << ")");
        CHECK(ok.count(flag) == 1);
      }
    }
  }
}

TEST_CASE("emit: what servesim cannot set is said, never guessed", "[deploy][emit]") {
  std::string text = std::regex_replace(std::string(kScenario), std::regex("weights: fp8"), "weights: int4");
  const Scenario sc = parse_scenario(parse_yaml_text(text), "int4.yaml");
  const std::string vllm = emitted(sc, EmitTarget::vllm).at("launch-vllm.sh");
  CHECK_THAT(vllm, Contains("serve a checkpoint quantized to int4"));
  CHECK(flags_of(vllm).count("--quantization") == 0);
  CHECK_THAT(vllm, Contains("EAGLE_HEAD_CHECKPOINT stands for the EAGLE head"));
  CHECK_THROWS_WITH(parse_emit_target("vlm"), Contains("did you mean 'vllm'"));
}

TEST_CASE("emit: names from the inputs cannot end a comment line of the script", "[deploy][emit]") {
  const Scenario sc = parse_scenario(parse_yaml_text(kScenario), "golden.yaml");
  DeploymentPlan p = plan_of(sc);
  // A scenario file named "x\nrm -rf ~\n.yaml": a raw newline would make "rm -rf ~" a command.
  p.source = "x\nrm -rf ~\n.yaml";
  for (const auto& f : emit_deployment(p, EmitTarget::vllm)) {
    CHECK_THAT(f.text, Contains("servesim plan x?rm -rf ~?.yaml --emit"));
    CHECK(f.text.find("\nrm -rf") == std::string::npos);
  }
  CHECK(detail::comment_safe("a\tb\rc\x7f") == "a?b?c?");
}
