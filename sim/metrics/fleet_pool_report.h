#pragma once
// What a heterogeneous fleet (the scenario's `pools:`) reports per pool beyond the
// run's summary: the pool's hardware figures (PoolReport, as a disaggregated run's
// pools have) and the latency of the requests its replicas served.
#include <cstdint>
#include <string>

#include "metrics/disaggregation_report.h"
#include "metrics/stats.h"

namespace servesim {

struct FleetPoolReport {
  std::string name;
  PoolReport hardware;
  std::int64_t completed = 0, failed = 0;  // requests its replicas finished / failed
  double output_tokens_per_s = 0;          // over the run's duration
  Distribution ttft_ms, tpot_ms, e2e_ms;
  double price_per_gpu_hour = 0;
  // GPU-hours the pool held: its GPUs over the run, or, autoscaled, from each
  // replica's start decision to its stop.
  double gpu_hours = 0;
};

}  // namespace servesim
