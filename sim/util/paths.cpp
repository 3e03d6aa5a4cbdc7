#include "util/paths.h"

#include <algorithm>
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

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || ends_with(s, ".yaml") || ends_with(s, ".yml") ||
         ends_with(s, ".json");
}

}  // namespace servesim
