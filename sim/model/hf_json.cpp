#include "model/hf_json.h"

#include <fmt/format.h>

#include <cctype>
#include <string_view>

#include "util/error.h"
#include "util/json_file.h"
#include "util/paths.h"

namespace servesim {
namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Length of the non-finite token starting at text[i] ("-Infinity", "Infinity", "NaN"), 0 if none.
std::size_t nonfinite_token_at(const std::string& text, std::size_t i) {
  if (i > 0 && is_name_char(text[i - 1])) return 0;
  for (const std::string_view w : {"-Infinity", "Infinity", "NaN"}) {
    const std::size_t end = i + w.size();
    if (text.compare(i, w.size(), w) == 0 && (end == text.size() || !is_name_char(text[end]))) return w.size();
  }
  return 0;
}

}  // namespace

std::string quote_nonfinite_json_tokens(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];  // an escaped character, possibly a quote
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    // A bare token, "-Infinity" with its sign, becomes a string.
    if (const std::size_t n = nonfinite_token_at(text, i); n > 0) {
      out += '"' + text.substr(i, n) + '"';
      i += n - 1;
      continue;
    }
    out += c;
  }
  return out;
}

nlohmann::json read_hf_json_file(const std::string& path) {
  // The project's checked parse (nesting depth, errors naming the file) of the quoted text;
  // a column in an error may be off by the two quotes added to each token before it.
  return parse_json_text(quote_nonfinite_json_tokens(read_text_file(path)), path);
}

}  // namespace servesim
