#pragma once
// Numbers read from YAML and checked against inclusive bounds before anything
// narrows or uses them: a value out of range is a servesim::Error naming
// file:line:col, the key path, the valid range and (when given) why the range
// is what it is. Nothing is clamped or wrapped silently.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "util/units.h"
#include "util/yaml_map.h"

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

// Required key / optional key with fallback. `why` is appended to the error
// ("... must be in [1, 1024] (why), got 4096").
std::int64_t integer_in(YamlMap& m, const std::string& key, IntRange range, std::string_view why = {});
std::int64_t integer_in(YamlMap& m, const std::string& key, std::int64_t fallback, IntRange range,
                        std::string_view why = {});
double number_in(YamlMap& m, const std::string& key, RealRange range, std::string_view why = {});
double number_in(YamlMap& m, const std::string& key, double fallback, RealRange range, std::string_view why = {});
double quantity_in(YamlMap& m, const std::string& key, Dimension dim, RealRange range, std::string_view why = {});
double quantity_in(YamlMap& m, const std::string& key, Dimension dim, double fallback, RealRange range,
                   std::string_view why = {});

// The `schema_version` key of a scenario, GPU or model file: absent or
// kSchemaVersion (the only layout servesim reads); any other version is an
// error, since a file written for another layout would be misread silently.
inline constexpr std::int64_t kSchemaVersion = 1;
void check_schema_version(YamlMap& m);

// The range check alone, for values read some other way: throws
// "<where>: must be in [...]" with `where` as the prefix.
void check_integer_range(const std::string& where, std::int64_t v, IntRange range, std::string_view why = {});
void check_real_range(const std::string& where, double v, RealRange range, Dimension dim, std::string_view why = {});

}  // namespace servesim
