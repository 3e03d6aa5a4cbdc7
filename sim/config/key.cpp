#include "config/key.h"

#include <fmt/format.h>

#include <cmath>

#include "config/config_ranges.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

std::string_view dimension_name(Dimension d) {
  switch (d) {
    case Dimension::bytes: return "bytes";
    case Dimension::bandwidth: return "bandwidth";
    case Dimension::flop_rate: return "FLOP/s";
    case Dimension::time: return "duration";
    case Dimension::power: return "power";
    case Dimension::price_per_hour: return "price per hour";
    case Dimension::fraction: return "fraction";
    case Dimension::carbon_intensity: return "carbon intensity";
    case Dimension::frequency: return "frequency";
  }
  return "quantity";
}

std::string show_number(const Key& k, double v) {
  if (k.type == KeyType::quantity) return show_quantity(v, k.dimension);
  if (k.type == KeyType::integer) return fmt::format("{}", static_cast<std::int64_t>(v));
  return fmt::format("{:g}", v);
}

IntRange int_range(const Key& k) {
  IntRange r;
  if (std::isfinite(k.min)) r.min = static_cast<std::int64_t>(k.min);
  if (std::isfinite(k.max)) r.max = static_cast<std::int64_t>(k.max);
  return r;
}

}  // namespace

std::string key_default_text(const Key& k) {
  if (k.required) return "required";
  if (!k.default_note.empty()) return std::string(k.default_note);
  switch (k.type) {
    case KeyType::integer:
    case KeyType::number:
    case KeyType::quantity: return show_number(k, k.default_number);
    case KeyType::boolean: return k.default_bool ? "true" : "false";
    case KeyType::text:
    case KeyType::choice: return k.default_text.empty() ? "(none)" : std::string(k.default_text);
    case KeyType::list: return "(empty)";
    case KeyType::section: return "(defaults below)";
  }
  return "";
}

std::string key_type_text(const Key& k) {
  switch (k.type) {
    case KeyType::integer: return k.unit.empty() ? "integer" : fmt::format("integer ({})", k.unit);
    case KeyType::number: return k.unit.empty() ? "number" : fmt::format("number ({})", k.unit);
    case KeyType::quantity:
      return k.dimension == Dimension::fraction ? "fraction (0.9 or 90%)"
                                                : fmt::format("quantity ({}, e.g. {})", dimension_name(k.dimension),
                                                              dimension_example(k.dimension));
    case KeyType::boolean: return "boolean";
    case KeyType::text: return k.unit.empty() ? "text" : fmt::format("text ({})", k.unit);
    case KeyType::choice: {
      std::vector<std::string> c(k.choices.begin(), k.choices.end());
      return "one of: " + join(c);
    }
    case KeyType::list: return k.item.empty() ? "list" : fmt::format("list of {}", k.item);
    case KeyType::section: return "mapping";
  }
  return "";
}

std::string key_range_text(const Key& k) {
  if (k.type != KeyType::integer && k.type != KeyType::number && k.type != KeyType::quantity) return "";
  const bool lo = std::isfinite(k.min), hi = std::isfinite(k.max);
  if (lo && hi) return fmt::format("[{}, {}]", show_number(k, k.min), show_number(k, k.max));
  if (lo) return fmt::format(">= {}", show_number(k, k.min));
  if (hi) return fmt::format("<= {}", show_number(k, k.max));
  return "";
}

bool has_key(ConfigMap& m, const Key& k) { return m.has(std::string(k.name)); }

std::int64_t read_integer(ConfigMap& m, const Key& k) {
  const std::string name(k.name);
  if (!k.required && !m.has(name)) return static_cast<std::int64_t>(k.default_number);
  return integer_in(m, name, int_range(k), k.why);
}

double read_number(ConfigMap& m, const Key& k) {
  const std::string name(k.name);
  if (!k.required && !m.has(name)) return k.default_number;
  return number_in(m, name, RealRange{k.min, k.max}, k.why);
}

double read_quantity(ConfigMap& m, const Key& k) {
  const std::string name(k.name);
  if (!k.required && !m.has(name)) return k.default_number;
  return quantity_in(m, name, k.dimension, RealRange{k.min, k.max}, k.why);
}

bool read_boolean(ConfigMap& m, const Key& k) { return m.boolean(std::string(k.name), k.default_bool); }

std::string read_text(ConfigMap& m, const Key& k) {
  const std::string name(k.name);
  return k.required ? m.string(name) : m.string(name, std::string(k.default_text));
}

std::string read_choice(ConfigMap& m, const Key& k) {
  const std::string v = read_text(m, k);
  std::vector<std::string> valid(k.choices.begin(), k.choices.end());
  for (const auto& c : valid)
    if (c == v) return v;
  m.fail(std::string(k.name), fmt::format("unknown {} '{}'{} (valid: {})", k.name, v, did_you_mean(v, valid), join(valid)));
}

}  // namespace servesim
