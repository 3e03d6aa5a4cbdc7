#pragma once
// Where a scenario file may keep its plan section: its second YAML document (after
// `---`), read by read_plan_section (config/plan_reader.h) besides the first.
#include <string>

#include "config/config_node.h"

namespace servesim {

// The second document of the scenario file `path`, or null when it has none (or the
// file cannot be parsed: loading the first document reports that error).
ConfigNode plan_document(const std::string& path);

}  // namespace servesim
