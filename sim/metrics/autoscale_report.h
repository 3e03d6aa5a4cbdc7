#pragma once
// An autoscaled fleet over the run (run/autoscaler.h fills it).
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace servesim {

struct AutoscaleReport {
  int min_serving = 0, max_serving = 0;
  int max_replicas = 0;          // parallelism.replicas: the fleet's most
  int gpus_per_replica = 0;      // the first pool's (a heterogeneous fleet: each pool's differs)
  int max_gpus = 0;              // GPUs of all max_replicas replicas
  double mean_serving = 0;       // time-weighted, over the run
  std::int64_t scale_ups = 0;    // replicas started
  std::int64_t scale_downs = 0;  // replicas drained (or starts cancelled)
  double replica_seconds = 0;    // replicas holding GPUs (starting, serving, draining) x seconds
  double gpu_seconds = 0;        // GPUs x seconds held: each replica's seconds x its GPUs
  double startup_s = 0;          // one start's delay: provision + loading (the first pool's)
  double startup_s_min = 0, startup_s_max = 0;  // the fastest and slowest pools' (a heterogeneous fleet)
  std::vector<double> pool_gpu_seconds;  // per pool of a heterogeneous fleet (one entry otherwise)
  double span_s = 0;             // the time the accounting covers: t = 0 to the run's last event
  std::vector<std::pair<double, int>> serving_changes;  // (time s, serving replicas) at each change, capped
  // planner: sla (run/sla_planner.h): its decisions with a reading, those whose corrected
  // ITL not even one sequence a step met (planned at one), and the last plan.
  struct SlaPlanning {
    std::int64_t decisions = 0, itl_unreachable = 0;
    int last_instances = 0, last_batch = 0;
    double last_correction = 1, last_per_instance = 0;  // tokens/s one instance was planned at
  };
  std::optional<SlaPlanning> sla;
  double gpu_hours() const { return gpu_seconds / 3600.0; }
  // What a fixed fleet of max_replicas would hold over the same span.
  double fixed_gpu_hours() const { return span_s * max_gpus / 3600.0; }
};

}  // namespace servesim
