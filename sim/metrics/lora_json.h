#pragma once
// The run's multi-LoRA figures (metrics/run_summary.h LoraReport) as the `lora`
// object of `run --json` and as the lines `servesim run` prints; a heterogeneous
// fleet's per pool, then in all.
#include <nlohmann/json.hpp>
#include <string>

#include "metrics/run_summary.h"

namespace servesim {

nlohmann::json lora_json(const LoraReport& l);
std::string lora_text(const LoraReport& l);

}  // namespace servesim
