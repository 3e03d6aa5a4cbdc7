#pragma once
// The run's multi-LoRA figures (workload.lora), summed over the replicas' adapter
// slots (engine/lora_slots.h), for the run summary.
#include <memory>
#include <optional>
#include <vector>

#include "cost/step_cost.h"
#include "engine/engine.h"
#include "metrics/run_summary.h"
#include "scenario/scenario.h"

namespace servesim {

// Unset when the scenario has no workload.lora.
std::optional<LoraReport> lora_report(const Scenario& sc, const CostModel& cost,
                                      const std::vector<std::unique_ptr<Engine>>& replicas);

}  // namespace servesim
