#pragma once
// Facts about the machine servesim runs on. Simulation results never depend on
// them, except where a guard sized from them trips, and then the output says so.

namespace servesim {

// Physical memory in bytes (sysconf), or 0 when the system does not say.
double physical_memory_bytes();

}  // namespace servesim
