// Fuzzes the vllm_bench_summary trace reader and its measured-latency reader: open, read every record
// (bounded so a huge valid input cannot stall the fuzzer), then read the measurements.
// Seed corpus: fuzz/corpus/trace_vllm_bench_summary.
#include <vector>

#include "fuzz_input_file.h"
#include "util/error.h"
#include "workload/measured_requests.h"
#include "workload/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = servesim::fuzz::write_scratch(data, size, ".json");
  try {
    auto reader = servesim::open_vllm_bench_summary_trace(path, 1);
    for (int i = 0; i < 100000 && reader->read(); ++i) {
    }
    std::vector<double> gaps;
    (void)gaps;
    servesim::read_measured_vllm_bench_summary(path, 1);
  } catch (const servesim::Error&) {
  }
  return 0;
}
