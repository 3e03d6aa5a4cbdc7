#include "config/config_ranges.h"

#include <string_view>

#include "config/config_error.h"

namespace servesim {
namespace {

// A range check's refusal as the config layer's bad-value ConfigError (kind, key path,
// line and column as data), its message unchanged: "<where(key)>: must be in ...".
template <typename Check>
void as_config_error(const ConfigMap& m, const std::string& key, Check check) {
  try {
    check();
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& e) {
    const std::string prefix = m.where(key) + ": ";
    const std::string_view message = e.what();
    if (message.substr(0, prefix.size()) != prefix) throw;
    m.fail(key, std::string(message.substr(prefix.size())));
  }
}

}  // namespace

std::int64_t integer_in(ConfigMap& m, const std::string& key, IntRange range, std::string_view why) {
  const std::int64_t v = m.integer(key);
  as_config_error(m, key, [&] { check_integer_range(m.where(key), v, range, why); });
  return v;
}

std::int64_t integer_in(ConfigMap& m, const std::string& key, std::int64_t fallback, IntRange range,
                        std::string_view why) {
  return m.has(key) ? integer_in(m, key, range, why) : fallback;
}

double number_in(ConfigMap& m, const std::string& key, RealRange range, std::string_view why) {
  const double v = m.number(key);
  as_config_error(m, key, [&] { check_real_range(m.where(key), v, range, Dimension::fraction, why); });
  return v;
}

double number_in(ConfigMap& m, const std::string& key, double fallback, RealRange range, std::string_view why) {
  return m.has(key) ? number_in(m, key, range, why) : fallback;
}

double quantity_in(ConfigMap& m, const std::string& key, Dimension dim, RealRange range, std::string_view why) {
  const double v = m.quantity(key, dim);
  as_config_error(m, key, [&] { check_real_range(m.where(key), v, range, dim, why); });
  return v;
}

double quantity_in(ConfigMap& m, const std::string& key, Dimension dim, double fallback, RealRange range,
                   std::string_view why) {
  return m.has(key) ? quantity_in(m, key, dim, range, why) : fallback;
}

}  // namespace servesim
