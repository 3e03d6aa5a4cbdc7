// Fuzzes the azure trace reader: open, then read every record (bounded so a huge
// valid input cannot stall the fuzzer). Seed corpus: fuzz/corpus/trace_azure.
#include "fuzz_input_file.h"
#include "util/error.h"
#include "workload/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = servesim::fuzz::write_scratch(data, size, ".csv");
  try {
    auto reader = servesim::open_azure_trace(path);
    for (int i = 0; i < 100000 && reader->read(); ++i) {
    }
  } catch (const servesim::Error&) {
  }
  return 0;
}
