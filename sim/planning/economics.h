#pragma once
// Dollars and joules from a run's summary and the GPU's catalog entry.
//
// Power comes from the run (hardware/power_model.h, docs/energy.md): each step
// draws active + (TDP - active) x min(1, w_c x compute utilisation + w_m x memory-
// bandwidth utilisation), the time between steps idle power, so the average
// board power per GPU (RunSummary.power_w_per_gpu) follows the load: a
// single-user decode draws well below TDP, a saturated batch close to it.
#include <string>

#include "hardware/gpu_spec.h"
#include "metrics/run_summary.h"
#include "scenario/scenario.h"

namespace servesim::planning {

struct Economics {
  int gpus = 0;
  double usd_per_hour = 0;          // gpus * price_per_hour
  double output_tokens_per_s = 0;   // the load the costs are spread over
  double usd_per_million_output_tokens = 0;  // 0 when there is no output
  double power_watts = 0;           // all GPUs
  double joules_per_output_token = 0;
};

// Costs of `gpus` GPUs serving `output_tokens_per_s`, each drawing `watts_per_gpu` on average.
Economics economics(const GpuSpec& gpu, int gpus, double output_tokens_per_s, double watts_per_gpu);
// The same for one run: its GPUs, its output token rate and average board power.
Economics economics(const GpuSpec& gpu, const RunSummary& s);
// One run of a scenario: as above, and for a disaggregated one each pool's GPUs at
// their own GPU's price.
Economics run_economics(const Scenario& sc, const RunSummary& s);

// `run`'s cost line: "$2.99/hour for 1 GPU (h100-sxm at $2.99/GPU-hour): $0.372 per
// million output tokens at this run's 2232 output tok/s, $0.213 for the 256.7 s
// simulated", or what to set when no GPU has a price.
std::string cost_text(const Scenario& sc, const RunSummary& s);

}  // namespace servesim::planning
