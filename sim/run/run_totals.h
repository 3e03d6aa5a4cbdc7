#pragma once
// What the co-located and the disaggregated event loops share about a run as a
// whole: the overload guard's limit, the energy of GPUs held part of the time and the
// carbon a run's energy stands for.
#include "engine/engine_config.h"
#include "metrics/run_summary.h"

namespace servesim {

// The memory guard's limit: the scenario's engine.max_queue_memory, or a quarter of
// this machine's memory shared among the simulations running at once;
// *from_machine says which.
double queue_guard_bytes(const EngineConfig& e, int concurrent_runs, bool* from_machine);

// The energy of GPUs held for held_gpu_s GPU-seconds, busy_gpu_s of which they stepped,
// drawing step_j in all while stepping: idle power for the rest of the time held, and
// nothing for a GPU not held (an autoscaled replica that is off, not yet started or
// already drained, has given its GPUs back).
double held_energy_j(double step_j, double busy_gpu_s, double held_gpu_s, double idle_watts);

// Sets s.energy_j and what is read from it: watts per GPU on average over the run's
// duration and all s.gpus, joules per output token and per completed request.
void set_energy(RunSummary& s, double energy_j);

// energy.grid_intensity: grams of CO2 for the summary's energy, per output token and
// per completed request (nothing when the intensity is not set).
void add_carbon(RunSummary& s, double grid_g_per_kwh);

}  // namespace servesim
