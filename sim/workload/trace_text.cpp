#include "workload/trace_text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim::trace_detail {

LineReader::LineReader(const std::string& path, bool require_final_newline)
    : path_(path), require_final_newline_(require_final_newline) {
  // Before opening: a directory opens fine and then fails inside libstdc++ on the
  // first read; a named pipe would block the open itself.
  reject_directory(path);
  in_.open(path);
  if (!in_) throw Error(fmt::format("{}: cannot open trace file", path));
}

bool LineReader::next(std::string& line) {
  if (!std::getline(in_, line)) {
    if (in_.bad()) throw Error(fmt::format("{}: read error after line {}", path_, line_));
    return false;
  }
  ++line_;
  // getline hit the end of the file before a newline: the last line may be cut short,
  // and a cut inside its last number reads as a smaller number (375 tokens as 3).
  // Every shipped trace ends in a newline, so a missing one is an error, not a guess.
  if (require_final_newline_ && in_.eof() && line.find_first_not_of(" \t\r") != std::string::npos)
    throw Error(fmt::format("{}:{}: file ends without a newline: line {} may be truncated (add a newline at the "
                            "end if it is complete)",
                            path_, line_, line_));
  if (line_ == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a UTF-8 byte order mark
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

std::vector<std::string> split_csv(std::string_view line) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  out.push_back(std::move(field));
  return out;
}

namespace {
std::string_view strip(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
}  // namespace

std::optional<double> parse_number(std::string_view text) {
  text = strip(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double v = 0.0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  text = strip(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && p == text.data() + text.size()) return v;
  const auto d = parse_number(text);
  if (d && std::floor(*d) == *d && std::fabs(*d) < 9.0e15) return static_cast<std::int64_t>(*d);
  return std::nullopt;
}

void fail_at(const std::string& path, std::int64_t line, const std::string& message) {
  throw Error(fmt::format("{}:{}: {}", path, line, message));
}

std::int64_t token_count(std::string_view text, const std::string& column, const std::string& path,
                         std::int64_t line) {
  const auto v = parse_integer(text);
  if (!v) fail_at(path, line, fmt::format("{} '{}' is not an integer", column, excerpt(strip(text))));
  if (*v < 1) fail_at(path, line, fmt::format("{} must be >= 1 token, got {}", column, *v));
  return *v;
}

std::int64_t seconds_to_ns(double seconds, const std::string& column, const std::string& path, std::int64_t line) {
  if (!(std::fabs(seconds) < 9.0e9))
    fail_at(path, line, fmt::format("{} {} is out of range", column, seconds));
  return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

}  // namespace servesim::trace_detail
