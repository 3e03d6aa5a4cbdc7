#pragma once
// Where a simulated scenario sits among the measured runs behind the uncertainty bands
// (bands.h): calibrated profile or defaults, GPU family, framework, load regime, and what
// it uses that none of those runs did (then it gets no band, and the output says why).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "metrics/run_summary.h"
#include "scenario/scenario.h"
#include "uncertainty/bands.h"

namespace servesim::bands {

// A GPU profile from a `calibrated/` folder (hardware/calibrated/*.yaml, what
// `servesim calibrate serving` writes) counts as calibrated; any other as defaults.
bool is_calibrated_profile(const GpuSpec& gpu);

// What the scenario uses that no measured run behind the shipped table does: weights or KV
// cache narrower than 16 bits, speculative decoding, prefill/decode disaggregation, pipeline
// parallelism, expert parallelism or DP attention, several sequences per request (parallel
// sampling, beam search), LoRA, and model shapes beyond dense full attention and Mixtral's
// 8-expert MoE (MLA, state-space or linear-attention layers, sliding or top-k sparse
// attention, compressed attention, wider MoEs), and prompts or outputs averaging more than
// 4,096 tokens. The table's runs (data/serving) are co-located, 16-bit, TP-only, one sequence
// per request, on those models, with prompts of 550-1,030 and outputs of 250-1,450 tokens on
// average.
std::vector<std::string> uncovered_features(const Scenario& sc, const RunSummary& summary);

BandKey scenario_band_key(const Scenario& sc, const RunSummary& summary);

// The bands of one run's summary JSON, from the shipped table (bands.h summary_bands_json).
nlohmann::json run_bands_json(const Scenario& sc, const RunSummary& summary, const nlohmann::json& summary_json);

}  // namespace servesim::bands
