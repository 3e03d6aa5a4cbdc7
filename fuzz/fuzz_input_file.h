#pragma once
// The parsers under fuzzing read files (traces are streamed, scenarios resolve
// relative paths), so each input is written to a per-process scratch file first.
// An input the parser rejects with servesim::Error is a pass; any other exception
// escapes to libFuzzer, which reports it as a crash: that is the property fuzzed.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace servesim::fuzz {

// The scratch folder: /dev/shm (memory) where it is writable, else /tmp. On a disk
// file system each input rewritten over the last made ext4 flush it at close (its
// rename/truncate heuristic), and that was most of an execution's time.
inline const std::string& scratch_folder() {
  static const std::string dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return dir;
}

inline std::string write_scratch(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const std::string path = scratch_folder() + "/servesim-fuzz-" + std::to_string(::getpid()) + suffix;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace servesim::fuzz
