// Fuzzes the scenario loader on whole YAML documents (catalog GPU and model
// names resolve against the shipped catalogs). Seed corpus: scenarios/*.yaml.
#include "fuzz_input_file.h"
#include "config/scenario_reader.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = servesim::fuzz::write_scratch(data, size, ".yaml");
  try {
    (void)servesim::load_scenario(path);
  } catch (const servesim::Error&) {
  }
  return 0;
}
