#include "config/config_ranges.h"


namespace servesim {

std::int64_t integer_in(ConfigMap& m, const std::string& key, IntRange range, std::string_view why) {
  const std::int64_t v = m.integer(key);
  check_integer_range(m.where(key), v, range, why);
  return v;
}

std::int64_t integer_in(ConfigMap& m, const std::string& key, std::int64_t fallback, IntRange range,
                        std::string_view why) {
  return m.has(key) ? integer_in(m, key, range, why) : fallback;
}

double number_in(ConfigMap& m, const std::string& key, RealRange range, std::string_view why) {
  const double v = m.number(key);
  check_real_range(m.where(key), v, range, Dimension::fraction, why);
  return v;
}

double number_in(ConfigMap& m, const std::string& key, double fallback, RealRange range, std::string_view why) {
  return m.has(key) ? number_in(m, key, range, why) : fallback;
}

double quantity_in(ConfigMap& m, const std::string& key, Dimension dim, RealRange range, std::string_view why) {
  const double v = m.quantity(key, dim);
  check_real_range(m.where(key), v, range, dim, why);
  return v;
}

double quantity_in(ConfigMap& m, const std::string& key, Dimension dim, double fallback, RealRange range,
                   std::string_view why) {
  return m.has(key) ? quantity_in(m, key, dim, range, why) : fallback;
}

}  // namespace servesim
