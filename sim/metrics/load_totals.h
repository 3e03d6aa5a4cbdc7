#pragma once
// Running totals of a deployment's requests, for a planner that reads them per interval
// (run/sla_planner.h: the differences between two readings are that interval's).
#include <cstdint>

namespace servesim {

struct LoadTotals {
  std::int64_t arrived = 0;   // requests that reached the deployment
  std::int64_t finished = 0;  // requests finished (not failed)
  double input_tokens = 0, output_tokens = 0;  // of the finished requests
  double ttft_s = 0, duration_s = 0;           // sums over the finished requests
  double decode_s = 0;  // sum of (last token - first token) over those with more than one token
  double gaps = 0;      // sum of (output tokens - 1): the inter-token gaps decode_s spans
};

}  // namespace servesim
