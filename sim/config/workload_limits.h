#pragma once
// Limits that keep a synthetic workload simulatable in bounded time and memory:
// arrival rates the nanosecond clock can represent, a schedule that ends well
// inside the clock's range, and request, user and token counts whose up-front
// memory is bounded. Each limit is far beyond a real serving benchmark; an input
// past one is refused with the key, the limit and the reason, never trimmed.
// The ranges of single keys are declared with the keys (config/keys_*.cpp);
// check_workload_limits checks what depends on several keys at once.
#include <cstdint>

#include "config/config_map.h"
#include "workload/workload_spec.h"

namespace servesim {

// Requests per second of a poisson/gamma/constant process (and each stage).
// Below kMinArrivalRate the mean gap exceeds the longest duration servesim
// accepts (1e7 s); above kMaxArrivalRate it is under the clock's 1 ns tick.
inline constexpr double kMinArrivalRate = 1e-7;
inline constexpr double kMaxArrivalRate = 1e9;
// The gamma gaps are Gamma(shape 1/cv^2, scale cv^2/rate): outside this range of
// cv the shape or the scale leaves double range (1e200 squares to inf, 1e-200 to 0).
inline constexpr double kMinGammaCv = 1e-6;
inline constexpr double kMaxGammaCv = 1e6;
// Longest expected arrival schedule (requests / rate, stage by stage; later
// turns of a multi-turn session add their think times): 1e8 s (3.2 years),
// a tenth of the clock's range so random gaps cannot reach its end.
inline constexpr double kMaxScheduleSeconds = 1e8;
// workload.requests and a stage's requests: at servesim's ~1M requests/s one
// billion take about 20 minutes.
inline constexpr std::int64_t kMaxRequests = 1'000'000'000;
// all_at_once queues every request at t = 0 (each holds memory from the start).
inline constexpr std::int64_t kMaxRequestsAtOnce = 10'000'000;
// closed_loop users: the source queues one entry per user at t = 0.
inline constexpr std::int64_t kMaxClosedLoopUsers = 1'000'000;
// Longest token length a distribution key (value, min, max, mean) or a shared
// system prompt may give: no model's context comes near it, and it keeps every
// sum of lengths (prefix + question, context + output) inside int64.
inline constexpr std::int64_t kMaxLengthTokens = 1'000'000'000;
// Tokens per prefix-hash block.
inline constexpr std::int64_t kMaxHashBlockTokens = 1 << 20;
// shared_prefix groups x prompts_per_group: the distinct prompts are drawn up front.
inline constexpr std::int64_t kMaxSharedPrompts = 10'000'000;

// Checks `w` (already read from `workload`, whose arrival mapping is `arrival`)
// against the limits above that involve several keys (the schedule's span,
// all_at_once's request count); throws servesim::Error at the key.
void check_workload_limits(ConfigMap& workload, ConfigMap& arrival, const WorkloadSpec& w);

}  // namespace servesim
