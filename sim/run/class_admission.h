#pragma once
// Request classes and the gateway of a run, set up the same way co-located
// (run/simulation.cpp) and disaggregated (run/disaggregated_simulation.cpp).
#include <optional>

#include "metrics/collector.h"
#include "run/gateway.h"
#include "scenario/scenario.h"
#include "workload/request_classes.h"

namespace servesim {

// workload.classes (a gateway without them has one class, "all"), registered with
// `collector` with the scenario's class SLOs, and the gateway when the scenario has a
// `gateway:` section or a class has a rate limit. Both stay empty without classes or a
// gateway. The gateway refers to `classes`: the caller owns both, in this order.
void set_up_classes(const Scenario& sc, Collector& collector, std::optional<ClassAssignment>& classes,
                    std::optional<Gateway>& gateway);

}  // namespace servesim
