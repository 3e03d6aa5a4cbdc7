#pragma once
// A scenario as the Python module receives it: a file path or YAML text (the Python
// layer turns a dict into YAML text first), with `set` overrides applied as the
// CLI's --set applies them.
#include <string>
#include <vector>

#include "config/config_node.h"

namespace servesim::python {

struct ScenarioInput {
  std::string path;    // set for a file
  std::string text;    // else: YAML text
  std::string origin;  // how errors name YAML text, e.g. "<scenario string>"
};

struct LoadedScenario {
  ConfigNode doc;            // overrides applied
  std::string source;        // file name or origin, for errors
  std::string text;          // the scenario text (a sweep's fingerprint)
};

// Parse errors are the config layer's (file or origin, line, column, key path).
LoadedScenario load_input(const ScenarioInput& in, const std::vector<std::string>& sets);

}  // namespace servesim::python
