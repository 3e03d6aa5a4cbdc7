#pragma once
// A scenario: everything one simulation needs, as plain immutable structs. Parsed
// once from YAML (plus --set overrides); no YAML node escapes the loader.
#include <string>
#include <vector>

#include "config/config_node.h"
#include "scenario/setup.h"
#include "metrics/slo_spec.h"
#include "workload/workload_spec.h"

namespace servesim {

struct Scenario : Setup {
  std::string source;  // file it came from
  WorkloadSpec workload;
  bool has_workload = false;
  SloSpec slo;
};

// Loads a scenario file, applying "a.b=value" overrides first. Every error names the
// file, line and key path. `require_workload` is false for `inspect`.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {},
                       bool require_workload = true);
// The same from an already-built document (tests, sweeps).
Scenario parse_scenario(const ConfigNode& doc, const std::string& source, bool require_workload = true);

}  // namespace servesim
