#include "engine/scheduling_policy.h"

#include "engine/batch_state.h"

namespace servesim {

std::unique_ptr<SchedulingPolicy> make_vllm_policy(const EngineConfig& cfg);               // policy_vllm.cpp
std::unique_ptr<SchedulingPolicy> make_vllm_v0_policy(const EngineConfig& cfg);            // policy_vllm_v0.cpp
std::unique_ptr<SchedulingPolicy> make_trtllm_no_evict_policy(const EngineConfig& cfg);   // policy_trtllm.cpp

bool preempt_until_decoders_fit(BatchState& st, Nanos now) {
  const DecodeAggregate& dec = st.decoders();
  bool preempted = false;
  while (dec.next_step_blocks() > st.kv().free() && dec.count() > 0) {
    st.preempt(st.newest_running(), now);
    preempted = true;
  }
  return preempted;
}

const std::vector<std::string_view>& scheduler_names() {
  static const std::vector<std::string_view> names = {"vllm_v1", "vllm_v0_prefill_first", "trtllm_no_evict",
                                                      "trtllm_max_utilization"};
  return names;
}

std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const EngineConfig& cfg) {
  // One line per policy, by engine.scheduler ("vllm_v1" is the default and the fallback).
  if (cfg.scheduler == "trtllm_no_evict") return make_trtllm_no_evict_policy(cfg);
  if (cfg.scheduler == "vllm_v0_prefill_first") return make_vllm_v0_policy(cfg);
  // trtllm_max_utilization: TensorRT-LLM's MAX_UTILIZATION pauses the most recently
  // started requests when blocks run out, as vLLM preempts (policy_trtllm.cpp).
  return make_vllm_policy(cfg);
}

}  // namespace servesim
