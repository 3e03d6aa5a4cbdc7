// One meaning for "fp8": weights given on the command line bring their default
// compute precision (precision.h default_activations) in every path: --set,
// sweep/whatif --vary and plan candidates.
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include "planning/capacity.h"
#include "planning/economics.h"
#include "planning/sweep.h"
#include "planning/whatif.h"
#include "scenario/config_json.h"
#include "config/scenario_reader.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

using namespace servesim;
using namespace servesim::planning;

namespace {
// A file that pins bf16 compute for its own bf16 weights.
const char* kPinned =
    "hardware: {gpu: h100-sxm}\n"
    "model: {name: llama-3.1-8b, weights: bf16, activations: bf16, kv_cache: bf16}\n"
    "workload: {requests: 20, arrival: {process: poisson, rate: 2}, input_tokens: {dist: fixed, value: 100}, "
    "output_tokens: {dist: fixed, value: 10}}\n";

std::string label_with(const std::vector<std::string>& sets, const char* doc_text = kPinned) {
  ConfigNode doc = parse_yaml_text(doc_text);
  for (const auto& s : sets) apply_override(doc, s);
  return precision_label(parse_scenario(doc, "t.yaml").resolved);
}
}  // namespace

TEST_CASE("model.weights=fp8 given with --set means W8A8 where the GPU has fp8 tensor cores", "[precision][rule]") {
  CHECK(label_with({}) == "W16A16 bf16, KV bf16");
  // The file's activations: bf16 belonged to its bf16 weights; fp8 weights bring fp8 compute on an H100.
  CHECK(label_with({"model.weights=fp8"}) == "W8A8 fp8, KV bf16");
  // Activations given on the command line too are kept: W8A16 on purpose.
  CHECK(label_with({"model.weights=fp8", "model.activations=bf16"}) == "W8A16 fp8/bf16, KV bf16");
  // No fp8 tensor cores on an A100: weight-only W8A16.
  CHECK(label_with({"hardware.gpu=a100-sxm4-80gb", "model.weights=fp8"}) == "W8A16 fp8/bf16, KV bf16");
  CHECK(label_with({"model.weights=int4"}) == "W4A16 int4/bf16, KV bf16");
  // In the file itself, weights and activations given together mean what they say.
  CHECK(label_with({}, "hardware: {gpu: h100-sxm}\n"
                       "model: {name: llama-3.1-8b, weights: fp8, activations: bf16}\n"
                       "workload: {requests: 20, arrival: {process: poisson, rate: 2}, input_tokens: {dist: fixed, "
                       "value: 100}, output_tokens: {dist: fixed, value: 10}}\n") == "W8A16 fp8/bf16, KV bf16");
}

TEST_CASE("sweep --vary model.weights=fp8 resolves like --set", "[precision][rule]") {
  SweepOptions opt;
  const std::vector<SweepAxis> axes = {parse_vary("model.weights=bf16,fp8")};
  const auto points = run_sweep(parse_yaml_text(kPinned), "t.yaml", axes, opt);
  REQUIRE(points.size() == 2);
  REQUIRE(points[1].scenario);
  CHECK(precision_label(points[0].scenario->resolved) == "W16A16 bf16, KV bf16");
  CHECK(precision_label(points[1].scenario->resolved) == "W8A8 fp8, KV bf16");
  CHECK(point_json(points[1], axes)["setup"]["precision"] == "W8A8 fp8, KV bf16");
}

TEST_CASE("whatif shows the resolved precision and compares cost at the SLO-meeting capacity", "[precision][whatif]") {
  const char* doc =
      "hardware: {gpu: h100-sxm}\n"
      "model: {name: llama-3.1-8b, weights: bf16, activations: bf16}\n"
      "workload: {seed: 2, requests: 200, arrival: {process: poisson, rate: 2}, input_tokens: {dist: uniform, min: 200, "
      "max: 600}, output_tokens: {dist: uniform, min: 50, max: 150}}\n"
      "slo: {ttft_ms: {p99: 400}, tpot_ms: {p99: 30}}\n";
  SweepOptions opt;
  const std::vector<SweepAxis> axes = {parse_vary("model.weights=bf16,fp8")};
  const auto points = run_sweep(parse_yaml_text(doc), "t.yaml", axes, opt);
  WhatIfOptions wo;
  wo.trial_requests = 300;
  const auto rows = whatif_rows(points, axes, wo);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].precision == "W8A8 fp8, KV bf16");
  for (const auto& r : rows) {
    INFO(r.label);
    REQUIRE(r.capacity_found);
    // The same search run directly gives the same capacity and the cost there.
    SearchOptions so;
    so.trial.requests = 300;
    const CapacityResult c = find_max_rate(*r.point->scenario, so);
    CHECK(r.capacity_rps == c.max_rate);
    const RunSummary& t = c.at_max->summary;
    CHECK(r.usd_per_mtok_at_capacity ==
          economics(r.point->scenario->gpu, 1, t.output_tokens_per_s, t.power_w_per_gpu).usd_per_million_output_tokens);
    // At 2 req/s offered both are far below capacity: the offered-load cost is the higher one.
    CHECK(r.usd_per_mtok > r.usd_per_mtok_at_capacity);
  }
  CHECK(rows[1].capacity_rps > rows[0].capacity_rps);  // fp8 serves more within the same SLOs
  CHECK_THAT(whatif_table(rows), Catch::Contains("W8A8 fp8, KV bf16") && Catch::Contains("$/Mtok@SLO"));
}
