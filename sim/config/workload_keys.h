#pragma once
// The declarations of every key under the scenario's `workload:` mapping. The
// readers (config/read_*.cpp) read each key through its declaration here, so the
// default, the range and its reason exist once, and `servesim describe` shows
// the same declarations (workload_key_sections() in config/key_registry.h).
#include <string>
#include <vector>

#include "config/key.h"

namespace servesim {

// `workload:` itself (synthetic requests and trace replay share it).
namespace workload_keys {
extern const Key seed, requests, duration, hash_block_tokens;
extern const Key sampling;  // synthetic and trace replay
extern const Key arrival, input_tokens, output_tokens, shared_prefix, multi_turn;  // synthetic only
extern const Key trace, format, time_scale;                                        // trace replay only
extern const Key patience;                                                         // both
extern const Key lora;                                                             // both
}  // namespace workload_keys

// `workload.arrival`: `process` selects the keys read beside it.
namespace arrival_keys {
extern const Key process, rate, cv, users, think_time, stages;
// One mapping of `stages` (multi_stage): its own process (poisson, gamma or
// constant, with rate and cv as above) and exactly one of duration and requests.
extern const Key stage_process, stage_duration, stage_requests;
}  // namespace arrival_keys

// `workload.input_tokens` and `workload.output_tokens`: `dist` selects the keys.
namespace length_keys {
extern const Key dist, value, mean, stddev;
extern const Key range_min, range_max;  // uniform: the range itself, required
extern const Key clip_min, clip_max;    // every other dist: optional clip bounds
}  // namespace length_keys

namespace shared_prefix_keys {
extern const Key groups, tokens, prompts_per_group, assign;
}  // namespace shared_prefix_keys

namespace sampling_keys {
extern const Key n, beam_width;
}  // namespace sampling_keys

namespace multi_turn_keys {
extern const Key turns, think_time, conversation_metrics;
extern const Key loop, max_turns, think, tool_calls, subagents;  // closed-loop sessions (session_source.h)
}  // namespace multi_turn_keys

namespace tool_call_keys {
extern const Key probability, duration, output_tokens;
}  // namespace tool_call_keys

namespace subagent_keys {
extern const Key probability, count, turns;
}  // namespace subagent_keys

// "file:line:col: workload.arrival.rate": where errors about key `k` of `m` point.
inline std::string where(const ConfigMap& m, const Key& k) { return m.where(std::string(k.name)); }

// The sections of each part, gathered by workload_key_sections().
std::vector<const KeySection*> arrival_key_sections();
std::vector<const KeySection*> length_key_sections();
std::vector<const KeySection*> patience_key_sections();  // config/read_patience.cpp
const KeySection& lora_workload_key_section();            // config/read_lora.cpp
std::vector<const KeySection*> duration_key_sections();  // config/read_duration.cpp (think, tool durations)

}  // namespace servesim
