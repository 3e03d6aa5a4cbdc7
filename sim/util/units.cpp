#include "util/units.h"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <map>

#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

struct UnitInfo {
  Dimension dim;
  double factor;  // multiply the number by this to get the canonical unit
};

const std::map<std::string, UnitInfo, std::less<>>& unit_table() {
  static const std::map<std::string, UnitInfo, std::less<>> table = [] {
    std::map<std::string, UnitInfo, std::less<>> t;
    const std::pair<const char*, double> dec[] = {{"", 1}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6},
                                                  {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};
    const std::pair<const char*, double> bin[] = {{"Ki", kKiB}, {"Mi", kMiB}, {"Gi", kGiB},
                                                  {"Ti", kGiB * 1024.0}};
    for (auto [p, f] : dec) {
      const std::string s = p;
      t[s + "B"] = {Dimension::bytes, f};
      t[s + "b"] = {Dimension::bytes, f / 8.0};
      t[s + "B/s"] = {Dimension::bandwidth, f};
      t[s + "b/s"] = {Dimension::bandwidth, f / 8.0};
      t[s + "bps"] = {Dimension::bandwidth, f / 8.0};
      t[s + "FLOP/s"] = {Dimension::flop_rate, f};
      t[s + "FLOPS"] = {Dimension::flop_rate, f};
      t[s + "OP/s"] = {Dimension::flop_rate, f};  // integer tensor ops (int8 TOPS)
      t[s + "OPS"] = {Dimension::flop_rate, f};
      t[s + "W"] = {Dimension::power, f};
      t[s + "Hz"] = {Dimension::frequency, f};
    }
    for (auto [p, f] : bin) {
      const std::string s = p;
      t[s + "B"] = {Dimension::bytes, f};
      t[s + "B/s"] = {Dimension::bandwidth, f};
    }
    t["ns"] = {Dimension::time, 1e-9};
    t["us"] = {Dimension::time, 1e-6};
    t["\xC2\xB5s"] = {Dimension::time, 1e-6};  // µs
    t["ms"] = {Dimension::time, 1e-3};
    t["s"] = {Dimension::time, 1.0};
    t["min"] = {Dimension::time, 60.0};
    t["h"] = {Dimension::time, 3600.0};
    t["USD/h"] = {Dimension::price_per_hour, 1.0};
    t["$/h"] = {Dimension::price_per_hour, 1.0};
    t["USD/hour"] = {Dimension::price_per_hour, 1.0};
    t["%"] = {Dimension::fraction, 0.01};
    t["gCO2/kWh"] = {Dimension::carbon_intensity, 1.0};
    t["gCO2e/kWh"] = {Dimension::carbon_intensity, 1.0};
    t["kgCO2/MWh"] = {Dimension::carbon_intensity, 1.0};
    t["kgCO2e/MWh"] = {Dimension::carbon_intensity, 1.0};
    return t;
  }();
  return table;
}

}  // namespace

std::string_view dimension_example(Dimension dim) {
  switch (dim) {
    case Dimension::bytes: return "a size like '80 GB' or '141 GiB'";
    case Dimension::bandwidth: return "a bandwidth like '3.35 TB/s' or '400 Gb/s'";
    case Dimension::flop_rate: return "a compute rate like '989 TFLOP/s'";
    case Dimension::time: return "a duration like '5 us' or '1.5 ms'";
    case Dimension::power: return "a power like '700 W'";
    case Dimension::price_per_hour: return "a price like '2.99 USD/h'";
    case Dimension::fraction: return "a fraction like 0.85 or '85%'";
    case Dimension::carbon_intensity: return "a grid carbon intensity like '400 gCO2/kWh'";
    case Dimension::frequency: return "a clock frequency like '1.41 GHz' or '1980 MHz'";
  }
  return "a quantity";
}

double parse_quantity(std::string_view text, Dimension dim) {
  const std::string s = trim(text);
  const char* begin = s.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value)) {
    throw Error(fmt::format("'{}' is not a quantity: expected {}", s, dimension_example(dim)));
  }
  const std::string unit = trim(std::string_view(end));
  if (unit.empty()) {
    if (dim == Dimension::fraction) return value;
    throw Error(fmt::format("'{}' has no unit: expected {}", s, dimension_example(dim)));
  }
  const auto& table = unit_table();
  const auto it = table.find(unit);
  if (it == table.end()) {
    std::vector<std::string> same_dim;
    for (const auto& [name, info] : table)
      if (info.dim == dim) same_dim.push_back(name);
    throw Error(fmt::format("'{}': unknown unit '{}' (expected {}){}", s, unit,
                            dimension_example(dim), did_you_mean(unit, same_dim)));
  }
  if (it->second.dim != dim) {
    throw Error(fmt::format("'{}': unit '{}' is of the wrong kind here: expected {}", s, unit,
                            dimension_example(dim)));
  }
  const double canonical = value * it->second.factor;
  if (!std::isfinite(canonical))
    throw Error(fmt::format("'{}' is too large: beyond the range of a double in {}", s, dimension_example(dim)));
  if (dim == Dimension::time && !(std::fabs(canonical) <= kMaxDurationSeconds)) {
    throw Error(fmt::format("'{}' is longer than the {:g} s (about 116 days) servesim accepts for one duration: "
                            "simulated time is int64 nanoseconds kept within 1e9 s, and each duration must fit "
                            "many times over",
                            s, kMaxDurationSeconds));
  }
  return canonical;
}

namespace {
std::string with_prefix(double v, std::string_view unit) {
  const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  double a = std::fabs(v);
  while (a >= 1000.0 && i < 5) {
    a /= 1000.0;
    v /= 1000.0;
    ++i;
  }
  return fmt::format("{:.3g} {}{}", v, prefixes[i], unit);
}
}  // namespace

std::string format_bytes(double bytes) { return with_prefix(bytes, "B"); }
std::string format_rate(double per_second, std::string_view unit) { return with_prefix(per_second, unit); }

std::string format_seconds(double s) {
  const double a = std::fabs(s);
  if (a >= 1.0) return fmt::format("{:.3g} s", s);
  if (a >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  if (a >= 1e-6) return fmt::format("{:.3g} us", s * 1e6);
  return fmt::format("{:.3g} ns", s * 1e9);
}

}  // namespace servesim
