#include "util/yaml_ranges.h"

#include <fmt/format.h>

#include <cmath>

#include "util/error.h"

namespace servesim {
namespace {

std::string reason(std::string_view why) { return why.empty() ? "" : fmt::format(" ({})", why); }

// A bound in the key's own unit, e.g. "1.5 GB" or "10 ms"; plain numbers as %g.
std::string show(double v, Dimension dim) {
  switch (dim) {
    case Dimension::bytes: return format_bytes(v);
    case Dimension::time: return format_seconds(v);
    case Dimension::bandwidth: return format_rate(v, "B/s");
    case Dimension::flop_rate: return format_rate(v, "FLOP/s");
    case Dimension::power: return format_rate(v, "W");
    case Dimension::price_per_hour: return fmt::format("{:g} USD/h", v);
    case Dimension::fraction: return fmt::format("{:g}", v);
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

void check_schema_version(YamlMap& m) {
  const std::int64_t v = m.integer("schema_version", kSchemaVersion);
  if (v != kSchemaVersion)
    throw Error(fmt::format("{}: schema_version {} is not one this servesim reads (it knows version {} only): the "
                            "file may be meant for another release, whose keys could be misread",
                            m.where("schema_version"), v, kSchemaVersion));
}

std::int64_t integer_in(YamlMap& m, const std::string& key, IntRange range, std::string_view why) {
  const std::int64_t v = m.integer(key);
  check_integer_range(m.where(key), v, range, why);
  return v;
}

std::int64_t integer_in(YamlMap& m, const std::string& key, std::int64_t fallback, IntRange range,
                        std::string_view why) {
  return m.has(key) ? integer_in(m, key, range, why) : fallback;
}

double number_in(YamlMap& m, const std::string& key, RealRange range, std::string_view why) {
  const double v = m.number(key);
  check_real_range(m.where(key), v, range, Dimension::fraction, why);
  return v;
}

double number_in(YamlMap& m, const std::string& key, double fallback, RealRange range, std::string_view why) {
  return m.has(key) ? number_in(m, key, range, why) : fallback;
}

double quantity_in(YamlMap& m, const std::string& key, Dimension dim, RealRange range, std::string_view why) {
  const double v = m.quantity(key, dim);
  check_real_range(m.where(key), v, range, dim, why);
  return v;
}

double quantity_in(YamlMap& m, const std::string& key, Dimension dim, double fallback, RealRange range,
                   std::string_view why) {
  return m.has(key) ? quantity_in(m, key, dim, range, why) : fallback;
}

}  // namespace servesim
