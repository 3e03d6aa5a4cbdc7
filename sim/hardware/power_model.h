#pragma once
// Board power that follows load (docs/energy.md).
//
// Per GPU, over one step of wall time t that does F FLOPs and moves B bytes:
//   U_c = F / (t * peak FLOP/s),  U_m = B / (t * peak bytes/s)
//   P   = P_idle + (P_tdp - P_idle) * min(1, w_c * U_c + w_m * U_m)
// and P_idle whenever no step runs. The activity terms are the classic
// "energy per FLOP plus energy per byte" form of dynamic power, written as shares
// of the idle-to-TDP span; the cap is the board's power limit (dense GEMMs on
// Hopper reach it well below the datasheet peak, so w_c > 1).
// Defaults (w_c = 1.8, w_m = 0.6, per GPU file power.compute_weight /
// power.memory_weight) are a two-point fit of servesim's own utilisations on
// scenarios/quickstart.yaml (Llama-3.1-8B, H100 SXM) to the ML.ENERGY Benchmark
// v3.0 H100 measurements (about 300 W at batch 1, 600 W at batch 128; Chung et al.,
// "Where Do the Joules Go?", arXiv:2601.22076), with the prompt phase at the power
// limit as Splitwise measured it (Patel et al., ISCA'24, arXiv:2311.18677).
#include "hardware/gpu_spec.h"

namespace servesim {

struct PowerModel {
  double idle_watts = 0;
  double tdp_watts = 0;
  double compute_weight = 0;
  double memory_weight = 0;

  static PowerModel of(const GpuSpec& gpu) {
    return {gpu.idle_watts, gpu.tdp_watts, gpu.power_compute_weight, gpu.power_memory_weight};
  }
  // Share of the idle-to-TDP span drawn at these utilisations, in [0, 1].
  double activity(double compute_util, double memory_util) const;
  // Watts of one GPU at these utilisations (P_idle at 0, at most the TDP).
  double watts(double compute_util, double memory_util) const {
    return idle_watts + (tdp_watts - idle_watts) * activity(compute_util, memory_util);
  }
};

}  // namespace servesim
