// Fuzzes the vllm_bench trace reader: open, then read every record (bounded so a huge
// valid input cannot stall the fuzzer). Seed corpus: fuzz/corpus/trace_vllm_bench.
#include "fuzz_input_file.h"
#include "util/error.h"
#include "workload/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = servesim::fuzz::write_scratch(data, size, ".json");
  try {
    auto reader = servesim::open_vllm_bench_trace(path, 1);
    for (int i = 0; i < 100000 && reader->read(); ++i) {
    }
  } catch (const servesim::Error&) {
  }
  return 0;
}
