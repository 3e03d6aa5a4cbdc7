#pragma once
// How many kernels one forward step launches on one GPU of a pipeline stage: what an
// engine without CUDA graphs pays a CPU launch for (cost/step_wall_time.h).
#include "cost/step_cost.h"

namespace servesim {

// The launches of a one-sequence decode step (the cost model's per-op counts summed
// over layers, plus the collectives' calls; the per-step overhead entry excluded), divided
// by the pipeline stages (each stage's host launches its own layers). The count
// hardly depends on the batch: kernels grow in size, not in number.
double kernels_per_step(const CostModel& cost, int pipeline_stages);

}  // namespace servesim
