#include "config/schema_version.h"

#include <fmt/format.h>

#include "config/config_ranges.h"
#include "util/error.h"

namespace servesim {

const Key& schema_version_key() {
  static const Key k{
      .name = "schema_version",
      .type = KeyType::integer,
      .doc = "layout version of the file; servesim reads only this one, so a file written for another layout is "
             "refused instead of misread",
      .spec = "(checked, not stored)",
      .default_number = static_cast<double>(kSchemaVersion),
      .min = static_cast<double>(kSchemaVersion),
      .max = static_cast<double>(kSchemaVersion),
      .why = "the only layout this servesim reads",
  };
  return k;
}

void check_schema_version(ConfigMap& m) {
  const Key& k = schema_version_key();
  const std::string name(k.name);
  // Not read_integer: a version mismatch deserves more than a range message.
  const std::int64_t v = m.integer(name, static_cast<std::int64_t>(k.default_number));
  if (v != kSchemaVersion)
    throw Error(fmt::format("{}: schema_version {} is not one this servesim reads (it knows version {} only): the "
                            "file may be meant for another release, whose keys could be misread",
                            m.where(name), v, kSchemaVersion));
}

}  // namespace servesim
