#pragma once
// A heterogeneous fleet (the scenario's `pools:` section): co-located replicas of
// several setups (GPU type, tensor parallelism, weight precision, price) behind
// the one router. Each pool's setup is the scenario's own with the pool's keys in
// place (config/read_pools.cpp), so every pool runs the same model and engine.
// The pools are listed in order of preference: an autoscaled fleet starts replicas
// from the first pool and drains them from the last (run/autoscaler.h).
#include <string>
#include <vector>

#include "scenario/setup.h"

namespace servesim {

struct FleetPoolSpec {
  std::string name;  // for the summary, JSON and errors
  Setup setup;       // its parallelism.replicas is the pool's
};

}  // namespace servesim
