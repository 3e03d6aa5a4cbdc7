// Quantities with units (sim/util/units.h): every unit is converted to one SI unit
// inside; expected values are the datasheet figure times the prefix factor.
#include <catch2/catch.hpp>

#include <cmath>

#include "util/error.h"
#include "util/units.h"

using namespace servesim;
using Catch::Contains;

TEST_CASE("units: bandwidth in decimal bytes per second", "[units]") {
  // "3.35 TB/s": T = 1e12, B = 1 byte -> 3.35 * 1e12 = 3.35e12 B/s (H100 SXM HBM3).
  CHECK(parse_quantity("3.35 TB/s", Dimension::bandwidth) == Approx(3.35e12).epsilon(1e-12));
  // "2.039 TB/s" -> 2.039e12 B/s (A100 80GB SXM).
  CHECK(parse_quantity("2.039 TB/s", Dimension::bandwidth) == Approx(2.039e12).epsilon(1e-12));
  // No space between number and unit parses the same: "64GB/s" = 64e9 B/s.
  CHECK(parse_quantity("64GB/s", Dimension::bandwidth) == Approx(64e9).epsilon(1e-12));
  // Surrounding whitespace is ignored.
  CHECK(parse_quantity("  450 GB/s  ", Dimension::bandwidth) == Approx(450e9).epsilon(1e-12));
}

TEST_CASE("units: lower-case b means bits", "[units]") {
  // "400 Gb/s" = 400e9 bits/s / 8 bits per byte = 50e9 B/s (one NDR InfiniBand NIC).
  CHECK(parse_quantity("400 Gb/s", Dimension::bandwidth) == Approx(50e9).epsilon(1e-12));
  // Boundary pair: the same number with a capital B is 8x larger: 400e9 B/s.
  CHECK(parse_quantity("400 GB/s", Dimension::bandwidth) == Approx(400e9).epsilon(1e-12));
  // "bps" is bits too: 200 Gbps = 200e9 / 8 = 25e9 B/s.
  CHECK(parse_quantity("200 Gbps", Dimension::bandwidth) == Approx(25e9).epsilon(1e-12));
  // Sizes: 8 b = 1 B.
  CHECK(parse_quantity("8 b", Dimension::bytes) == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("units: decimal GB versus binary GiB", "[units]") {
  // "80 GB" = 80 * 1e9 = 80,000,000,000 bytes.
  const double gb = parse_quantity("80 GB", Dimension::bytes);
  CHECK(gb == Approx(80e9).epsilon(1e-12));
  // "80 GiB" = 80 * 2^30 = 80 * 1,073,741,824 = 85,899,345,920 bytes (exact in a double).
  const double gib = parse_quantity("80 GiB", Dimension::bytes);
  CHECK(gib == 85899345920.0);
  CHECK(gib == 80.0 * std::pow(2.0, 30));
  // The two differ by 2^30/1e9 = 1.073741824.
  CHECK(gib / gb == Approx(1.073741824).epsilon(1e-12));
  // Boundary pair at the kilo prefix: 1 kB = 1000 B, 1 KiB = 1024 B.
  CHECK(parse_quantity("1 kB", Dimension::bytes) == 1000.0);
  CHECK(parse_quantity("1 KiB", Dimension::bytes) == 1024.0);
  // 141 GB (H200) = 141e9 B; 1 TiB = 2^40 = 1,099,511,627,776 B.
  CHECK(parse_quantity("141 GB", Dimension::bytes) == Approx(141e9).epsilon(1e-12));
  CHECK(parse_quantity("1 TiB", Dimension::bytes) == 1099511627776.0);
}

TEST_CASE("units: compute rate, time, power, price, fraction", "[units]") {
  // "989.4 TFLOP/s" = 989.4 * 1e12 = 9.894e14 FLOP/s (H100 dense bf16).
  CHECK(parse_quantity("989.4 TFLOP/s", Dimension::flop_rate) == Approx(9.894e14).epsilon(1e-12));
  // "TFLOPS" is an accepted spelling of the same unit.
  CHECK(parse_quantity("989.4 TFLOPS", Dimension::flop_rate) == Approx(9.894e14).epsilon(1e-12));
  // Integer tensor ops: "1978.9 TOP/s" = 1.9789e15.
  CHECK(parse_quantity("1978.9 TOP/s", Dimension::flop_rate) == Approx(1.9789e15).epsilon(1e-12));
  // "5 us" = 5 * 1e-6 s = 5e-6 s; boundary pair "5 ms" = 5e-3 s (1000x).
  CHECK(parse_quantity("5 us", Dimension::time) == Approx(5e-6).epsilon(1e-12));
  CHECK(parse_quantity("5 ms", Dimension::time) == Approx(5e-3).epsilon(1e-12));
  CHECK(parse_quantity("1.5 s", Dimension::time) == Approx(1.5).epsilon(1e-12));
  CHECK(parse_quantity("250 ns", Dimension::time) == Approx(250e-9).epsilon(1e-12));
  // "700 W" = 700 watts; "1.2 kW" = 1200 W.
  CHECK(parse_quantity("700 W", Dimension::power) == Approx(700.0).epsilon(1e-12));
  CHECK(parse_quantity("1.2 kW", Dimension::power) == Approx(1200.0).epsilon(1e-12));
  // "2.99 USD/h" = 2.99 US dollars per hour (the canonical unit).
  CHECK(parse_quantity("2.99 USD/h", Dimension::price_per_hour) == Approx(2.99).epsilon(1e-12));
  // "85%" = 85 * 0.01 = 0.85; a bare number is already a fraction: "0.85" = 0.85.
  CHECK(parse_quantity("85%", Dimension::fraction) == Approx(0.85).epsilon(1e-12));
  CHECK(parse_quantity("0.85", Dimension::fraction) == Approx(0.85).epsilon(1e-12));
  // Boundary pair: "100%" = 1.0 and "1%" = 0.01.
  CHECK(parse_quantity("100%", Dimension::fraction) == Approx(1.0).epsilon(1e-12));
  CHECK(parse_quantity("1%", Dimension::fraction) == Approx(0.01).epsilon(1e-12));
}

TEST_CASE("units: clock frequency", "[units]") {
  // "1.41 GHz" = 1.41 * 1e9 Hz (A100 boost); "1980 MHz" = 1980 * 1e6 = 1.98e9 Hz (H100 SXM5).
  CHECK(parse_quantity("1.41 GHz", Dimension::frequency) == Approx(1.41e9).epsilon(1e-12));
  CHECK(parse_quantity("1980 MHz", Dimension::frequency) == Approx(1.98e9).epsilon(1e-12));
  CHECK_THROWS_WITH(parse_quantity("1.41 GB", Dimension::frequency), Contains("clock frequency"));
}

TEST_CASE("units: a number without a unit is rejected outside fractions", "[units][errors]") {
  REQUIRE_THROWS_AS(parse_quantity("80", Dimension::bytes), Error);
  REQUIRE_THROWS_WITH(parse_quantity("80", Dimension::bytes),
                      Contains("'80' has no unit") && Contains("expected a size like '80 GB'"));
  REQUIRE_THROWS_WITH(parse_quantity("3.35", Dimension::bandwidth),
                      Contains("has no unit") && Contains("'3.35 TB/s'"));
  REQUIRE_THROWS_WITH(parse_quantity("5", Dimension::time), Contains("has no unit"));
}

TEST_CASE("units: text that is not a number is rejected", "[units][errors]") {
  REQUIRE_THROWS_WITH(parse_quantity("fast", Dimension::bandwidth),
                      Contains("'fast' is not a quantity") && Contains("expected a bandwidth"));
  REQUIRE_THROWS_WITH(parse_quantity("", Dimension::bytes), Contains("is not a quantity"));
}

TEST_CASE("units: unknown unit suggests the closest one of the right dimension", "[units][errors]") {
  // "TB/sec" is two edits from "TB/s": close enough for a suggestion.
  REQUIRE_THROWS_WITH(parse_quantity("3.35 TB/sec", Dimension::bandwidth),
                      Contains("unknown unit 'TB/sec'") && Contains("did you mean 'TB/s'"));
  // "Gib" (not a unit: bits have no binary prefix here) is one edit from "GiB".
  REQUIRE_THROWS_WITH(parse_quantity("80 Gib", Dimension::bytes),
                      Contains("unknown unit 'Gib'") && Contains("did you mean 'GiB'"));
  // Nonsense far from every unit: no suggestion, but the expected form is still named.
  REQUIRE_THROWS_WITH(parse_quantity("80 bananas", Dimension::bytes),
                      Contains("unknown unit 'bananas'") && Contains("expected a size like"));
  REQUIRE_THROWS_WITH(parse_quantity("80 bananas", Dimension::bytes), !Contains("did you mean"));
}

TEST_CASE("units: a unit of another dimension is rejected", "[units][errors]") {
  // A size where a bandwidth is expected (forgot the "/s").
  REQUIRE_THROWS_WITH(parse_quantity("3.35 TB", Dimension::bandwidth),
                      Contains("unit 'TB' is of the wrong kind") && Contains("expected a bandwidth"));
  // A bandwidth where a size is expected.
  REQUIRE_THROWS_WITH(parse_quantity("80 GB/s", Dimension::bytes),
                      Contains("wrong kind") && Contains("expected a size"));
  // A time where a power is expected.
  REQUIRE_THROWS_WITH(parse_quantity("700 ms", Dimension::power),
                      Contains("wrong kind") && Contains("expected a power like '700 W'"));
  // A percentage where a duration is expected.
  REQUIRE_THROWS_WITH(parse_quantity("5%", Dimension::time), Contains("wrong kind"));
}

TEST_CASE("units: formatting uses decimal prefixes", "[units]") {
  // 8.03e9 B -> 8.03 GB; 3.35e12 B/s -> 3.35 TB/s; 1.23e-3 s -> 1.23 ms.
  CHECK(format_bytes(8.03e9) == "8.03 GB");
  CHECK(format_rate(3.35e12, "B/s") == "3.35 TB/s");
  CHECK(format_seconds(1.23e-3) == "1.23 ms");
  CHECK(format_seconds(5e-6) == "5 us");
  CHECK(format_seconds(2.5) == "2.5 s");
  // Boundary pair around the kilo step: 999 B stays in bytes, 1000 B becomes 1 kB.
  CHECK(format_bytes(999.0) == "999 B");
  CHECK(format_bytes(1000.0) == "1 kB");
}

TEST_CASE("units: micro sign and non-ASCII units", "[units]") {
  // "5 µs" (U+00B5, two UTF-8 bytes) = 5e-6 s, same as "5 us".
  CHECK(parse_quantity("5 \xC2\xB5s", Dimension::time) == Approx(5e-6).epsilon(1e-12));
  // A misspelt non-ASCII unit is still an ordinary error with a suggestion
  // ("µsec" is two edits from "µs").
  REQUIRE_THROWS_WITH(parse_quantity("5 \xC2\xB5sec", Dimension::time),
                      Contains("unknown unit") && Contains("did you mean"));
}
