// Fuzzes `servesim merge` on shard files (planning/sweep_shard.h): the input is split
// at a line "\x1e" (ASCII record separator) into up to four shard files, which are
// merged and written out as the sweep's CSV and JSON text. Seed corpus: fuzz/corpus/sweep_shard.
#include <string>
#include <utility>
#include <vector>

#include "planning/sweep_shard.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::pair<std::string, std::string>> files(1);
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::size_t start = 0;
  while (files.size() <= 4) {
    const auto cut = text.find("\n\x1e\n", start);
    files.back() = {"shard-" + std::to_string(files.size() - 1) + ".jsonl", text.substr(start, cut - start)};
    if (cut == std::string::npos) break;
    start = cut + 3;
    files.emplace_back();
  }
  try {
    const servesim::planning::MergedSweep merged = servesim::planning::merge_sweep_shards(files);
    (void)servesim::planning::sweep_output_text(merged, false);
    (void)servesim::planning::sweep_output_text(merged, true);
  } catch (const servesim::Error&) {
  }
  return 0;
}
