// Without libFuzzer (the default g++ build), each fuzz target is linked with this
// main, which feeds it every file named on the command line, or every file under
// a named directory: the seed corpora and every input that once crashed servesim
// are replayed by ctest, so a regression shows up in CI, not only when fuzzing.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
void replay_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}
}  // namespace

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      std::vector<std::filesystem::path> paths;
      for (const auto& e : std::filesystem::recursive_directory_iterator(arg))
        if (e.is_regular_file()) paths.push_back(e.path());
      std::sort(paths.begin(), paths.end());  // deterministic order
      for (const auto& p : paths) {
        replay_file(p);
        ++files;
      }
    } else {
      replay_file(arg);
      ++files;
    }
  }
  std::printf("replayed %d input(s) without a crash\n", files);
  return files > 0 ? 0 : 1;  // an empty corpus is a broken test, not a pass
}
