#pragma once
// A scenario: everything one simulation needs, as plain immutable structs. Read
// once from its document (plus --set overrides) by config/scenario_reader.h; no
// document node escapes the reader.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scenario/autoscale_spec.h"
#include "scenario/fleet_pools.h"
#include "scenario/gateway_spec.h"
#include "scenario/setup.h"
#include "metrics/slo_spec.h"
#include "workload/workload_spec.h"

namespace servesim {

struct DisaggregationSpec;  // scenario/disaggregation.h

struct Scenario : Setup {
  std::string source;  // file it came from
  WorkloadSpec workload;
  bool has_workload = false;
  SloSpec slo;
  double grid_g_per_kwh = 0;  // energy.grid_intensity: gCO2 per kWh drawn; 0 = unset (no carbon figures)
  // The `disaggregation:` section (prefill and decode pools); null: co-located serving.
  std::shared_ptr<const DisaggregationSpec> disaggregation;
  // The `autoscale:` section (run/autoscaler.h); unset: a fixed fleet of parallelism.replicas.
  std::optional<AutoscaleSpec> autoscale;
  // The `pools:` section: a heterogeneous fleet, its replicas numbered pool by pool
  // in order (parallelism.replicas is then their sum); empty: parallelism.replicas
  // replicas of the scenario's own setup.
  std::vector<FleetPoolSpec> pools;
  // The `gateway:` section (run/gateway.h): flow control in front of the replicas; unset: none.
  std::optional<GatewaySpec> gateway;
  // Per workload.classes entry, in order: its own SLO (unset: `slo` applies to it).
  std::vector<std::optional<SloSpec>> class_slos;
};

}  // namespace servesim
