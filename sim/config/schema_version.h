#pragma once
// The `schema_version` key, shared by scenario, GPU and model files: declared once
// here; check_schema_version (config_ranges.h) reads it through this declaration.
#include "config/key.h"

namespace servesim {

const Key& schema_version_key();

}  // namespace servesim
