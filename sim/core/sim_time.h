#pragma once
// The event clock: integer nanoseconds, so event order never depends on float
// rounding. Costs are computed in double seconds; to_nanos is the one conversion.
#include <cmath>
#include <cstdint>

namespace servesim {

using Nanos = std::int64_t;

// The simulated clock's range: 1e9 s (31.7 years) either side of 0. int64
// nanoseconds end at 9.2e9 s (292 years); the margin lets a time within the range
// plus any single duration servesim accepts (units.h kMaxDurationSeconds, 1e7 s)
// be added without int64 overflow, so a sum is checked once, against this limit.
inline constexpr double kMaxSimSeconds = 1e9;
inline constexpr Nanos kMaxSimNanos = 1'000'000'000'000'000'000;

// Throws servesim::Error: `seconds` (NaN, infinite or beyond kMaxSimSeconds)
// cannot be a simulated time. Out of line: the callers are on the hot path.
[[noreturn]] void throw_time_out_of_range(double seconds);

// Rounds half away from zero, exactly as std::llround, inline (it runs several
// times per event): v - trunc(v) is exact in binary floating point. A value
// outside the clock's range (or NaN) throws instead of wrapping, so an extreme
// input can neither hang the event loop nor reorder it.
inline Nanos to_nanos(double seconds) {
  const double v = seconds * 1e9;
  if (!(std::abs(v) <= 1e18)) throw_time_out_of_range(seconds);
  auto n = static_cast<Nanos>(v);  // truncates toward zero
  const double frac = v - static_cast<double>(n);
  if (frac >= 0.5) ++n;
  else if (frac <= -0.5) --n;
  return n;
}
inline double to_seconds(Nanos t) { return static_cast<double>(t) * 1e-9; }

}  // namespace servesim
