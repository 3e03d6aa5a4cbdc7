#pragma once
// A scenario: everything one simulation needs, as plain immutable structs. Parsed
// once from YAML (plus --set overrides); no YAML node escapes the loader.
#include <optional>
#include <string>
#include <vector>

#include "cost/parallelism.h"
#include "cost/precision.h"
#include "hardware/gpu_spec.h"
#include "model/model_spec.h"
#include "scenario/engine_config.h"
#include "scenario/slo.h"
#include "workload/workload_spec.h"

namespace servesim {

struct Scenario {
  std::string source;  // file it came from
  GpuSpec gpu;
  ModelSpec model;
  PrecisionSpec precision;
  Parallelism parallelism;
  EngineConfig engine;
  WorkloadSpec workload;
  bool has_workload = false;
  SloSpec slo;
};

// Loads a scenario file, applying "a.b=value" overrides first. Every error names the
// file, line and key path. `require_workload` is false for `inspect`.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {},
                       bool require_workload = true);
// The same from an already-built document (tests, sweeps).
Scenario parse_scenario(YAML::Node doc, const std::string& source, bool require_workload = true);

}  // namespace servesim
