// Fuzzes the Hugging Face config.json importer. Seed corpus: tests/fixtures/model_configs.
#include "fuzz_input_file.h"
#include "model/model_catalog.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = servesim::fuzz::write_scratch(data, size, "-config.json");
  try {
    (void)servesim::import_hf_config(path);
  } catch (const servesim::Error&) {
  }
  return 0;
}
