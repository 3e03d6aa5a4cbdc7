// Prefill/decode disaggregation (run/disaggregated_simulation.h) against closed
// forms of the step-cost model and the transfer model:
//   TTFT = prefill step + to_nanos(latency + prompt x kv_bytes_per_token / bandwidth)
//   E2E  = TTFT + the decode steps j = 1 .. out-1 (each SeqWork{1, in + j - 1})
// and the properties a disaggregated deployment exists for: a decode instance's
// TPOT does not see a burst of prompts, a co-located replica's does.
#include <catch2/catch.hpp>

#include <algorithm>

#include "config/catalog_reader.h"
#include "config/config_error.h"
#include "engine/decode_only_engine.h"
#include "planning/disaggregated_plan.h"
#include "run/disaggregated_simulation.h"
#include "scenario/disaggregation.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// Llama-3.1-8B bf16 on H100s (the frontend latency pinned to 0, as the other
// closed-form tests do); `pools` is the disaggregation section's YAML, "" for none.
Scenario disagg_scenario(const std::string& pools, const std::string& workload = "",
                         const std::string& engine = "{kind: vllm, max_num_seqs: 256, max_num_batched_tokens: 8192}") {
  std::string text = "hardware: {gpu: h100-sxm}\n"
                     "model: {name: llama-3.1-8b}\n"
                     "parallelism: {tp: 1, replicas: 1}\n"
                     "engine: " + engine + "\n";
  if (!pools.empty()) text += "disaggregation: " + pools + "\n";
  if (!workload.empty()) text += "workload: " + workload + "\n";
  ConfigNode doc = parse_yaml_text(text);
  set_number(doc, "engine.frontend_latency", 0.0);
  return parse_scenario(doc, "test.yaml", !workload.empty());
}

const char* k1p1d =
    "{prefill: {replicas: 1}, decode: {replicas: 1}, transfer: {bandwidth: \"50 GB/s\", latency: \"20 us\"}}";

// Llama-3.1-8B: 32 layers x (K and V) x 8 KV heads x 128 head dim x 2 bytes (bf16)
// = 131072 bytes of KV per token (its config.json: num_hidden_layers 32,
// num_key_value_heads 8, head_dim 128).
constexpr double kLlama8bKvBytes = 32.0 * 2 * 8 * 128 * 2;

Nanos prefill_nanos(const Scenario& sc, std::int64_t in) {
  return step_nanos(make_cost_model(sc), sc.engine, batch_of(1, SeqWork{in, 0, true}));
}
Nanos decode_nanos(const Scenario& sc, std::int64_t in, std::int64_t out) {
  const CostModel cost = make_cost_model(sc);
  Nanos sum = 0;
  for (std::int64_t j = 1; j <= out - 1; ++j) sum += step_nanos(cost, sc.engine, batch_of(1, SeqWork{1, in + j - 1, true}));
  return sum;
}

constexpr double kNsInMs = 1e-6;

}  // namespace

TEST_CASE("disaggregation: the model's KV bytes per token", "[disagg]") {
  const Scenario sc = disagg_scenario(k1p1d);
  CHECK(model_kv_bytes_per_token(sc.model, DType::bf16) == kLlama8bKvBytes);
  CHECK(model_kv_bytes_per_token(sc.model, DType::fp8) == kLlama8bKvBytes / 2);
}

TEST_CASE("disaggregation at zero load: TTFT = prefill + transfer, E2E = TTFT + decode steps", "[disagg][closed_form]") {
  const Scenario sc = disagg_scenario(k1p1d);
  REQUIRE(sc.disaggregation);
  const std::int64_t in = 2000, out = 100;
  // Transfer: 20 us + 2000 x 131072 B / 50e9 B/s = 20 us + 5.24288 ms.
  const double transfer_s = 20e-6 + in * kLlama8bKvBytes / 50e9;
  const Nanos ttft = prefill_nanos(sc, in) + to_nanos(transfer_s);
  const Nanos e2e = ttft + decode_nanos(sc, in, out);
  for (bool ff : {false, true}) {
    DYNAMIC_SECTION("fast_forward " << ff) {
      VectorSource src({make_request(0.0, in, out)});
      SimulationOptions opt;
      opt.fast_forward = ff;
      RequestResults results;
      opt.request_results = &results;
      const SimulationResult r = simulate(sc, src, opt);
      REQUIRE(r.summary.completed == 1);
      REQUIRE(results.size() == 1);
      CHECK(results[0].ttft_ms == Approx(static_cast<double>(ttft) * kNsInMs).margin(kNsInMs));
      CHECK(results[0].e2e_ms == Approx(static_cast<double>(e2e) * kNsInMs).margin(kNsInMs));
      // out - 1 gaps; the first (and shortest: the context only grows) is the first
      // decode step, SeqWork{1, in}, which starts the instant the KV (and the first token) arrives.
      CHECK(r.summary.itl_ms.count == out - 1);
      const Nanos first_step =
          step_nanos(make_cost_model(sc), sc.engine, batch_of(1, SeqWork{1, in, true}));
      CHECK(r.summary.itl_ms.min == Approx(static_cast<double>(first_step) * kNsInMs).margin(kNsInMs));
      REQUIRE(r.summary.disaggregation);
      const DisaggregationReport& d = *r.summary.disaggregation;
      CHECK(d.transfers == 1);
      CHECK(d.transfer_bytes == in * kLlama8bKvBytes);
      CHECK(d.transfer_ms.mean == Approx(static_cast<double>(to_nanos(transfer_s)) * kNsInMs).margin(kNsInMs));
      CHECK(d.decode_wait_ms.max == 0.0);
      CHECK(d.link_wait_ms.max == 0.0);
      // Both pools' GPUs count.
      CHECK(r.summary.gpus == 2);
    }
  }
}

TEST_CASE("disaggregation: layer-wise transfer hides all but 1/L of the wire time behind the last prefill step",
          "[disagg][closed_form]") {
  const Scenario sc = disagg_scenario(
      "{prefill: {replicas: 1}, decode: {replicas: 1}, transfer: {bandwidth: \"5 GB/s\", latency: \"10 us\", "
      "layerwise: true}}");
  const std::int64_t in = 1000, out = 2;
  const double wire = in * kLlama8bKvBytes / 5e9;  // 1000 x 131072 B at 5 GB/s = 26.2 ms on the wire
  const double prefill_s = to_seconds(prefill_nanos(sc, in));
  // The last prefill step's (L-1)/L overlaps the transfer (L = 32 layers); what is
  // left after it is exposed, at least one layer's share.
  const double exposed = std::max(wire / 32.0, wire - prefill_s * 31.0 / 32.0);
  VectorSource src({make_request(0.0, in, out)});
  RequestResults results;
  SimulationOptions opt;
  opt.request_results = &results;
  const SimulationResult r = simulate(sc, src, opt);
  REQUIRE(results.size() == 1);
  const Nanos ttft = prefill_nanos(sc, in) + to_nanos(10e-6 + exposed);
  CHECK(results[0].ttft_ms == Approx(static_cast<double>(ttft) * kNsInMs).margin(kNsInMs));
  CHECK(exposed < wire);  // the overlap hid something
}

TEST_CASE("disaggregation: KV bytes transferred = sum of prompts x KV bytes per token, one-token requests stay",
          "[disagg]") {
  const Scenario sc = disagg_scenario(
      "{prefill: {replicas: 2}, decode: {replicas: 3}, transfer: {bandwidth: \"50 GB/s\"}}");
  std::vector<Request> rs;
  std::int64_t prompts = 0, sent = 0;
  for (int i = 0; i < 40; ++i) {
    const std::int64_t in = 100 + 37 * i, out = i % 5 == 0 ? 1 : 10 + i;
    rs.push_back(make_request(0.01 * i, in, out));
    prompts += in;
    if (out > 1) sent += in;
  }
  VectorSource src(rs);
  const SimulationResult r = simulate(sc, src, {});
  REQUIRE(r.summary.completed == 40);
  const DisaggregationReport& d = *r.summary.disaggregation;
  CHECK(d.transfers == 32);           // 8 of the 40 have one output token: done at prefill
  CHECK(d.finished_at_prefill == 8);
  CHECK(d.transfer_bytes == static_cast<double>(sent) * kLlama8bKvBytes);
  CHECK(r.summary.input_tokens == prompts);
  CHECK(r.summary.gpus == 5);
  CHECK(d.prefill.replicas == 2);
  CHECK(d.decode.replicas == 3);
}

TEST_CASE("disaggregation: a burst of prompts leaves decode TPOT unchanged, unlike co-located serving",
          "[disagg][closed_form]") {
  // Request 0 decodes 400 tokens; 0.2 s later 30 prompts of 4096 tokens arrive at
  // once, each wanting one output token (so they never reach the decode pool).
  std::vector<Request> rs{make_request(0.0, 128, 400)};
  for (int i = 0; i < 30; ++i) rs.push_back(make_request(0.2, 4096, 1));
  const auto tpot_of_first = [&](const Scenario& sc) {
    VectorSource src(rs);
    RequestResults results;
    SimulationOptions opt;
    opt.fast_forward = false;
    opt.request_results = &results;
    const SimulationResult r = simulate(sc, src, opt);
    REQUIRE(r.summary.completed == 31);
    const auto it = std::find_if(results.begin(), results.end(), [](const RequestResult& x) { return x.id == 0; });
    REQUIRE(it != results.end());
    return it->tpot_ms;
  };
  const Scenario disagg = disagg_scenario(k1p1d);
  const Scenario colocated = disagg_scenario("");
  // Alone on its decode instance: TPOT = the mean of its 399 decode steps.
  const double alone_ms = static_cast<double>(decode_nanos(disagg, 128, 400)) * kNsInMs / 399.0;
  CHECK(tpot_of_first(disagg) == Approx(alone_ms).epsilon(1e-9));
  // Co-located, the 30 x 4096 prompt tokens (about 15 steps of 8192-token budget
  // shared with the decoder) lengthen its steps: TPOT rises well above alone.
  CHECK(tpot_of_first(colocated) > 1.5 * alone_ms);
}

TEST_CASE("decode-only engine: blocks granted by peak, every block returned", "[disagg]") {
  const Scenario sc = disagg_scenario(k1p1d);
  const CostModel cost = make_cost_model(sc);
  EngineContext ctx;
  ctx.cost = &cost;
  ctx.config = sc.engine;
  ctx.config.block_size = 16;
  ctx.kv_blocks = 100;  // 1600 tokens
  ctx.memory = plan_setup_memory(sc, cost);
  DecodeOnlyEngine e(ctx);
  // Peak of (in, out) = ceil((in + out - 1) / 16) blocks: (600, 201) -> 50, (700, 100) -> 50, (10, 1591) -> 100.
  Request a = make_request(0, 600, 201), b = make_request(0, 700, 100), c = make_request(0, 10, 1591),
          too_big = make_request(0, 10, 1592);
  a.id = 0, b.id = 1, c.id = 2, too_big.id = 3;
  CHECK(e.peak_blocks(a) == 50);
  CHECK(e.peak_blocks(c) == 100);
  CHECK_FALSE(e.accept(too_big, arrival_record(too_big, 0), 0));  // 101 blocks > 100: can never be served
  REQUIRE(e.accept(a, arrival_record(a, 0), 0));
  REQUIRE(e.accept(b, arrival_record(b, 0), 0));
  REQUIRE(e.accept(c, arrival_record(c, 0), 0));
  std::vector<Request> granted;
  e.grant(granted);
  REQUIRE(granted.size() == 2);  // a and b fill the 100 blocks; c waits (FCFS)
  CHECK(e.reserved_blocks() == 100);
  CHECK(e.used_blocks() == 38 + 44);  // ceil(600/16) + ceil(700/16): the prompts' KV
  e.kv_arrived(0, 0);
  e.kv_arrived(1, 0);
  Nanos now = 0;
  std::vector<Request> done;
  bool checked_partial = false;
  while (e.has_work()) {
    now = e.start_step(now, kNever);
    e.finish_step(now, done);
    if (done.size() == 1 && !checked_partial) {
      // b (99 more tokens) finishes first and returns its 50 blocks: a's 50 are
      // still reserved, so c's 100 do not fit yet.
      checked_partial = true;
      CHECK(done[0].id == 1);
      CHECK(e.reserved_blocks() == 50);
      e.grant(granted);
      CHECK(granted.size() == 2);
    }
  }
  CHECK(checked_partial);
  CHECK(done.size() == 2);
  CHECK(e.used_blocks() == 0);
  CHECK(e.reserved_blocks() == 0);
  // With both done, c's 100 blocks fit.
  granted.clear();
  e.grant(granted);
  REQUIRE(granted.size() == 1);
  CHECK(e.reserved_blocks() == 100);
}

TEST_CASE("disaggregation: bad input is refused with the key and the reason", "[disagg][bad_input]") {
  const auto error_of = [](const std::string& pools, const std::string& workload = "") -> std::string {
    try {
      (void)disagg_scenario(pools, workload);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  SECTION("a transfer bandwidth of 0") {
    const std::string e = error_of("{prefill: {replicas: 1}, decode: {replicas: 1}, transfer: {bandwidth: \"0 GB/s\"}}");
    CHECK_THAT(e, Catch::Contains("disaggregation.transfer.bandwidth"));
  }
  SECTION("a pool of 0 instances") {
    const std::string e = error_of("{prefill: {replicas: 0}, decode: {replicas: 1}, transfer: {bandwidth: \"1 GB/s\"}}");
    CHECK_THAT(e, Catch::Contains("disaggregation.prefill.replicas"));
    CHECK_THAT(e, Catch::Contains("no instance"));
  }
  SECTION("a pool without replicas, a misspelt key, no transfer") {
    CHECK_THAT(error_of("{prefill: {}, decode: {replicas: 1}, transfer: {bandwidth: \"1 GB/s\"}}"),
               Catch::Contains("disaggregation.prefill.replicas"));
    CHECK_THAT(error_of("{prefill: {replicas: 1, tpp: 2}, decode: {replicas: 1}, transfer: {bandwidth: \"1 GB/s\"}}"),
               Catch::Contains("tpp"));
    CHECK_THAT(error_of("{prefill: {replicas: 1}, decode: {replicas: 1}}"), Catch::Contains("transfer"));
  }
  SECTION("a pool's tp that does not divide the model") {
    CHECK_THAT(error_of("{prefill: {replicas: 1, tp: 3}, decode: {replicas: 1}, transfer: {bandwidth: \"1 GB/s\"}}"),
               Catch::Contains("disaggregation.prefill"));
  }
  SECTION("a decode instance whose KV cache is smaller than one request") {
    const Scenario sc = disagg_scenario(
        "{prefill: {replicas: 1}, decode: {replicas: 1}, transfer: {bandwidth: \"1 GB/s\"}}",
        "{requests: 4, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: 2000}, "
        "output_tokens: {dist: fixed, value: 200}}",
        "{kind: vllm, num_gpu_blocks_override: 100}");
    try {
      (void)simulate(sc);
      FAIL("a workload no decode instance can hold was run");
    } catch (const Error& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("disaggregation.decode"));
      CHECK_THAT(std::string(e.what()), Catch::Contains("exceeds_kv_capacity"));
    }
  }
}

TEST_CASE("disaggregation: a prefill instance's transfers take its link one at a time", "[disagg][closed_form]") {
  // Two prompts arrive together at the one prefill instance, are prefilled in one
  // step (2 x 2000 tokens fit the 8192-token budget) and go to the two decode
  // instances. The first transfer starts at the step's end; the second waits for
  // the link to be free (the first's wire time w), then takes latency + w itself.
  const Scenario sc = disagg_scenario(
      "{prefill: {replicas: 1}, decode: {replicas: 2}, transfer: {bandwidth: \"50 GB/s\", latency: \"20 us\"}}");
  const std::int64_t in = 2000, out = 5;
  const double w = in * kLlama8bKvBytes / 50e9;  // 5.24288 ms
  const Nanos step = step_nanos(make_cost_model(sc), sc.engine, batch_of(2, SeqWork{in, 0, true}));
  VectorSource src({make_request(0.0, in, out), make_request(0.0, in, out)});
  RequestResults results;
  SimulationOptions opt;
  opt.request_results = &results;
  const SimulationResult r = simulate(sc, src, opt);
  REQUIRE(results.size() == 2);
  std::sort(results.begin(), results.end(), [](const RequestResult& a, const RequestResult& b) { return a.id < b.id; });
  CHECK(results[0].ttft_ms == Approx(static_cast<double>(step + to_nanos(20e-6 + w)) * kNsInMs).margin(kNsInMs));
  CHECK(results[1].ttft_ms ==
        Approx(static_cast<double>(step + to_nanos(w) + to_nanos(20e-6 + w)) * kNsInMs).margin(2 * kNsInMs));
  const DisaggregationReport& d = *r.summary.disaggregation;
  CHECK(d.link_wait_ms.max == Approx(static_cast<double>(to_nanos(w)) * kNsInMs).margin(kNsInMs));
  CHECK(d.link_wait_ms.min == 0.0);
  // Each decoded alone on its own instance: the same decode steps.
  CHECK(results[0].tpot_ms == Approx(results[1].tpot_ms).epsilon(1e-12));
}

TEST_CASE("plan: xPyD splits are searched by GPUs and the first sustainable count wins", "[disagg][plan]") {
  // The shipped 1P2D scenario at 8 req/s with its TPOT p99 <= 12 ms SLO.
  ConfigNode doc = load_yaml_file(std::string(SERVESIM_SOURCE_DIR) + "/scenarios/disaggregated-1p2d.yaml");
  ConfigNode colocated = doc;
  colocated.remove("disaggregation");
  planning::PlanOptions o;
  o.trial_requests = 300;
  o.threads = 1;
  const planning::PlanResult p = planning::plan(colocated, "disaggregated-1p2d.yaml", o);
  const planning::DisaggregatedPlan d = planning::plan_disaggregated(doc, "disaggregated-1p2d.yaml", o, p);
  REQUIRE(d.target_rate == 8.0);  // the workload's rate
  REQUIRE_FALSE(d.splits.empty());
  // The ceiling: twice the best co-located GPU count, at least 4.
  const planning::Candidate* best_co = nullptr;
  for (const auto& c : p.candidates)
    if (c.rank == 1) best_co = &c;
  REQUIRE(best_co);
  CHECK(d.max_gpus == std::clamp(2 * best_co->gpus, 4, planning::kMaxSearchGpus));
  for (std::size_t i = 1; i < d.splits.size(); ++i) CHECK(d.splits[i - 1].gpus <= d.splits[i].gpus);
  REQUIRE(d.best);
  const planning::Split& best = d.splits[*d.best];
  CHECK(best.sustainable);
  for (const planning::Split& s : d.splits) {
    CHECK(s.gpus <= best.gpus);                      // the search stops at the first sustainable count
    if (s.gpus < best.gpus) CHECK_FALSE(s.sustainable);
    CHECK(s.gpus == s.prefill + s.decode);           // one GPU per instance here (tp = 1)
  }
  // Its cost: three H100s' price over the output tokens the target rate carries.
  CHECK(best.economics.usd_per_hour == Approx(best.gpus * load_gpu("h100-sxm").price_per_hour));
}

TEST_CASE("disaggregation: what it does not model is refused with the reason", "[disagg][bad_input]") {
  const std::string workload =
      "{requests: 4, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: 100}, "
      "output_tokens: {dist: fixed, value: 10}}";
  const auto refusal = [&](const std::string& engine, const std::string& extra_workload = "") -> std::string {
    std::string w = workload;
    if (!extra_workload.empty()) w = w.substr(0, w.size() - 1) + ", " + extra_workload + "}";
    try {
      (void)simulate(disagg_scenario(k1p1d, w, engine));
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  // Users who give up run with disaggregation now (tests/unit/test_pd_classes.cpp).
  CHECK(refusal("{kind: vllm, max_num_seqs: 64}", "patience: {dist: uniform, min: \"3 s\", max: \"5 s\"}").empty());
  CHECK_THAT(refusal("{kind: static, max_num_seqs: 64}"), Catch::Contains("engine.kind: static"));
  // And a well-formed one runs: the refusals are not blanket.
  CHECK(refusal("{kind: vllm, max_num_seqs: 64}").empty());
}

TEST_CASE("P/D decider: a prompt within decider_threshold is prefilled on its decode instance, without the prefill "
          "pool or a transfer",
          "[disagg][closed_form][decider]") {
  const Scenario sc = disagg_scenario(
      "{prefill: {replicas: 1}, decode: {replicas: 1}, transfer: {bandwidth: \"50 GB/s\", latency: \"20 us\"}, "
      "decider_threshold: 512}");
  REQUIRE(sc.disaggregation);
  REQUIRE(sc.disaggregation->decider_threshold == 512);
  // Alone: TTFT = the decode instance's step of the whole prompt, SeqWork{in, 0} (the same
  // GPU and model as the prefill pool here, so the same step), no transfer; then the
  // decode steps as before: E2E = TTFT + sum over j = 1 .. out-1 of SeqWork{1, in + j - 1}.
  const std::int64_t in = 400, out = 50;
  const Nanos ttft = prefill_nanos(sc, in);
  const Nanos e2e = ttft + decode_nanos(sc, in, out);
  VectorSource src({make_request(0.0, in, out)});
  SimulationOptions opt;
  RequestResults results;
  opt.request_results = &results;
  const SimulationResult r = simulate(sc, src, opt);
  REQUIRE(r.summary.completed == 1);
  REQUIRE(results.size() == 1);
  CHECK(results[0].ttft_ms == Approx(static_cast<double>(ttft) * kNsInMs).margin(kNsInMs));
  CHECK(results[0].e2e_ms == Approx(static_cast<double>(e2e) * kNsInMs).margin(kNsInMs));
  CHECK(r.summary.itl_ms.count == out - 1);
  REQUIRE(r.summary.disaggregation);
  const DisaggregationReport& d = *r.summary.disaggregation;
  CHECK(d.transfers == 0);
  CHECK(d.local_prefills == 1);
  CHECK(d.prefill.steps == 0);  // the prefill pool never ran

  // The split: prompts of 300 and 600 tokens alternating, 1 s apart: the 10 of 300 stay
  // on the decode instance, the 10 of 600 go through the prefill pool and the link.
  std::vector<Request> mixed;
  for (int i = 0; i < 20; ++i) mixed.push_back(make_request(1.0 * i, i % 2 == 0 ? 300 : 600, 20));
  VectorSource src2(mixed);
  const SimulationResult m = simulate(sc, src2, {});
  REQUIRE(m.summary.completed == 20);
  REQUIRE(m.summary.disaggregation);
  CHECK(m.summary.disaggregation->local_prefills == 10);
  CHECK(m.summary.disaggregation->transfers == 10);
  CHECK(m.summary.disaggregation->transfer_bytes == 10 * 600 * kLlama8bKvBytes);

  // A one-token request prefilled locally ends at that step (its only token).
  VectorSource one({make_request(0.0, 100, 1)});
  RequestResults one_result;
  SimulationOptions o1;
  o1.request_results = &one_result;
  const SimulationResult r1 = simulate(sc, one, o1);
  REQUIRE(r1.summary.completed == 1);
  CHECK(one_result[0].e2e_ms == Approx(static_cast<double>(prefill_nanos(sc, 100)) * kNsInMs).margin(kNsInMs));
  CHECK(r1.summary.disaggregation->transfers == 0);
}
