#pragma once
// engine.lora and the checks of workload.lora against the rest of the scenario
// (config/read_lora.cpp, where their keys are declared). Internal to sim/config/.
#include "config/config_map.h"
#include "config/key.h"
#include "engine/lora_spec.h"
#include "engine/router.h"
#include "scenario/scenario.h"

namespace servesim {

const Key& lora_engine_key();                // for engine_key_section's list
const KeySection& lora_engine_key_section();  // engine.lora
// engine.lora of engine mapping `e` (enabled false when absent). Throws at the offending key.
LoraEngineSpec read_lora_engine(ConfigMap& e);
// engine.lora against the model, layout and engine (read_setup calls it): the vllm
// engine with vLLM v1's scheduler, no speculative decoding, one pipeline stage, no
// wide layout, and a model whose adapters servesim can shape (cost/lora_shape.h).
void resolve_lora(ConfigMap& eng, Setup& s);
// workload.lora (`w`: the workload mapping) against the engine: engine.lora set, the
// adapters' rank within max_lora_rank, and no prefix caching of shared prompts (vLLM
// keys cached blocks by adapter, which servesim's prefix cache does not); and the
// lora_affinity router only with adapters to route by.
void check_lora_workload(ConfigMap& w, const Scenario& sc);
// LoRA with prefill/decode disaggregation (`root`: the scenario): refused (not modelled).
void check_lora_disaggregation(ConfigMap& root, const Scenario& sc);

}  // namespace servesim
