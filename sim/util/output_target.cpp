#include "util/output_target.h"

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "util/error.h"

namespace servesim {
namespace {

std::atomic<bool> g_follow_symlinks{false};

// Inputs by (device, inode), with the path each was read from. Bounded: a long-lived process
// (the Python module) that reads many files keeps the first ones only, which is enough for a
// command's inputs.
constexpr std::size_t kMaxInputs = 100'000;
std::mutex g_inputs_mutex;
std::map<std::pair<dev_t, ino_t>, std::string>& inputs() {
  static std::map<std::pair<dev_t, ino_t>, std::string> s;
  return s;
}

// An input read earlier and deleted since frees its inode, which the file system may give to
// a new file (a test suite's scratch output, a sweep's .partial): that file is not the input.
// The inode counts only while the path it was read from still names it.
bool is_input(const struct stat& st) {
  std::lock_guard<std::mutex> lock(g_inputs_mutex);
  const auto it = inputs().find({st.st_dev, st.st_ino});
  if (it == inputs().end()) return false;
  struct stat now {};
  if (::stat(it->second.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino) return true;
  inputs().erase(it);  // stale: the input is gone
  return false;
}

const char* kind_of(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

std::string prefix(std::string_view option, const std::string& path) {
  return option.empty() ? path : fmt::format("{} {}", option, path);
}

}  // namespace

void set_follow_output_symlinks(bool on) { g_follow_symlinks.store(on); }
bool follow_output_symlinks() { return g_follow_symlinks.load(); }

void note_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::lock_guard<std::mutex> lock(g_inputs_mutex);
  std::error_code ec;  // kept absolute, so a later change of directory does not lose it
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (inputs().size() < kMaxInputs) inputs()[{st.st_dev, st.st_ino}] = ec ? path : abs.string();
}

void forget_input_files() {
  std::lock_guard<std::mutex> lock(g_inputs_mutex);
  inputs().clear();
}

std::string checked_output_target(const std::string& path, std::string_view option) {
  std::string target = path;
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return target;  // a new file
    throw Error(fmt::format("{}: cannot check the output file: {}", prefix(option, path), std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(target, ec);
    if (!follow_output_symlinks())
      throw Error(fmt::format("{}: is a symbolic link{}; servesim replaces only regular files: name the file itself, "
                              "or give `servesim --follow-symlinks ...` to write to where the link points",
                              prefix(option, path), ec ? "" : fmt::format(" (to {})", resolved.string())));
    if (ec) throw Error(fmt::format("{}: cannot follow the symbolic link: {}", prefix(option, path), ec.message()));
    target = resolved.string();
    if (::lstat(target.c_str(), &st) != 0) {
      if (errno == ENOENT) return target;
      throw Error(fmt::format("{}: cannot check {}: {}", prefix(option, path), target, std::strerror(errno)));
    }
  }
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: is {}; servesim writes only regular files (it replaces an output whole, which "
                            "would destroy {}): name a file",
                            prefix(option, path), kind_of(st.st_mode),
                            S_ISDIR(st.st_mode) ? "the directory" : "the special file"));
  if (is_input(st))
    throw Error(fmt::format("{}: is one of this command's inputs; writing it would destroy the data the output is "
                            "made from: choose another output file",
                            prefix(option, path)));
  return target;
}

}  // namespace servesim
