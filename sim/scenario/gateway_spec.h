#pragma once
// The scenario's `gateway:` section: flow control in front of the replicas, as the
// Gateway API Inference Extension's endpoint picker does it (run/gateway.h). A replica
// is saturated when its waiting queue or its KV cache use reaches a threshold; when
// every serving replica is, the gateway holds requests (by priority) instead of
// sending them on, and drops sheddable ones (negative priority) at once.
#include <cstdint>

namespace servesim {

struct GatewaySpec {
  // Defaults: GIE's saturation detector (pkg/epp/saturationdetector/config.go,
  // DefaultQueueDepthThreshold = 5, DefaultKVCacheUtilThreshold = 0.8).
  std::int64_t queue_threshold = 5;  // waiting requests at which a replica is saturated
  double kv_threshold = 0.8;         // KV cache use (fraction) at which a replica is saturated
};

}  // namespace servesim
