// Fuzzes `servesim report` on each kind of input it reads: the first byte picks the
// kind (a sweep CSV, a plan JSON, or a run folder's summary.json with its requests.csv
// and timeline.csv cut from the rest at "\x1e" lines), the rest is the file. The page
// is rendered in full. Seed corpus: fuzz/corpus/report_input.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_input_file.h"
#include "report/html_report.h"
#include "report/report_input.h"
#include "util/error.h"

namespace {
void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int kind = data[0] % 3;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string input;
  if (kind == 0) {
    input = servesim::fuzz::write_scratch(data + 1, size - 1, "-sweep.csv");
  } else if (kind == 1) {
    input = servesim::fuzz::write_scratch(data + 1, size - 1, "-plan.json");
  } else {
    input = servesim::fuzz::scratch_folder() + "/servesim-fuzz-" + std::to_string(::getpid()) + "-run";
    std::filesystem::create_directories(input);
    const char* names[] = {"summary.json", "requests.csv", "timeline.csv"};
    std::size_t start = 0;
    for (int i = 0; i < 3; ++i) {
      const auto cut = text.find("\n\x1e\n", start);
      write(input + "/" + names[i], text.substr(start, cut == std::string::npos ? std::string::npos : cut - start));
      start = cut == std::string::npos ? text.size() : cut + 3;
    }
  }
  try {
    const servesim::report::ReportInput in = servesim::report::detect_report_input(input);
    (void)servesim::report::render_html_report(in);
  } catch (const servesim::Error&) {
  }
  return 0;
}
