#pragma once
// A step's wall time: the cost model's GPU time plus the CPU-side time the GPU waits
// on (scheduling, input preparation, output processing), a fixed part per step and a
// part per running sequence. The one formula the engines, the static-batch predictor
// and the tests use (inline: the engines call it on every step).
#include <cstdint>

namespace servesim {

struct CpuOverheads {
  double per_step = 0;  // seconds per step (engine.step_cpu_overhead)
  double per_seq = 0;   // seconds per running sequence per step (engine.per_seq_cpu_overhead)
};

// `gpu_seconds`: StepTotals::time (or stage_time for a pipeline stage's occupancy).
inline double step_wall_seconds(double gpu_seconds, const CpuOverheads& cpu, std::int64_t seqs) {
  return gpu_seconds + cpu.per_step + cpu.per_seq * static_cast<double>(seqs);
}

}  // namespace servesim
