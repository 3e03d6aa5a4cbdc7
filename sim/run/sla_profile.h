#pragma once
// The SLA planner's profile of a pool's instance (run/sla_planner.h) from servesim's own
// step times on the pool's GPU, layout and engine: what Dynamo's pre-deployment profiler
// measures on the real engine.
#include "run/serving_pool.h"
#include "run/sla_planner.h"

namespace servesim {

// prefill_s: the front end plus the prompt's prefill alone, in chunks of the engine's token
// budget when chunked prefill is on, the last chunk sampling the first token (what a
// profiler's TTFT of one request measures); decode_step_s: one decode step's wall time
// (GPU and host) of `batch` sequences at `context` tokens; max_batch: max_num_seqs, or the
// sequences of `context` tokens the instance's KV blocks hold, whichever is fewer.
SlaProfile sla_profile(const ServingPool& pool);

}  // namespace servesim
