#include "planning/economics.h"

#include <algorithm>

namespace servesim::planning {

double gpu_power_watts(const GpuSpec& gpu, double busy_fraction) {
  const double b = std::clamp(busy_fraction, 0.0, 1.0);
  // Simple linear model (see economics.h): idle floor plus the busy share of the
  // idle-to-TDP span.
  return gpu.idle_watts + (gpu.tdp_watts - gpu.idle_watts) * b;
}

Economics economics(const GpuSpec& gpu, int gpus, double output_tokens_per_s, double busy_fraction) {
  Economics e;
  e.gpus = gpus;
  e.usd_per_hour = gpus * gpu.price_per_hour;
  e.output_tokens_per_s = output_tokens_per_s;
  if (output_tokens_per_s > 0) e.usd_per_million_output_tokens = e.usd_per_hour / (output_tokens_per_s * 3600.0) * 1e6;
  e.power_watts = gpus * gpu_power_watts(gpu, busy_fraction);
  if (output_tokens_per_s > 0) e.joules_per_output_token = e.power_watts / output_tokens_per_s;
  return e;
}

Economics economics(const GpuSpec& gpu, const RunSummary& s) {
  return economics(gpu, s.gpus, s.output_tokens_per_s, s.busy_fraction);
}

}  // namespace servesim::planning
