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

std::size_t json_depth_exceeded_at(std::string_view text, int max_depth) {
  int depth = 0;
  std::size_t line = 1;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > max_depth) return line;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return 0;
}

nlohmann::json parse_json_text(std::string_view text, std::string_view source, std::string_view complaint) {
  if (const std::size_t line = json_depth_exceeded_at(text))
    throw Error(fmt::format("{}:{}: {}: nested deeper than {} levels of arrays and objects", source, line, complaint,
                            kMaxJsonDepth));
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {}: {}", source, complaint, detail(e)));
  }
}

nlohmann::json parse_json_or_discarded(std::string_view text) {
  if (json_depth_exceeded_at(text) != 0) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

nlohmann::ordered_json parse_ordered_json_or_discarded(std::string_view text) {
  if (json_depth_exceeded_at(text) != 0) return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
  return nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
}

nlohmann::json read_json_file(const std::string& path, std::string_view complaint) {
  return parse_json_text(read_text_file(path), path, complaint);
}

std::string json_field_error(const std::string& path, std::string_view context, const nlohmann::json::exception& e) {
  return fmt::format("{}: {}: {}", path, context, detail(e));
}

}  // namespace servesim
