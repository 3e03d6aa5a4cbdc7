#pragma once
// Keys read and range-checked in one call, before anything narrows or uses them
// (util/ranges.h holds the bounds and the checks).
#include <cstdint>
#include <string>
#include <string_view>

#include "config/config_map.h"
#include "util/ranges.h"

namespace servesim {

// Required key / optional key with fallback. `why` is appended to the error
// ("... must be in [1, 1024] (why), got 4096").
std::int64_t integer_in(ConfigMap& m, const std::string& key, IntRange range, std::string_view why = {});
std::int64_t integer_in(ConfigMap& m, const std::string& key, std::int64_t fallback, IntRange range,
                        std::string_view why = {});
double number_in(ConfigMap& m, const std::string& key, RealRange range, std::string_view why = {});
double number_in(ConfigMap& m, const std::string& key, double fallback, RealRange range, std::string_view why = {});
double quantity_in(ConfigMap& m, const std::string& key, Dimension dim, RealRange range, std::string_view why = {});
double quantity_in(ConfigMap& m, const std::string& key, Dimension dim, double fallback, RealRange range,
                   std::string_view why = {});

// The `schema_version` key of a scenario, GPU or model file: absent or
// kSchemaVersion (the only layout servesim reads); any other version is an
// error, since a file written for another layout would be misread silently.
// Reads the key through its declaration (config/schema_version.h).
inline constexpr std::int64_t kSchemaVersion = 1;
void check_schema_version(ConfigMap& m);

}  // namespace servesim
