#include "util/ranges.h"

#include <fmt/format.h>

#include <cmath>

#include "util/error.h"

namespace servesim {
namespace {

std::string reason(std::string_view why) { return why.empty() ? "" : fmt::format(" ({})", why); }

// A bound in the key's own unit, e.g. "1.5 GB" or "10 ms"; plain numbers as %g.
std::string show(double v, Dimension dim);
}  // namespace

std::string show_quantity(double v, Dimension dim) { return show(v, dim); }

namespace {
std::string show(double v, Dimension dim) {
  switch (dim) {
    case Dimension::bytes: return format_bytes(v);
    case Dimension::time: return format_seconds(v);
    case Dimension::bandwidth: return format_rate(v, "B/s");
    case Dimension::flop_rate: return format_rate(v, "FLOP/s");
    case Dimension::power: return format_rate(v, "W");
    case Dimension::price_per_hour: return fmt::format("{:g} USD/h", v);
    case Dimension::fraction: return fmt::format("{:g}", v);
    case Dimension::carbon_intensity: return fmt::format("{:g} gCO2/kWh", v);
    case Dimension::frequency: return format_rate(v, "Hz");
  }
  return fmt::format("{:g}", v);
}

template <typename T, typename Show>
std::string bounds_text(T min, T max, T lowest, T highest, Show&& s) {
  if (min != lowest && max != highest) return fmt::format("must be in [{}, {}]", s(min), s(max));
  if (min != lowest) return fmt::format("must be >= {}", s(min));
  return fmt::format("must be <= {}", s(max));
}

}  // namespace

void check_integer_range(const std::string& where, std::int64_t v, IntRange range, std::string_view why) {
  if (v >= range.min && v <= range.max) return;
  const auto s = [](std::int64_t x) { return fmt::format("{}", x); };
  throw Error(fmt::format("{}: {}{}, got {}", where,
                          bounds_text(range.min, range.max, std::numeric_limits<std::int64_t>::min(),
                                      std::numeric_limits<std::int64_t>::max(), s),
                          reason(why), v));
}

void check_real_range(const std::string& where, double v, RealRange range, Dimension dim, std::string_view why) {
  // NaN fails both comparisons and so is out of every range.
  if (v >= range.min && v <= range.max) return;
  const auto s = [dim](double x) { return show(x, dim); };
  const double inf = std::numeric_limits<double>::infinity();
  throw Error(fmt::format("{}: {}{}, got {}", where, bounds_text(range.min, range.max, -inf, inf, s), reason(why),
                          std::isfinite(v) ? show(v, dim) : fmt::format("{}", v)));
}

}  // namespace servesim
