#pragma once
// A pool's setup, for the sections that describe several pools of one scenario
// (`disaggregation:`'s prefill and decode pools, `pools:`'s heterogeneous fleet):
// the scenario document with the pool's values put in place of the setup's, read
// by the same reader as the scenario's own setup, so a pool is checked exactly as
// a scenario with those values would be. Internal to sim/config/.
#include <string>

#include "config/config_map.h"
#include "config/key.h"
#include "scenario/setup.h"

namespace servesim {

// Writes the pool's value of `k` (when it has one) at `target` ("hardware.gpu") of `doc`.
void put_pool_key(ConfigNode& doc, ConfigMap& pool, const Key& k, const std::string& target);
// hardware.price_per_hour prices hardware.gpu: a pool on another GPU (its `gpu_key`)
// keeps that GPU file's price, so the scenario's is dropped from `doc`.
void drop_price_of_other_gpu(ConfigNode& doc, ConfigMap& root, ConfigMap& pool, const Key& gpu_key);
// Finishes `pool` and reads `doc` as a setup; an error names the pool's key path.
Setup read_pool_setup(const ConfigNode& doc, ConfigMap& root, ConfigMap& pool);

}  // namespace servesim
