#pragma once
// The text `servesim run` prints (sim/cli/cmd_run.cpp), for Result.text / str(Result):
// what ran (model, GPU, parallelism, precision, engine; framework, speculative
// decoding and sampling when set), the KV cache, the summary table and the bands.
// python/tests/test_api.py compares it with the CLI's output, so the two cannot drift.
#include <nlohmann/json.hpp>

#include <string>

#include "run/simulation.h"
#include "scenario/scenario.h"

namespace servesim::python {

std::string run_text(const Scenario& sc, const SimulationResult& r, const nlohmann::json& report);

}  // namespace servesim::python
