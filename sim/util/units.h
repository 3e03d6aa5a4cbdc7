#pragma once
// Quantities with units at the YAML edge, one canonical SI unit inside:
//   bytes (B), seconds (s), FLOP, FLOP/s, bytes/s, watts (W), hertz (Hz), US dollars per hour.
// Decimal prefixes (kB, MB, GB, TB) are powers of 10; binary ones (KiB, MiB, GiB,
// TiB) are powers of 2; a lower-case 'b' means bits (8 bits = 1 byte).
#include <string>
#include <string_view>

namespace servesim {

// carbon_intensity: grams of CO2 (equivalent) per kWh of electricity, "400 gCO2/kWh".
// frequency: hertz, "1.41 GHz" (a GPU's SM clock).
enum class Dimension { bytes, bandwidth, flop_rate, time, power, price_per_hour, fraction, carbon_intensity, frequency };

// Parses e.g. "3.35 TB/s", "80 GB", "141 GiB", "400 Gb/s", "989 TFLOP/s",
// "700 W", "5 us", "2.99 USD/h", "85%". Throws servesim::Error naming the
// expected form when the text does not parse or has a unit of another dimension,
// and for a duration longer than kMaxDurationSeconds either way.
double parse_quantity(std::string_view text, Dimension dim);

// Human-readable form with a decimal prefix, e.g. format_bytes(8.03e9) == "8.03 GB".
std::string format_bytes(double bytes);
std::string format_rate(double per_second, std::string_view unit);  // "3.35 TB/s"
std::string format_seconds(double s);                               // "1.23 ms"

std::string_view dimension_example(Dimension dim);

// The longest single duration (think time, latency, overhead, run or stage
// duration) servesim accepts: 1e7 s, about 116 days. Simulated time is int64
// nanoseconds, kept within 1e9 s (core/sim_time.h); a bound on each duration
// keeps every sum of a time and a duration exact and overflow-free.
constexpr double kMaxDurationSeconds = 1e7;

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGB = 1e9;

}  // namespace servesim
