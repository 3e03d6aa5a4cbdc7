#pragma once
// Shared handling of "SCENARIO.yaml [--set k=v]..." plus flag shortcuts.
#include "config/config_node.h"

#include <string>
#include <vector>

namespace servesim::cli {

// Loads the scenario file (or an empty document when path is empty) and applies
// the overrides in order.
ConfigNode load_document(const std::string& path, const std::vector<std::string>& overrides);

}  // namespace servesim::cli
