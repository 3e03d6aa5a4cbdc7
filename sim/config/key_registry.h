#pragma once
// The key sections of each part of the configuration, gathered by config_sections()
// (config/key_registry.cpp). Each list is defined next to the readers of its keys.
#include <vector>

#include "config/key.h"

namespace servesim {

// Scenario: top level, hardware (gpu), model, parallelism, engine, slo, plan.
std::vector<const KeySection*> scenario_key_sections();
// Scenario: workload and its variants (arrival process, length distribution, trace, ...).
std::vector<const KeySection*> workload_key_sections();
// GPU and model catalog files, and the efficiency knobs (GPU file `efficiency:` and
// scenario `hardware.efficiency`), interconnect overrides.
std::vector<const KeySection*> catalog_key_sections();

}  // namespace servesim
