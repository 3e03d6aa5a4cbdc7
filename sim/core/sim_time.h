#pragma once
// The event clock: integer nanoseconds, so event order never depends on float
// rounding. Costs are computed in double seconds; to_nanos is the one conversion.
#include <cmath>
#include <cstdint>

namespace servesim {

using Nanos = std::int64_t;

inline Nanos to_nanos(double seconds) { return static_cast<Nanos>(std::llround(seconds * 1e9)); }
inline double to_seconds(Nanos t) { return static_cast<double>(t) * 1e-9; }

}  // namespace servesim
