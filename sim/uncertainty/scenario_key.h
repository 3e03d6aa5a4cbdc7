#pragma once
// Where a simulated scenario sits among the measured runs behind the uncertainty bands
// (bands.h): calibrated profile or defaults, GPU family, framework, load regime.
#include <nlohmann/json.hpp>

#include "metrics/run_summary.h"
#include "scenario/setup.h"
#include "uncertainty/bands.h"

namespace servesim::bands {

// A GPU profile from a `calibrated/` folder (hardware/calibrated/*.yaml, what
// `servesim calibrate serving` writes) counts as calibrated; any other as defaults.
bool is_calibrated_profile(const GpuSpec& gpu);

BandKey scenario_band_key(const Setup& setup, const RunSummary& summary);

// The bands of one run's summary JSON, from the shipped table (bands.h summary_bands_json).
nlohmann::json run_bands_json(const Setup& setup, const RunSummary& summary, const nlohmann::json& summary_json);

}  // namespace servesim::bands
