#pragma once
// engine.kv_tiers (config/read_kv_tiers.cpp). Internal to sim/config/.
#include <vector>

#include "config/config_map.h"
#include "config/key.h"
#include "engine/kv_tiers.h"

namespace servesim {

const Key& kv_tiers_key();                  // for engine_key_section's list
const KeySection& kv_tiers_key_section();  // engine.kv_tiers items
// The tiers of engine mapping `e` (empty when absent). Throws at the offending key.
std::vector<KvTierSpec> read_kv_tiers(ConfigMap& e);

}  // namespace servesim
