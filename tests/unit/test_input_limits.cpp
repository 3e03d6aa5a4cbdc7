// Numbers in range, no hangs, inputs never silently altered: every key that
// could overflow the nanosecond clock, wrap when narrowed to int, or be clipped
// without a word is refused with its location, the limit and the reason.
// Crash reproducers 04 (Azure year 2300), 05 (think_time 1e10 s hang) and 06
// (closed_loop with 1e9 users) from the reliability review are cases here.
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include <string>

#include "run/simulation.h"
#include "model/model_catalog.h"
#include "test_sim_helpers.h"
#include "util/error.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"
#include "config/config_ranges.h"
#include "workload/trace_reader.h"
#include "workload/trace_source.h"
#include "config/workload_reader.h"
#include "workload/workload_spec.h"
#include "config/scenario_reader.h"

using namespace servesim;
using namespace servesim::testing;
using Catch::Matchers::Contains;

namespace {

const std::string kLengths = "input_tokens: {dist: fixed, value: 100}, output_tokens: {dist: fixed, value: 10}";

std::string workload(const std::string& arrival, const std::string& extra = "requests: 10") {
  return "{" + extra + ", arrival: " + arrival + ", " + kLengths + "}";
}

// A scenario with one engine override (a flow mapping's inside) and the default workload.
std::string engine_error(const std::string& engine_keys) {
  return error_of([&] { scenario_from("{kind: vllm, " + engine_keys + "}", workload("{process: poisson, rate: 2}")); });
}

std::string workload_error(const std::string& wl) {
  return error_of([&] { scenario_from("{kind: vllm}", wl); });
}

const std::string kTraces = std::string(SERVESIM_TEST_FIXTURES) + "/traces/";

WorkloadSpec load_trace_workload(const std::string& yaml) {
  const ConfigNode m_doc = parse_yaml_text(yaml);
  ConfigMap m(m_doc, kTraces + "scenario.yaml", "workload");
  return parse_workload(m);
}

}  // namespace

TEST_CASE("integer keys are range-checked before they are narrowed to int", "[limits]") {
  // 4294967312 = 2^32 + 16: the old static_cast<int> kept the low 32 bits, 16.
  CHECK_THAT(engine_error("block_size: 4294967312"),
             Contains("test.yaml:4:22: engine.block_size") && Contains("must be one of 1, 8, 16, 32, 64, 128, 256") &&
                 Contains("got 4294967312"));
  // tp = 2^32 + 1 would have become tp = 1.
  CHECK_THAT(error_of([] { scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 4294967297}"); }),
             Contains("parallelism.tp: must be in [1, 1024]") && Contains("got 4294967297"));
  CHECK_THAT(error_of([] { scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{replicas: 1000000}"); }),
             Contains("parallelism.replicas: must be in [1, 10000]") && Contains("own engine and KV cache"));
  CHECK_THAT(engine_error("max_num_seqs: 0"), Contains("engine.max_num_seqs: must be in [1, 1000000]"));
  CHECK_THAT(engine_error("max_num_batched_tokens: -5"), Contains("engine.max_num_batched_tokens: must be in"));
}

TEST_CASE("block_size must be one of vLLM's sizes", "[limits]") {
  CHECK_THAT(engine_error("block_size: 7"), Contains("block_size must be one of") && Contains("got 7"));
  CHECK_THAT(engine_error("block_size: 0"), Contains("got 0"));
  for (int b : {1, 8, 16, 32, 64, 128, 256}) {
    INFO("block_size " << b);
    const Scenario sc =
        scenario_from("{kind: vllm, block_size: " + std::to_string(b) + "}", workload("{process: poisson, rate: 2}"));
    CHECK(sc.engine.block_size == b);
  }
}

TEST_CASE("schema_version: only the version servesim knows", "[limits]") {
  const std::string base = "hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\n";
  CHECK_NOTHROW(parse_scenario(parse_yaml_text("schema_version: 1\n" + base), "s.yaml", false));
  CHECK_THAT(error_of([&] { parse_scenario(parse_yaml_text("schema_version: 99\n" + base), "s.yaml", false); }),
             Contains("s.yaml:1:1: schema_version") && Contains("schema_version 99 is not one") &&
                 Contains("version 1 only"));
}

TEST_CASE("max_model_len may not exceed the model's context length", "[limits]") {
  // Llama-3.1-8B: max_position_embeddings 131072.
  CHECK_THAT(engine_error("max_model_len: 200000"),
             Contains("engine.max_model_len: max_model_len 200000 is longer than llama-3.1-8b's context length of "
                      "131072 tokens"));
  const Scenario ok = scenario_from("{kind: vllm, max_model_len: 131072}", workload("{process: poisson, rate: 2}"));
  CHECK(ok.engine.max_model_len == 131072);
  CHECK_THAT(engine_error("max_model_len: 0"), Contains("engine.max_model_len: must be in [1, 100000000]"));
}

TEST_CASE("chunked_prefill off needs a token budget that fits the longest prompt", "[limits]") {
  // Without chunked prefill a prompt is scheduled whole; budget 8192 < 131072 tokens
  // would leave a 10k-token prompt waiting forever (the old code looped).
  CHECK_THAT(engine_error("chunked_prefill: false"),
             Contains("max_num_batched_tokens (8192) is smaller than max_model_len (131072)") &&
                 Contains("at least 131072"));
  // Equal budget and length: every admissible prompt fits one step.
  const Scenario ok = scenario_from("{kind: vllm, chunked_prefill: false, max_model_len: 8192}",
                                    workload("{process: poisson, rate: 2}"));
  CHECK(ok.engine.max_num_batched_tokens == 8192);
  // A 9000-token prompt is then failed as too long (9000 + 10 > 8192), not stuck,
  // and the 8000-token one (8010 <= 8192 tokens, one step of 8192) completes.
  VectorSource src({make_request(0.0, 9000, 10), make_request(0.0, 8000, 10)});
  const SimulationResult r = simulate(ok, src, {});
  CHECK(r.summary.failed == 1);
  CHECK(r.summary.completed == 1);
}

TEST_CASE("a quoted string is not a boolean", "[limits]") {
  CHECK_THAT(engine_error("prefix_caching: 'yes'"),
             Contains("engine.prefix_caching: expected true or false, got the quoted string 'yes'"));
  CHECK_THAT(engine_error("chunked_prefill: \"false\""), Contains("quoted string 'false'"));
  const Scenario sc = scenario_from("{kind: vllm, prefix_caching: true}", workload("{process: poisson, rate: 2}"));
  CHECK(sc.engine.prefix_caching);
  // From --set too (its values are re-tagged to say where they came from).
  const std::string quickstart = std::string(SERVESIM_TEST_DATA) + "/../scenarios/quickstart.yaml";
  CHECK_THAT(error_of([&] { load_scenario(quickstart, {"engine.prefix_caching='yes'"}); }),
             Contains("(--set): engine.prefix_caching: expected true or false, got the quoted string 'yes'"));
  CHECK_FALSE(load_scenario(quickstart, {"engine.prefix_caching=false"}).engine.prefix_caching);
}

TEST_CASE("negative durations and sizes are errors naming the key", "[limits]") {
  CHECK_THAT(engine_error("frontend_latency: \"-100 s\""), Contains("engine.frontend_latency: must be >= 0"));
  CHECK_THAT(engine_error("step_cpu_overhead: \"-1 s\""), Contains("engine.step_cpu_overhead: must be >= 0"));
  CHECK_THAT(engine_error("per_seq_cpu_overhead: \"-1 us\""), Contains("engine.per_seq_cpu_overhead: must be >= 0"));
  CHECK_THAT(engine_error("runtime_overhead: \"-100 GB\""),
             Contains("engine.runtime_overhead: must be >= 0 B") && Contains("got -100 GB"));
  CHECK_THAT(engine_error("cpu_offload: \"-5 GB\""), Contains("engine.cpu_offload: must be in [0 B, "));
}

TEST_CASE("one duration is at most 1e7 s (reproducer 05: think_time 1e10 s hung)", "[limits]") {
  const auto with_think = [](const std::string& t) {
    return workload("{process: poisson, rate: 2}", "requests: 10, multi_turn: {turns: 3, think_time: \"" + t + "\"}");
  };
  CHECK_THAT(workload_error(with_think("1e10 s")),
             Contains("workload.multi_turn.think_time: '1e10 s' is longer than the 1e+07 s"));
  CHECK_THAT(workload_error(with_think("1.0000001e7 s")), Contains("is longer than"));
  // The boundary itself is accepted: 1e7 s.
  CHECK(workload_error(with_think("1e7 s")) == "<no error>");
  // Units scale before the check: 2e5 min = 1.2e7 s.
  CHECK_THAT(engine_error("frontend_latency: \"2e5 min\""), Contains("is longer than"));
}

TEST_CASE("arrival rates the clock can represent", "[limits]") {
  // .inf used to pass rate > 0; 1e-300 put every gap at 1e300 s, which wrapped to
  // a negative time (every request at t = 0, or a hang).
  for (const std::string rate : {".inf", "1e-300", "1e-8", "2e9"}) {
    INFO("rate " << rate);
    CHECK_THAT(workload_error(workload("{process: poisson, rate: " + rate + "}")),
               Contains("workload.arrival.rate: must be in [1e-07, 1e+09]") && Contains("requests per second"));
  }
  CHECK_THAT(workload_error(workload("{process: poisson, rate: .nan}")),
             Contains("workload.arrival.rate: must be in [1e-07, 1e+09]") && Contains("got nan"));
  // A stage is checked at its own path.
  CHECK_THAT(workload_error("{arrival: {process: multi_stage, stages: [{process: poisson, rate: 1, requests: 5}, "
                            "{process: constant, rate: 1e-9, requests: 5}]}, " + kLengths + "}"),
             Contains("workload.arrival.stages[1].rate: must be in"));
}

TEST_CASE("the arrival schedule must end well inside the clock", "[limits]") {
  // 1e12 requests at 8/s: 1.25e11 s of arrivals, past the 1e8 s limit.
  CHECK_THAT(workload_error(workload("{process: poisson, rate: 8}", "requests: 1000000000000")),
             Contains("workload.requests: must be in [1, 1000000000]"));
  CHECK_THAT(workload_error(workload("{process: poisson, rate: 8}", "requests: 900000000")),
             Contains("spans about 1.12e+08 s, beyond the 1e+08 s"));  // 9e8 / 8 = 1.125e8 s
  // 8e8 / 8 = 1e8 s exactly: accepted.
  CHECK(workload_error(workload("{process: poisson, rate: 8}", "requests: 800000000")) == "<no error>");
  // A duration cap bounds the schedule whatever the count would imply.
  CHECK(workload_error(workload("{process: poisson, rate: 8}", "requests: 900000000, duration: \"1 h\"")) ==
        "<no error>");
  // Sessions: 1000 turns x 1e6 s apart = 9.99e8 s for the last turn.
  CHECK_THAT(workload_error(workload("{process: poisson, rate: 2}",
                                     "requests: 10, multi_turn: {turns: 1000, think_time: \"1e6 s\"}")),
             Contains("workload.multi_turn") && Contains("turns x think_time"));
  CHECK_THAT(workload_error(workload("{process: all_at_once}", "requests: 20000000")),
             Contains("must be in [1, 10000000]") && Contains("all_at_once queues every request at t = 0"));
}

TEST_CASE("closed_loop users are bounded (reproducer 06: 1e9 users grew without bound)", "[limits]") {
  CHECK_THAT(workload_error(workload("{process: closed_loop, users: 1000000000}", "requests: 100")),
             Contains("workload.arrival.users: must be in [1, 1000000]") && Contains("one queued entry per user"));
  CHECK(workload_error(workload("{process: closed_loop, users: 1000000}", "requests: 100")) == "<no error>");
  // One user, 100 requests each 1e7 s after the last completion: at least 1e9 s.
  CHECK_THAT(workload_error(workload("{process: closed_loop, users: 1, think_time: \"1e7 s\"}", "requests: 100")),
             Contains("the schedule (requests / users x think_time) spans about 1e+09 s"));
  // 10 requests: 1e8 s, the limit itself.
  CHECK(workload_error(workload("{process: closed_loop, users: 1, think_time: \"1e7 s\"}", "requests: 10")) ==
        "<no error>");
}

TEST_CASE("a length distribution whose mean it can never reach is an error", "[limits]") {
  // Every draw of mean 5000 clipped to max 4096 would give a realised mean of ~4096.
  CHECK_THAT(workload_error("{requests: 10, arrival: {process: poisson, rate: 2}, "
                            "input_tokens: {dist: normal, mean: 5000, stddev: 10, max: 4096}, "
                            "output_tokens: {dist: fixed, value: 10}}"),
             Contains("workload.input_tokens.mean: mean 5000 is above max (4096)"));
  CHECK_THAT(workload_error("{requests: 10, arrival: {process: poisson, rate: 2}, "
                            "input_tokens: {dist: lognormal, mean: 50, stddev: 10, min: 100}, "
                            "output_tokens: {dist: fixed, value: 10}}"),
             Contains("mean 50 is below min (100)"));
  CHECK_THAT(workload_error("{requests: 10, arrival: {process: poisson, rate: 2}, "
                            "input_tokens: {dist: exponential, mean: .inf}, output_tokens: {dist: fixed, value: 10}}"),
             Contains("workload.input_tokens.mean: must be in [1, 1e+09]") && Contains("got inf"));
  CHECK_THAT(workload_error("{requests: 10, arrival: {process: poisson, rate: 2}, "
                            "input_tokens: {dist: fixed, value: 500, max: 100}, output_tokens: {dist: fixed, value: 10}}"),
             Contains("value 500 is outside [min, max] = [1, 100]"));
  // Lengths beyond a billion tokens (sums of them could leave int64).
  CHECK_THAT(workload_error("{requests: 10, arrival: {process: poisson, rate: 2}, "
                            "input_tokens: {dist: fixed, value: 9000000000000000000}, "
                            "output_tokens: {dist: fixed, value: 10}}"),
             Contains("workload.input_tokens.value: must be in [1, 1000000000]") &&
                 Contains("no model's context comes near a billion") && Contains("got 9000000000000000000"));
  CHECK_THAT(workload_error("{requests: 10, arrival: {process: poisson, rate: 2}, "
                            "input_tokens: {dist: exponential, mean: 1e12}, output_tokens: {dist: fixed, value: 10}}"),
             Contains("workload.input_tokens.mean: must be in [1, 1e+09]") && Contains("got 1e+12"));
  // A mean inside the clip range is fine (the shipped quickstart: mean 1024, max 8192).
  CHECK(workload_error("{requests: 10, arrival: {process: poisson, rate: 2}, "
                       "input_tokens: {dist: lognormal, mean: 1024, stddev: 512, max: 8192}, "
                       "output_tokens: {dist: fixed, value: 10}}") == "<no error>");
}

TEST_CASE("trace timestamps outside the clock are errors (reproducer 04: Azure year 2300)", "[limits][trace]") {
  // 1677-09-21 .. 2262-04-11 is the int64-nanosecond range; 2300 wrapped negative.
  CHECK_FALSE(parse_azure_timestamp("2300-11-16 18:15:46.6805900"));
  CHECK_FALSE(parse_azure_timestamp("1600-01-01 00:00:00"));
  // 2261-12-31 is inside: 106,806 days after 1970-01-01... checked against 2262's start.
  REQUIRE(parse_azure_timestamp("2261-12-31 00:00:00"));
  CHECK(*parse_azure_timestamp("2261-12-31 00:00:00") > 0);
  const WorkloadSpec w = load_trace_workload("trace: azure_2300.csv\n");
  CHECK_THAT(error_of([&] {
               auto src = make_request_source(w);
               while (src->next()) {
               }
             }),
             Contains("azure_2300.csv:3: TIMESTAMP '2300-11-16 18:15:46.6805900': year 2300 is outside 1678-2261"));
}

TEST_CASE("a trace spanning more than 1e9 s is refused, unless a duration cuts it", "[limits][trace]") {
  // generic_63_years.csv: arrivals at 0 and 2e9 s (63 years; the clock keeps 1e9 s).
  const auto drain = [](const WorkloadSpec& w) {
    auto src = make_request_source(w);
    int n = 0;
    while (src->next()) ++n;
    return n;
  };
  CHECK_THAT(error_of([&] { drain(load_trace_workload("trace: generic_63_years.csv\n")); }),
             Contains("generic_63_years.csv:3: this request arrives 2e+09 s after the trace's first one"));
  // time_scale 0.25 brings it to 5e8 s: inside.
  CHECK(drain(load_trace_workload("trace: generic_63_years.csv\ntime_scale: 0.25\n")) == 2);
  CHECK_THAT(error_of([&] { drain(load_trace_workload("trace: generic_63_years.csv\ntime_scale: 1000\n")); }),
             Contains("after time_scale"));
  CHECK(drain(load_trace_workload("trace: generic_63_years.csv\nduration: \"1 h\"\n")) == 1);
  // time_scale itself: 1e-300 put every arrival at t = 0; .inf passed "> 0".
  for (const std::string scale : {"1e-300", ".inf", "1e7"}) {
    INFO("time_scale " << scale);
    CHECK_THAT(error_of([&] { load_trace_workload("trace: generic_63_years.csv\ntime_scale: " + scale + "\n"); }),
               Contains("workload.time_scale: must be in [1e-06, 1e+06]"));
  }
}

TEST_CASE("yaml_ranges: messages name the key, the range, the reason and the value", "[limits][yaml]") {
  const ConfigNode m_doc = parse_yaml_text("a: 5\nb: \"3 GB\"\nc: 0.5\n");
  ConfigMap m(m_doc, "x.yaml");
  CHECK(integer_in(m, "a", {1, 5}) == 5);  // inclusive bounds
  CHECK_THAT(error_of([&] { integer_in(m, "a", {1, 4}, "why not"); }),
             Contains("x.yaml:1:1: a: must be in [1, 4] (why not), got 5"));
  CHECK(integer_in(m, "missing", 7, {1, 4}) == 7);  // a fallback is not checked
  CHECK_THAT(error_of([&] { quantity_in(m, "b", Dimension::bytes, {0, 1e9}); }),
             Contains("x.yaml:2:1: b: must be in [0 B, 1 GB], got 3 GB"));
  CHECK_THAT(error_of([&] { number_in(m, "c", {1, std::numeric_limits<double>::infinity()}); }),
             Contains("c: must be >= 1, got 0.5"));
}

TEST_CASE("a vllm bench file whose request_rate puts arrivals past the clock is refused", "[limits][trace]") {
  // request_rate 1e-300 over 5 requests: the last arrival is rescaled to 5 / 1e-300
  // = 5e300 s; llround wrapped every arrival to the same instant (all at t = 0).
  const WorkloadSpec w = load_trace_workload("trace: vllm_bench_rate_1e-300.json\nformat: vllm_bench\n");
  CHECK_THAT(error_of([&] {
               auto src = make_request_source(w);
               while (src->next()) {
               }
             }),
             Contains("vllm_bench_rate_1e-300.json: request 1 would arrive at") &&
                 Contains("request_rate is too low for 5 requests"));
}

TEST_CASE("a run that would pass the clock's end stops with an error, not a wrapped time", "[limits]") {
  // A request arriving 1 s before the 1e9 s limit whose 1000 output tokens take
  // ~10 ms each: its steps end after the limit, and the first such event is refused.
  const Scenario sc = scenario_from("{kind: vllm}");
  VectorSource src({make_request(kMaxSimSeconds - 1.0, 100, 1000)});
  CHECK_THAT(error_of([&] { simulate(sc, src, {}); }), Contains("outside servesim's clock range of +/-1e+09 s"));
  // The same request 1e6 s earlier completes (arrival 9.99e8 s + ~10 s < 1e9 s).
  VectorSource early({make_request(kMaxSimSeconds - 1e6, 100, 1000)});
  CHECK(simulate(sc, early, {}).summary.completed == 1);
}

TEST_CASE("config.json integers beyond int32 are refused before the cast", "[limits]") {
  // num_attention_heads 4294967328 = 2^32 + 32: static_cast<int> made it 32 heads.
  const std::string path = std::string(SERVESIM_TEST_FIXTURES) + "/bad_configs/heads_wrap/config.json";
  CHECK_THAT(error_of([&] { import_hf_config(path); }),
             Contains("field 'num_attention_heads' = 4294967328 is out of range (at most 2147483647"));
}
