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
#include "util/text.h"

namespace servesim {

std::string data_root() {
  if (const char* home = std::getenv("SERVESIM_HOME"); home && *home) return home;
  return SERVESIM_SOURCE_DIR;
}

std::string catalog_dir(const std::string& sub) { return data_root() + "/" + sub; }

std::vector<std::string> list_catalog(const std::string& sub) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(catalog_dir(sub), ec)) {
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

void check_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format("{}: is a directory, expected a file", path));
}

void reject_directory(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format("{}: is a directory, expected a file", path));
}

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
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("{}: read error", path));
  return s.str();
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || ends_with(s, ".yaml") || ends_with(s, ".yml") ||
         ends_with(s, ".json");
}

}  // namespace servesim
