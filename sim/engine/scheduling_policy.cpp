#include "engine/scheduling_policy.h"

namespace servesim {

std::unique_ptr<SchedulingPolicy> make_vllm_policy(const EngineConfig& cfg);  // policy_vllm.cpp

std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const EngineConfig& cfg) {
  // One line per policy, by engine.kind ("vllm" is the default and the fallback).
  return make_vllm_policy(cfg);
}

}  // namespace servesim
