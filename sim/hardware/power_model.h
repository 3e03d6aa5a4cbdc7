#pragma once
// Board power that follows load (docs/energy.md).
//
// Per GPU, over one step of wall time t that does F FLOPs and moves B bytes:
//   U_c = F / (t * peak FLOP/s),  U_m = B / (t * peak bytes/s)
//   P   = P_active + (P_tdp - P_active) * min(1, w_c * U_c + w_m * U_m)
// and P_idle whenever no step runs. P_active is the board's floor while it steps (clocks
// up, weights resident: more than the idle reading of a board at rest); the activity terms
// are the classic "energy per FLOP plus energy per byte" form of dynamic power, written as
// shares of the active-to-TDP span; the cap is the board's power limit.
// w_c, w_m and P_active / P_tdp are per GPU architecture (architecture_power() below), fitted
// to board-level NVML power of the ML.ENERGY Benchmark v3 runs (data/serving/
// mlenergy_v3_lm_arena.csv) by tools/fit/power_fit.py; a GPU file's power keys override them.
#include <string_view>

#include "hardware/gpu_spec.h"

namespace servesim {

struct PowerModel {
  double idle_watts = 0;
  double tdp_watts = 0;
  double compute_weight = 0;
  double memory_weight = 0;
  double active_watts = 0;  // floor while a step runs; 0: idle_watts

  static PowerModel of(const GpuSpec& gpu) {
    return {gpu.idle_watts, gpu.tdp_watts, gpu.power_compute_weight, gpu.power_memory_weight, gpu.active_watts};
  }
  // Watts of a step at zero utilisation.
  double floor_watts() const { return active_watts > 0 ? active_watts : idle_watts; }
  // Share of the floor-to-TDP span drawn at these utilisations, in [0, 1].
  double activity(double compute_util, double memory_util) const;
  // Watts of one GPU stepping at these utilisations (the floor at 0, at most the TDP).
  double watts(double compute_util, double memory_util) const {
    return floor_watts() + (tdp_watts - floor_watts()) * activity(compute_util, memory_util);
  }
};

// The load-following power of one GPU architecture (the GPU file's `architecture:`): what a
// GPU file that does not give power.active / compute_weight / memory_weight gets.
struct ArchitecturePower {
  std::string_view architecture;  // "hopper", "blackwell"; "" for the fallback
  double active_share = 0;        // P_active / P_tdp
  double compute_weight = 0;
  double memory_weight = 0;
  std::string_view source;        // where the numbers come from (describe, docs)
};
// The architecture's entry, or the fallback (Hopper's fit, said so in its source) for an
// architecture without board-level power measurements.
const ArchitecturePower& architecture_power(std::string_view architecture);
// Whether the architecture has its own fitted entry (not the fallback).
bool architecture_power_measured(std::string_view architecture);

}  // namespace servesim
