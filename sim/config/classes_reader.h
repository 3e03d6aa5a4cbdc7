#pragma once
// workload.classes (request classes) and the scenario's `gateway:` section, and the
// checks of both against the rest of the scenario (config/read_classes.cpp,
// config/read_gateway.cpp, where their keys are declared). Internal to sim/config/.
#include <optional>
#include <vector>

#include "config/config_map.h"
#include "config/key.h"
#include "metrics/slo_spec.h"
#include "scenario/gateway_spec.h"
#include "workload/request_classes.h"

namespace servesim {

struct Scenario;

const Key& classes_workload_key();             // for workload's key list
const KeySection& classes_key_section();       // workload.classes (one class, a list item)
const KeySection& gateway_key_section();       // gateway
// workload.classes of the workload mapping `w` (empty when absent). Throws at the
// offending key: a duplicate or unprintable name, shares that do not add to 1, a
// priority, rate or burst out of range, an SLO on ITL (not measured per class).
// `slos` (when given) receives each class's own SLO, in order (unset: none).
std::vector<RequestClassSpec> read_classes(ConfigMap& w, std::vector<std::optional<SloSpec>>* slos);
// The `gateway:` section of `root` (unset when absent).
std::optional<GatewaySpec> read_gateway(ConfigMap& root);
// Classes and gateway against the rest of the scenario: max_queue needs a gateway,
// and the gateway is not modelled with workload.patience.
void check_classes_and_gateway(ConfigMap& root, const Scenario& sc);

}  // namespace servesim
