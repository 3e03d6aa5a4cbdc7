#pragma once
// JSON views of setups, memory plans and step costs (inspect: report/inspect_report.h).
#include <nlohmann/json.hpp>

#include "cost/memory_plan.h"
#include "scenario/setup.h"

namespace servesim {

nlohmann::json setup_json(const Setup& s, const CostModel& cost);
nlohmann::json memory_json(const MemoryPlan& p);
nlohmann::json step_json(const StepCost& c, nlohmann::json batch);

}  // namespace servesim
