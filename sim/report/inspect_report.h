#pragma once
// What `servesim inspect` computes, as a library call (the CLI prints it, the Python
// module returns its JSON): the memory plan of a setup and the roofline cost of one
// representative prefill batch and one decode batch.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "config/config_node.h"
#include "cost/memory_plan.h"
#include "cost/step_cost.h"
#include "scenario/setup.h"

namespace servesim {

// The sample batches (inspect's --prefill-batch ... --decode-context).
struct InspectBatches {
  std::int64_t prefill_batch = 1, prefill_len = 1024, decode_batch = 32, decode_context = 1024;
  // The prompt length and decode context were not given (inspect's defaults): a model whose context
  // is shorter (GPT-2's 1024 positions) is inspected at its context instead of refused.
  bool fit_prefill_len = false, fit_decode_context = false;
};

struct InspectReport {
  Setup setup;
  CostModel cost;
  MemoryPlan memory;
  StepCost prefill, decode;
  InspectBatches batches;  // the sample batches priced (the defaults fitted to the model's context)
};

// Reads only the setup of `doc` (the workload and SLOs are left unread; the top-level
// keys are checked as for `run`). Errors are the config layer's (file, line, key).
InspectReport inspect_setup(const ConfigNode& doc, const std::string& source, const InspectBatches& batches);

// {setup, memory, prefill, decode}: the JSON of `inspect --json`.
nlohmann::json inspect_json(const InspectReport& r, const InspectBatches& batches);

}  // namespace servesim
