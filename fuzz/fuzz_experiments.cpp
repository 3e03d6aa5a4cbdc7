// Fuzzes the measured-experiments JSON reader (validate-experiments). Seed
// corpus: data/serving/vllm_serving_experiments.json.
#include "fuzz_input_file.h"
#include "util/error.h"
#include "validation/vllm_experiments.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = servesim::fuzz::write_scratch(data, size, ".json");
  try {
    (void)servesim::load_vllm_experiments(path);
  } catch (const servesim::Error&) {
  }
  return 0;
}
