#pragma once
// Request classes in the run's outputs (workload.classes; metrics/class_metrics.h):
// the "classes" JSON array and the summary table's per-class lines.
#include <nlohmann/json.hpp>
#include <string>

#include "metrics/run_summary.h"

namespace servesim {

nlohmann::json classes_json(const RunSummary& s);
// Empty when the run has no classes.
std::string classes_text(const RunSummary& s);

}  // namespace servesim
