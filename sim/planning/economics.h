#pragma once
// Dollars and joules from a run's summary and the GPU's catalog entry.
//
// Power model (an assumption, not a measurement): each GPU draws
//   P = idle_watts + (tdp_watts - idle_watts) * busy_fraction
// i.e. linear in the share of wall time some step is running
// (RunSummary.busy_fraction), at TDP while busy and at idle power otherwise.
// Real GPUs rarely sit at TDP during memory-bound decode, so this is an upper
// estimate of the busy part; it ranks configurations by how long they keep
// their GPUs busy, not by measured board power.
#include "hardware/gpu_spec.h"
#include "metrics/run_summary.h"

namespace servesim::planning {

// Watts per GPU at a busy fraction (clamped to [0, 1]).
double gpu_power_watts(const GpuSpec& gpu, double busy_fraction);

struct Economics {
  int gpus = 0;
  double usd_per_hour = 0;          // gpus * price_per_hour
  double output_tokens_per_s = 0;   // the load the costs are spread over
  double usd_per_million_output_tokens = 0;  // 0 when there is no output
  double power_watts = 0;           // all GPUs
  double joules_per_output_token = 0;
};

// Costs of `gpus` GPUs serving `output_tokens_per_s`, busy `busy_fraction` of the time.
Economics economics(const GpuSpec& gpu, int gpus, double output_tokens_per_s, double busy_fraction);
// The same for one run: its GPUs, its output token rate and busy fraction.
Economics economics(const GpuSpec& gpu, const RunSummary& s);

}  // namespace servesim::planning
