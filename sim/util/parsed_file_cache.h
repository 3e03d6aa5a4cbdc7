#pragma once
// Parsed catalog files, kept per process: a sweep loads the same GPU and model
// YAML for every point (about 1 ms each time), so the parse result is reused as
// long as the file's modification time and size are unchanged. Thread-safe (sweep
// points run in parallel); a file that fails to parse is not cached, so the error
// is raised again on the next load.
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>

namespace servesim {

template <class T>
class ParsedFileCache {
 public:
  template <class Parse>
  T get(const std::string& path, Parse parse) {
    const std::optional<Stamp> stamp = stamp_of(path);
    if (stamp) {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto it = entries_.find(path);
      if (it != entries_.end() && it->second.stamp == *stamp) return it->second.value;
    }
    T value = parse();  // outside the lock: parsing may throw or take a while
    if (stamp) {
      const std::lock_guard<std::mutex> lock(mutex_);
      entries_.insert_or_assign(path, Entry{*stamp, value});
    }
    return value;
  }

 private:
  struct Stamp {
    std::filesystem::file_time_type mtime;
    std::uintmax_t size = 0;
    bool operator==(const Stamp&) const = default;
  };
  struct Entry {
    Stamp stamp;
    T value;
  };
  static std::optional<Stamp> stamp_of(const std::string& path) {
    std::error_code ec;
    const auto mtime = std::filesystem::last_write_time(path, ec);
    if (ec) return std::nullopt;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return std::nullopt;
    return Stamp{mtime, size};
  }

  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace servesim
