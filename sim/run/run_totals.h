#pragma once
// What the co-located and the disaggregated event loops share about a run as a
// whole: the overload guard's limit and the carbon a run's energy stands for.
#include "engine/engine_config.h"
#include "metrics/run_summary.h"

namespace servesim {

// The memory guard's limit: the scenario's engine.max_queue_memory, or a quarter of
// this machine's memory shared among the simulations running at once;
// *from_machine says which.
double queue_guard_bytes(const EngineConfig& e, int concurrent_runs, bool* from_machine);

// energy.grid_intensity: grams of CO2 for the summary's energy, per output token and
// per completed request (nothing when the intensity is not set).
void add_carbon(RunSummary& s, double grid_g_per_kwh);

}  // namespace servesim
