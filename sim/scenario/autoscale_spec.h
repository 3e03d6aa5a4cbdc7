#pragma once
// The scenario's `autoscale:` section: a fleet whose replica count follows the
// load (run/autoscaler.h states the policy). parallelism.replicas is the most
// replicas the fleet may run.
#include <cstdint>

namespace servesim {

struct AutoscaleSpec {
  int min_replicas = 1;
  int initial_replicas = 0;          // serving at t = 0; 0: min_replicas
  double interval_s = 15;            // seconds between decisions (Kubernetes HPA's sync period)
  double target_queue = 0;           // waiting requests per serving replica; 0: not a signal
  double target_kv = 0;              // KV cache use per serving replica (fraction); 0: not a signal
  double target_concurrency = 0;     // waiting + running requests per serving replica; 0: not a signal
  double target_ttft_s = 0;          // the TTFT quantile below the fleet aims at; 0: not a signal
  double ttft_quantile = 0.9;        // which quantile of the interval's TTFTs target_ttft limits
  double tolerance = 0.1;            // no change while |metric / target - 1| <= tolerance (HPA's default)
  double provision_s = 0;            // from the decision to a node that can load the model
  double load_bandwidth = 0;         // bytes/s each GPU reads its weights at; 0: no loading time
  double scale_down_window_s = 300;  // a scale-down follows the largest recommendation of this window (HPA)
  int max_step = 0;                  // replicas started or drained per decision at most; 0: no limit (HPA's rule)
  bool hold_while_changing = false;  // no decision while a replica starts or drains (NVIDIA Dynamo's planner)
  // Which rule turns the load into a count: the HPA rule on the target_* signals, or NVIDIA
  // Dynamo's throughput-based SLA planner (run/sla_planner.h; disaggregated pools only), which
  // sizes each pool from the interval's requests, ISL and OSL and the engine's own profile.
  enum class Planner : std::int8_t { hpa, sla };
  Planner planner = Planner::hpa;
  double target_itl_s = 0;  // the SLA planner's inter-token latency target (the decode pool's)
  bool correction = true;   // the SLA planner's correction factors (Dynamo's --no-correction: false)
};

}  // namespace servesim
