#pragma once
// The event clock: integer nanoseconds, so event order never depends on float
// rounding. Costs are computed in double seconds; to_nanos is the one conversion.
#include <cmath>
#include <cstdint>

namespace servesim {

using Nanos = std::int64_t;

// Rounds half away from zero, exactly as std::llround, inline (it runs several
// times per event): v - trunc(v) is exact in binary floating point. Values beyond
// the int64 range (never a simulated time) go to llround.
inline Nanos to_nanos(double seconds) {
  const double v = seconds * 1e9;
  if (!(std::abs(v) < 9.0e18)) return static_cast<Nanos>(std::llround(v));
  auto n = static_cast<Nanos>(v);  // truncates toward zero
  const double frac = v - static_cast<double>(n);
  if (frac >= 0.5) ++n;
  else if (frac <= -0.5) --n;
  return n;
}
inline double to_seconds(Nanos t) { return static_cast<double>(t) * 1e-9; }

}  // namespace servesim
