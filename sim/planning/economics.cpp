#include "planning/economics.h"

namespace servesim::planning {

Economics economics(const GpuSpec& gpu, int gpus, double output_tokens_per_s, double watts_per_gpu) {
  Economics e;
  e.gpus = gpus;
  e.usd_per_hour = gpus * gpu.price_per_hour;
  e.output_tokens_per_s = output_tokens_per_s;
  if (output_tokens_per_s > 0) e.usd_per_million_output_tokens = e.usd_per_hour / (output_tokens_per_s * 3600.0) * 1e6;
  e.power_watts = gpus * watts_per_gpu;
  if (output_tokens_per_s > 0) e.joules_per_output_token = e.power_watts / output_tokens_per_s;
  return e;
}

Economics economics(const GpuSpec& gpu, const RunSummary& s) {
  return economics(gpu, s.gpus, s.output_tokens_per_s, s.power_w_per_gpu);
}

}  // namespace servesim::planning
