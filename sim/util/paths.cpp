#include "util/paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "util/error.h"
#include "util/output_target.h"
#include "util/text.h"

namespace servesim {

namespace {
namespace fs = std::filesystem;

bool holds_catalogs(const std::string& dir) {
  std::error_code ec;
  return fs::is_directory(fs::path(dir) / "hardware", ec) && fs::is_directory(fs::path(dir) / "models", ec);
}

// <prefix>/share/servesim for a binary installed as <prefix>/bin/servesim (cmake --install).
std::string installed_share_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return "";
  return (exe.parent_path().parent_path() / "share" / "servesim").lexically_normal().string();
}

const char* servesim_home() {
  const char* home = std::getenv("SERVESIM_HOME");
  return home && *home ? home : nullptr;
}
}  // namespace

std::vector<std::string> data_root_candidates() {
  std::vector<std::string> out;
  if (const char* home = servesim_home()) out.emplace_back(home);
  if (std::string share = installed_share_dir(); !share.empty()) out.push_back(share);
  out.emplace_back(SERVESIM_SOURCE_DIR);
  return out;
}

std::string data_root() {
  // An explicit SERVESIM_HOME is used as given: if it lacks the catalogs, the error
  // says so instead of quietly reading another tree.
  if (const char* home = servesim_home()) return home;
  for (const auto& dir : data_root_candidates())
    if (holds_catalogs(dir)) return dir;
  return SERVESIM_SOURCE_DIR;  // nothing found: list_catalog explains where it looked
}

std::string catalog_search_help() {
  const std::string share = installed_share_dir();
  const char* home = servesim_home();
  return fmt::format(
      "servesim looks for its catalogs (hardware/, models/, scenarios/, data/) in $SERVESIM_HOME ({}), then "
      "next to the binary in {} (where `cmake --install` puts them), then in the source tree it was built "
      "from ({}); set SERVESIM_HOME=DIR (or run `servesim --home DIR ...`) to a folder holding hardware/ and models/ to point it elsewhere",
      home ? home : "not set", share.empty() ? "<prefix>/share/servesim" : share, SERVESIM_SOURCE_DIR);
}

std::string catalog_dir(const std::string& sub) { return data_root() + "/" + sub; }

std::vector<std::string> list_catalog(const std::string& sub) {
  const std::string dir = catalog_dir(sub);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(fmt::format("no {}/ catalog: {} is not a folder. {}", sub, dir, catalog_search_help()));
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const auto p = entry.path();
    if (p.extension() == ".yaml") names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool file_exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

namespace {
// The shell's names for a pipe or terminal it hands over: reading them is what the user asked.
bool is_stream_alias(const std::string& path) {
  return path == "/dev/stdin" || path.rfind("/dev/fd/", 0) == 0 || path.rfind("/proc/self/fd/", 0) == 0;
}
}  // namespace

void check_input_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // missing: the caller's own words
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format("{}: is a directory, expected a file", path));
  if (S_ISREG(st.st_mode)) {
    note_input_file(path);  // never to be overwritten by this command's outputs
    return;
  }
  if (is_stream_alias(path)) return;
  const char* kind = S_ISFIFO(st.st_mode)   ? "a named pipe (FIFO)"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  // A FIFO nobody writes to would block the read forever, /dev/zero would never end.
  throw Error(fmt::format("{}: is {}, not a regular file; servesim reads files (a shell pipe can be given as "
                          "/dev/stdin or /dev/fd/N)",
                          path, kind));
}

void check_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  check_input_kind(path);
}

bool is_directory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

void reject_directory(const std::string& path) { check_input_kind(path); }

std::ifstream open_input_file(const std::string& path) {
  check_input_file(path);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(fmt::format("{}: cannot open: {}", path, errno != 0 ? std::strerror(errno) : "unknown reason"));
  return in;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    // Files read whole (scenarios, catalogs, config.json, JSON reports) are small; a
    // pipe that never ends must not take the machine's memory with it.
    if (text.size() > kMaxWholeFileBytes)
      throw Error(fmt::format("{}: more than {} MiB; servesim reads files of this kind whole and refuses larger ones",
                              path, kMaxWholeFileBytes >> 20));
  }
  if (in.bad()) throw Error(fmt::format("{}: read error", path));
  return text;
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || ends_with(s, ".yaml") || ends_with(s, ".yml") ||
         ends_with(s, ".json");
}

}  // namespace servesim
