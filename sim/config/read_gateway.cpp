// The scenario's `gateway:` section (scenario/gateway_spec.h; the flow control is
// run/gateway.h). Its keys are declared here, once.
#include <fmt/format.h>

#include "config/classes_reader.h"
#include "config/workload_keys.h"
#include "util/error.h"

namespace servesim {
namespace {

const GatewaySpec kDefaults{};

const Key kQueueThreshold{.name = "queue_threshold",
                          .type = KeyType::integer,
                          .doc = "waiting requests at which a replica counts as saturated (the Gateway API Inference "
                                 "Extension's queueDepthThreshold, default 5)",
                          .spec = "GatewaySpec::queue_threshold",
                          .unit = "requests",
                          .default_number = static_cast<double>(kDefaults.queue_threshold),
                          .min = 1,
                          .max = 1e9,
                          .why = "a replica with no queue at all is never saturated by it"};
const Key kKvThreshold{.name = "kv_threshold",
                       .type = KeyType::quantity,
                       .doc = "KV cache use at which a replica counts as saturated (the Gateway API Inference "
                              "Extension's kvCacheUtilThreshold, default 0.8)",
                       .spec = "GatewaySpec::kv_threshold",
                       .dimension = Dimension::fraction,
                       .default_number = kDefaults.kv_threshold,
                       .min = 0.01,
                       .max = 1,
                       .why = "a fraction of the KV cache"};

}  // namespace

const KeySection& gateway_key_section() {
  static const KeySection s{.path = "gateway",
                            .doc = "flow control in front of the replicas: while every serving replica is saturated, "
                                   "requests wait at the gateway by priority and sheddable ones are dropped "
                                   "(run/gateway.h)",
                            .keys = {&kQueueThreshold, &kKvThreshold}};
  return s;
}

std::optional<GatewaySpec> read_gateway(ConfigMap& root) {
  const std::string key(gateway_key_section().path);
  if (!root.has(key)) return std::nullopt;
  ConfigMap m = root.map(key);
  GatewaySpec g;
  g.queue_threshold = read_integer(m, kQueueThreshold);
  g.kv_threshold = read_quantity(m, kKvThreshold);
  m.finish();
  return g;
}

}  // namespace servesim
