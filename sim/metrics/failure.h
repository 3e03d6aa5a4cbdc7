#pragma once
// Why a request was not served. A failed request is never silently dropped: it is
// counted by reason in the summary, named in requests.csv's `failure` column, and
// counts as an SLO miss (collector.cpp).
#include <array>
#include <cstdint>
#include <string_view>

namespace servesim {

enum class FailureReason : std::uint8_t {
  none = 0,
  too_long_for_max_model_len,  // prompt + output tokens above engine.max_model_len (or the model's context)
  exceeds_kv_capacity,         // its KV cache alone needs more blocks than the replica has
  overload_guard,              // rejected or cut when the waiting queue hit simulation.max_queue_memory
  abandoned,                   // the user gave up before the first token (workload.patience)
  rate_limited,                // its class's token bucket was empty at the gateway (workload.classes rate_limit)
  shed,                        // sheddable (priority < 0) and every replica saturated (gateway:)
  gateway_queue_full,          // every replica saturated and its class's max_queue held at the gateway
};
inline constexpr int kFailureReasonCount = 8;

inline constexpr std::string_view failure_name(FailureReason r) {
  switch (r) {
    case FailureReason::none: return "";
    case FailureReason::too_long_for_max_model_len: return "too_long_for_max_model_len";
    case FailureReason::exceeds_kv_capacity: return "exceeds_kv_capacity";
    case FailureReason::overload_guard: return "overload_guard";
    case FailureReason::abandoned: return "abandoned";
    case FailureReason::rate_limited: return "rate_limited";
    case FailureReason::shed: return "shed";
    case FailureReason::gateway_queue_full: return "gateway_queue_full";
  }
  return "unknown";
}

// Failed requests per reason (index = static_cast<int>(reason); [0] unused).
using FailureCounts = std::array<std::int64_t, kFailureReasonCount>;

}  // namespace servesim
