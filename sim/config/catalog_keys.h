#pragma once
// The key sections of the catalog readers, each defined next to its reader and
// gathered by catalog_key_sections() (config/keys_catalog.cpp).
#include <vector>

#include "config/key.h"

namespace servesim {

// "(gpu file)" and its mappings (compute, memory, interconnect.*, power, cost).
std::vector<const KeySection*> gpu_file_key_sections();
// "(gpu file).efficiency" and "hardware.efficiency", made from hardware/efficiency.h's
// knob table, and the scenario's "hardware.interconnect.*" overrides.
std::vector<const KeySection*> gpu_override_key_sections();
// "(model file)" and attention, mlp, moe, mla.
std::vector<const KeySection*> model_file_key_sections();

}  // namespace servesim
