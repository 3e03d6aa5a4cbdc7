// Fuzzes the aiperf trace reader and its measured-latency reader: open, read every record
// (bounded so a huge valid input cannot stall the fuzzer), then read the measurements.
// Seed corpus: fuzz/corpus/trace_aiperf.
#include <vector>

#include "fuzz_input_file.h"
#include "util/error.h"
#include "workload/measured_requests.h"
#include "workload/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = servesim::fuzz::write_scratch(data, size, ".jsonl");
  try {
    auto reader = servesim::open_aiperf_trace(path);
    for (int i = 0; i < 100000 && reader->read(); ++i) {
    }
    std::vector<double> gaps;
    (void)gaps;
    servesim::read_measured_aiperf(path, &gaps);
  } catch (const servesim::Error&) {
  }
  return 0;
}
