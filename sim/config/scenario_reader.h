#pragma once
// Reading a scenario document into the plain Scenario spec (scenario/scenario.h).
// Every error names the file, line and key path.
#include <string>
#include <vector>

#include "config/config_node.h"
#include "scenario/scenario.h"

namespace servesim {

// Loads a scenario file, applying "a.b=value" overrides first. `require_workload`
// is false where only the setup matters.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {},
                       bool require_workload = true);
// The same from an already-built document (tests, sweeps, plan candidates).
Scenario parse_scenario(const ConfigNode& doc, const std::string& source, bool require_workload = true);
// Only the setup (hardware, model, parallelism, engine) of a scenario document, for
// `inspect`: the top-level keys are checked as for a whole scenario, and the
// workload and SLOs, if any, are left unread.
Setup parse_setup_only(const ConfigNode& doc, const std::string& source);

}  // namespace servesim
