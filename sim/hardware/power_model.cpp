#include "hardware/power_model.h"

#include <algorithm>
#include <array>

namespace servesim {

double PowerModel::activity(double compute_util, double memory_util) const {
  const double a = compute_weight * std::max(compute_util, 0.0) + memory_weight * std::max(memory_util, 0.0);
  return std::min(a, 1.0);  // the board's power limit
}

namespace {

// Fitted by tools/fit/power_fit.py on board-level NVML power (Zeus) of the ML.ENERGY Benchmark v3
// LMArena runs (data/serving/mlenergy_v3_lm_arena.csv: vLLM 0.11.1, queue kept full), fit rows
// Llama-3.1-8B and Llama-3.1-70B, the other models held out (docs/validation-report.md, "Board
// power"). The active floor is not fitted: an H100 SXM with weights loaded and clocks up at 0%
// utilisation reads 140-145 W (wilicc/gpu-burn issue #114), 142 / 700 W = 0.203 of its TDP;
// Blackwell has no such public reading and takes the same share (an assumption, said in docs).
constexpr std::array<ArchitecturePower, 2> kArchitectures{{
    {"hopper", 0.203, 2.6, 0.91,
     "fitted on H100 SXM board power (ML.ENERGY v3, Llama-3.1-8B/70B runs; other models held out); active "
     "floor 142 W of 700 W from an idle-with-clocks-up reading (wilicc/gpu-burn issue #114)"},
    {"blackwell", 0.203, 2.0, 1.2,
     "fitted on B200 board power (ML.ENERGY v3, Llama-3.1-8B/70B runs; other models held out); active floor "
     "at Hopper's share of the TDP (no public Blackwell reading: an assumption)"},
}};

constexpr ArchitecturePower kFallback{
    "", 0.203, 2.6, 0.91,
    "no board-level power measurements for this architecture: Hopper's fit (H100 SXM, ML.ENERGY v3) used as a "
    "fallback, scaled by the GPU's own TDP"};

}  // namespace

const ArchitecturePower& architecture_power(std::string_view architecture) {
  for (const ArchitecturePower& a : kArchitectures)
    if (a.architecture == architecture) return a;
  return kFallback;
}

bool architecture_power_measured(std::string_view architecture) {
  return std::any_of(kArchitectures.begin(), kArchitectures.end(),
                     [&](const ArchitecturePower& a) { return a.architecture == architecture; });
}

}  // namespace servesim
