// Fuzzes `--set KEY.PATH=VALUE` overrides applied to the quickstart scenario:
// the input is split on newlines, one override per line. Seed corpus: fuzz/corpus/set.
#include <string>
#include <vector>

#include "config/scenario_reader.h"
#include "util/error.h"
#include "util/paths.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> overrides;
  std::string line;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      overrides.push_back(line);
      line.clear();
    } else {
      line.push_back(static_cast<char>(data[i]));
    }
  }
  overrides.push_back(line);
  try {
    (void)servesim::load_scenario(servesim::data_root() + "/scenarios/quickstart.yaml", overrides);
  } catch (const servesim::Error&) {
  }
  return 0;
}
