#pragma once
// A scheduling policy of the vLLM-style engine: who runs in the next step. It
// decides admission (which waiting requests start, in what order), the token
// budget split (how many prompt tokens each prefill computes: chunked prefill),
// and preemption (whom to stop when KV blocks run out), by calling the batch
// state's moves (batch_state.h); it neither prices the step (step_pricing.h) nor
// counts blocks itself (kv_blocks.h).
//
// The engine (vllm_engine.h) calls plan() once per step: one virtual call a step,
// none per token or per sequence. A new policy (vLLM v0's prefill-first order,
// TensorRT-LLM's guaranteed-no-evict admission, SGLang's ...) is one new file
// with its make_<name>_policy and its name in scheduler_names() and
// make_scheduling_policy (scheduling_policy.cpp); engine.scheduler
// (config/read_engine.cpp) takes its choices from scheduler_names(), and a
// framework preset may name it as its default (framework_preset.cpp).
//
// The contract with the engine: after plan()
//  - every decoding sequence runs one token this step (continuous batching), so
//    the decoders' next blocks must fit: decoders().next_step_blocks() <=
//    kv().free() unless none decodes (preempt to make room);
//  - every running prefill with chunk > 0 computes that many prompt tokens, and
//    holds the blocks for them (schedule_chunk / admit_head allocate them);
//  - the total of the two stays within what the policy allows per step.
#include <memory>
#include <string_view>
#include <vector>

#include "core/sim_time.h"
#include "engine/engine_config.h"

namespace servesim {

class BatchState;

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  // Plans the step starting at `now` on `st`. `cutoff`: requests that the
  // frontend delivered after it are not yet seen (async scheduling plans a step
  // while the previous one runs). Returns whether the plan is steady: no request
  // would be admitted before the next external event (an arrival), so that the
  // engine may fuse a run of identical decode-only steps up to it.
  virtual bool plan(BatchState& st, Nanos now, Nanos cutoff) = 0;
};

// Preempts the most recently admitted running request until the decoders'
// next-step blocks fit the free KV blocks (or none decodes); returns whether it
// preempted anyone. Every policy's first move: continuous batching runs every
// decoder each step, so their blocks come before any prefill's.
bool preempt_until_decoders_fit(BatchState& st, Nanos now);

// engine.scheduler's values, the default (vllm_v1) first.
const std::vector<std::string_view>& scheduler_names();
// The policy named by cfg.scheduler (vllm_v1 for an unknown name: the config layer
// accepts only scheduler_names()).
std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const EngineConfig& cfg);

}  // namespace servesim
