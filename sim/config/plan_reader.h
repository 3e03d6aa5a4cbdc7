#pragma once
// The `plan:` section that `servesim plan` reads (planning/plan.h describes it).
#include <string>

#include "config/config_node.h"
#include "config/plan_section.h"

namespace servesim {

// Reads the plan section, if any, of `doc` (removing it there) or of `extra` (the
// file's second YAML document, or null) into the fields of `o` still unset
// (flags are set first and win).
void read_plan_section(ConfigNode& doc, const ConfigNode& extra, const std::string& source, PlanSection& o);

}  // namespace servesim
