#pragma once
// One KV tier's description (engine.kv_tiers; the model is engine/kv_tiers.h).
#include <string>

namespace servesim {

struct KvTierSpec {
  std::string name;           // host, nvme, remote, ...
  double capacity_bytes = 0;  // per replica, or in all when shared
  double bandwidth = 0;       // bytes/s into the replica's GPUs
  double latency_s = 0;       // per transfer
  double ttl_s = 0;           // 0 = kept until evicted
  bool shared = false;        // one store for every replica of the run
};

}  // namespace servesim
