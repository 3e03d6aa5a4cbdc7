#pragma once
// Inclusive bounds of numbers read from input, and the range checks themselves:
// a value out of range is a servesim::Error naming where it came from, the valid
// range and (when given) why the range is what it is. Nothing is clamped or
// wrapped silently. The configuration layer (config/config_ranges.h) reads keys
// through these.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "util/units.h"

namespace servesim {

// Inclusive bounds of an integer key.
struct IntRange {
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
};

// Inclusive bounds of a real key (a quantity in its canonical SI unit).
struct RealRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
};

// Largest integer any int field of a spec struct holds: keys stored in `int`
// are checked against this before the cast, so 4294967312 is not read as 16.
inline constexpr std::int64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();

// The range check alone: throws "<where>: must be in [...]" with `where` as the prefix.
void check_integer_range(const std::string& where, std::int64_t v, IntRange range, std::string_view why = {});
void check_real_range(const std::string& where, double v, RealRange range, Dimension dim, std::string_view why = {});
// A bound or value in its dimension's unit ("1.5 GB", "10 ms"; plain numbers as %g).
std::string show_quantity(double v, Dimension dim);

}  // namespace servesim
