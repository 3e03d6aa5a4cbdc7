#pragma once
// LoRA routing checks the single-replica and pool tests share.
#include <algorithm>
#include <cstdint>
#include <map>

#include "workload/lora_adapters.h"

namespace servesim::testing {

// The share of requests served on their adapter's usual replica (the one that served most of
// that adapter's requests): 1.0 when every adapter stays on one replica.
template <typename Results>
double share_on_usual_replica(const Results& results, const LoraAssignment& assign) {
  std::map<std::int32_t, std::map<int, int>> count;
  for (const auto& q : results) ++count[assign.adapter(q.id)][q.replica];
  int on_usual = 0;
  for (const auto& [adapter, by_replica] : count) {
    int most = 0;
    for (const auto& [replica, n] : by_replica) most = std::max(most, n);
    on_usual += most;
  }
  return results.empty() ? 0.0 : static_cast<double>(on_usual) / static_cast<double>(results.size());
}

}  // namespace servesim::testing
