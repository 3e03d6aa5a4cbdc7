#pragma once
// A step's wall time: the cost model's GPU time plus the CPU-side time the GPU waits
// on (scheduling, input preparation, output processing), a fixed part per step and a
// part per running sequence. Without CUDA graphs the CPU launches every kernel of the
// step one by one; the GPU runs them as they come, so the step lasts at least as long
// as the launches (the launch floor) and the GPU time hides under it when shorter.
// The one formula the engines, the static-batch predictor and the tests use (inline:
// the engines call it on every step).
#include <algorithm>
#include <cstdint>

namespace servesim {

struct CpuOverheads {
  double per_step = 0;  // seconds per step (engine.step_cpu_overhead)
  double per_seq = 0;   // seconds per running sequence per step (engine.per_seq_cpu_overhead)
  double launch_floor = 0;  // seconds to launch one step's kernels from the CPU; 0 with CUDA graphs
  // seconds added to a step that prefills at least one sequence (engine.prefill_layer_overhead
  // x the stage's layers); 0 for every framework but those whose preset sets it
  double per_prefill_step = 0;
};

// `gpu_seconds`: StepTotals::time (or stage_time for a pipeline stage's occupancy);
// `prefill_seqs`: the sequences with more than one new token (BatchSummary::prefill_seqs).
inline double step_wall_seconds(double gpu_seconds, const CpuOverheads& cpu, std::int64_t seqs,
                                std::int64_t prefill_seqs = 0) {
  // std::max(x, 0.0) is x for every x >= 0, so CUDA-graph engines get gpu_seconds exactly;
  // without a prefill cost the last term is + 0.0, which leaves the sum's bits unchanged.
  const double wall = std::max(gpu_seconds, cpu.launch_floor) + cpu.per_step + cpu.per_seq * static_cast<double>(seqs);
  return prefill_seqs > 0 ? wall + cpu.per_prefill_step : wall;
}

}  // namespace servesim
