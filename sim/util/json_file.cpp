#include "util/json_file.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/paths.h"

namespace servesim {
namespace {

// nlohmann's what() starts with "[json.exception.parse_error.101] "; the id helps no
// reader, the rest is the useful part.
std::string detail(const nlohmann::json::exception& e) {
  std::string w = e.what();
  if (!w.empty() && w[0] == '[') {
    const auto close = w.find("] ");
    if (close != std::string::npos) w.erase(0, close + 2);
  }
  // 406 (number overflow) carries no position: say what it means.
  if (e.id == 406) w += " (a number beyond the range of a double, about 1.8e308)";
  return w;
}

}  // namespace

nlohmann::json read_json_file(const std::string& path, std::string_view complaint) {
  const std::string text = read_text_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {}: {}", path, complaint, detail(e)));
  }
}

std::string json_field_error(const std::string& path, std::string_view context, const nlohmann::json::exception& e) {
  return fmt::format("{}: {}: {}", path, context, detail(e));
}

}  // namespace servesim
