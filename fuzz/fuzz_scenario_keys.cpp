// A structure-aware fuzzer for scenarios: instead of mutating YAML bytes (most of
// which the parser refuses at once), the input is read as a program of edits over the
// quickstart scenario, each built from the declared keys (config/key_registry.h):
//   byte 1-2: which declared key (of every scenario and workload section, variant
//             sections included, so their selectors are reached too);
//   byte 3:   which value: for its type, a boundary or hostile value (0, -1, the
//             declared min and max and one past them, 1e308, nan, inf, huge integers,
//             a value with another dimension's unit, a list, a map, an empty text),
//             or one of its choices.
// Up to 8 edits are applied as --set overrides, the scenario is loaded and, when it
// loads, a small run (at most 200 requests) is simulated. Anything but a
// servesim::Error (a crash, a sanitizer report, another exception) is a finding.
// Seed corpus: fuzz/corpus/scenario_keys.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "config/key_registry.h"
#include "config/scenario_reader.h"
#include "run/simulation.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/units.h"

namespace {

struct KeyPath {
  std::string path;
  const servesim::Key* key;
};

// "engine.max_num_seqs" for every declared key of a scenario document; variant
// sections ("workload.arrival" with process gamma) use the section's path.
const std::vector<KeyPath>& key_paths() {
  static const std::vector<KeyPath> paths = [] {
    std::vector<KeyPath> out;
    auto add = [&](const std::vector<const servesim::KeySection*>& sections) {
      for (const auto* s : sections) {
        if (s->path.empty() || s->path.front() == '(') continue;  // catalog files, not scenario keys
        for (const auto* k : s->keys)
          if (k->type != servesim::KeyType::section) out.push_back({std::string(s->path) + "." + std::string(k->name), k});
      }
    };
    add(servesim::scenario_key_sections());
    add(servesim::workload_key_sections());
    return out;
  }();
  return paths;
}

std::string value_for(const servesim::Key& k, std::uint8_t pick) {
  using servesim::KeyType;
  const std::vector<std::string> hostile = {"0", "-1", "1e308", "-1e308", ".nan", ".inf", "-.inf", "9223372036854775807",
                                            "18446744073709551616", "1e-320", "''", "[]", "{}", "[1, 2]", "{a: 1}",
                                            "'1 GB'", "'1 TB/s'", "'700 W'", "'50%'", "'-5 ms'", "true", "null",
                                            "'\\u0000'", "'x`touch /tmp/servesim-fuzz-pwned`'", "'=HYPERLINK(1)'"};
  std::vector<std::string> values = hostile;
  if (std::isfinite(k.min)) {
    values.push_back(fmt::format("{}", k.min));
    values.push_back(fmt::format("{}", k.min - 1));
  }
  if (std::isfinite(k.max)) {
    values.push_back(fmt::format("{}", k.max));
    values.push_back(fmt::format("{}", k.max * 2 + 1));
  }
  for (const auto& c : k.choices) values.push_back(std::string(c));
  if (k.type == KeyType::quantity) values.push_back(fmt::format("'{}'", servesim::dimension_example(k.dimension)));
  return values[pick % values.size()];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& paths = key_paths();
  std::vector<std::string> sets = {"workload.requests=200"};
  for (std::size_t i = 0; i + 3 <= size && sets.size() <= 8; i += 3) {
    const KeyPath& kp = paths[(static_cast<std::size_t>(data[i]) << 8 | data[i + 1]) % paths.size()];
    sets.push_back(kp.path + "=" + value_for(*kp.key, data[i + 2]));
  }
  sets.push_back("workload.requests=200");  // whatever the edits did, the run stays small
  try {
    const servesim::Scenario sc = servesim::load_scenario(servesim::data_root() + "/scenarios/quickstart.yaml", sets);
    (void)servesim::simulate(sc, {});
  } catch (const servesim::Error&) {
  }
  return 0;
}
