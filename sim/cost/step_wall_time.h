#pragma once
// A step's wall time: the cost model's GPU time plus the host-side (CPU) work of the
// serving stack that the GPU waits on. Without CUDA graphs the CPU launches every kernel
// of the step one by one; the GPU runs them as they come, so the step lasts at least as
// long as the launches (the launch floor) and the GPU time hides under it when shorter.
//
// The host work of a step grows with what the step does (docs/host-cost.md has the
// physics and where each framework's numbers come from). Two parts:
//   serial = per_step + per_seq x running sequences
//     the hand-off the GPU always waits on (inputs to the device, launching the step,
//     returning the sampled tokens);
//   tokens = per_token x sampled tokens + per_prompt_token x scheduled prompt tokens
//     the work per token (sampler bookkeeping, detokenisation, stop checks, streaming;
//     input preparation per prompt token), of which a share `overlap` runs while the GPU
//     computes in engines that plan step N+1 during step N (vLLM V1's async scheduling,
//     SGLang's overlap scheduler):
//   wall = max(max(GPU, launch floor), overlap x tokens) + serial + (1 - overlap) x tokens
// (with multi-step scheduling the scheduling part of serial is paid once per N decode steps:
// CpuOverheads::schedule_every)
// so a large batch whose per-token host work outgrows its GPU step becomes host-bound:
// the reason loaded engines run longer TPOTs than their kernels alone explain.
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
  // seconds per token sampled in the step (engine.per_token_cpu_overhead): sampler
  // bookkeeping, detokenisation, stop checks, output streaming
  double per_token = 0;
  // seconds per prompt token scheduled in the step (engine.prompt_token_cpu_overhead):
  // input preparation that scales with the tokens (positions, slot mapping, token ids)
  double per_prompt_token = 0;
  // share of the per-token work above that runs while the GPU computes (engine.host_overlap)
  double overlap = 0;
  // Multi-step scheduling (vLLM V0's --num-scheduler-steps, engine.num_scheduler_steps): the
  // scheduler runs and prepares inputs once for `schedule_every` decode steps, so in a step
  // without a prefill that part of per_step (`schedule_step`, seconds) and all of per_seq (the
  // vllm-v0 preset's schedule + prepare-inputs slope) count 1 / schedule_every each; the
  // sampler and output processing (per_token and the rest of per_step) still run every step.
  // A step that prefills is scheduled on its own. 1: every step schedules.
  int schedule_every = 1;
  double schedule_step = 0;
};

// `gpu_seconds`: StepTotals::time (or stage_time for a pipeline stage's occupancy);
// `prefill_seqs`: the sequences with more than one new token (BatchSummary::prefill_seqs);
// `sampled`: tokens sampled (BatchSummary::sampled); `prompt_tokens`: prompt tokens
// computed in the step (BatchSummary::prefill_tokens).
inline double step_wall_seconds(double gpu_seconds, const CpuOverheads& cpu, std::int64_t seqs,
                                std::int64_t prefill_seqs = 0, std::int64_t sampled = 0,
                                std::int64_t prompt_tokens = 0) {
  const double tokens =
      cpu.per_token * static_cast<double>(sampled) + cpu.per_prompt_token * static_cast<double>(prompt_tokens);
  // std::max(x, 0.0) is x for every x >= 0, so CUDA-graph engines get gpu_seconds exactly.
  const double gpu = std::max(gpu_seconds, cpu.launch_floor);
  double per_step = cpu.per_step, per_seq = cpu.per_seq;
  if (cpu.schedule_every > 1 && prefill_seqs == 0) [[unlikely]] {
    const double n = cpu.schedule_every;
    per_step = cpu.per_step - cpu.schedule_step + cpu.schedule_step / n;
    per_seq = cpu.per_seq / n;
  }
  // Without per-token work (tokens = +0.0) the sum is the same double as before it existed.
  const double wall = (cpu.overlap > 0 ? std::max(gpu, cpu.overlap * tokens) + (1.0 - cpu.overlap) * tokens
                                       : gpu + tokens) +
                      per_step + per_seq * static_cast<double>(seqs);
  return prefill_seqs > 0 ? wall + cpu.per_prefill_step : wall;
}

}  // namespace servesim
