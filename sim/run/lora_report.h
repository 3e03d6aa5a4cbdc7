#pragma once
// The run's multi-LoRA figures (workload.lora), summed over the replicas' adapter
// slots (engine/lora_slots.h), for the run summary; a heterogeneous fleet's per pool
// too (each pool's slots, bytes and load times are its own setup's).
#include <memory>
#include <optional>
#include <vector>

#include "engine/engine.h"
#include "metrics/run_summary.h"
#include "run/serving_pool.h"
#include "scenario/scenario.h"

namespace servesim {

// Unset when the scenario has no workload.lora. `pools`: the run's serving pools (one
// for a plain run; sc.pools' for a fleet), whose replicas are `replicas` in order.
std::optional<LoraReport> lora_report(const Scenario& sc, const std::vector<std::unique_ptr<ServingPool>>& pools,
                                      const std::vector<std::unique_ptr<Engine>>& replicas);

}  // namespace servesim
