#pragma once
// The keys of one duration distribution mapping (`dist` and the keys it selects):
// workload.patience (config/read_patience.cpp) and the closed-loop session's think
// and tool times (config/read_duration.cpp) declare their own keys, with their own
// docs and ranges, and share this reader. Internal to sim/config/.
#include <string_view>
#include <utility>
#include <vector>

#include "config/config_map.h"
#include "config/key.h"
#include "workload/duration_distribution.h"

namespace servesim {

struct DurationKeySet {
  const Key *dist, *value, *min, *max, *mean, *stddev;
  std::string_view noun;  // "patience", "duration": in "unknown <noun> distribution"
};

// Reads `m` by `keys`; `names` maps each `dist` value to its kind. Throws at the
// offending key for an unknown `dist`, a time out of range or min > max.
DurationSpec read_duration_keys(ConfigMap& m, const DurationKeySet& keys,
                                const std::vector<std::pair<std::string_view, DurationKind>>& names);
// The keys `dist: <kind>` selects.
std::vector<const Key*> duration_keys_of(DurationKind kind, const DurationKeySet& keys);

}  // namespace servesim
