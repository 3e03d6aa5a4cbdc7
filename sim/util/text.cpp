#include "util/text.h"

#include <algorithm>
#include <cctype>

namespace servesim {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      // std::tolower needs a value representable as unsigned char: bytes of UTF-8 text
      // (e.g. "µs") are negative chars, and passing them is undefined behaviour.
      const int ca = std::tolower(static_cast<unsigned char>(a[i - 1]));
      const int cb = std::tolower(static_cast<unsigned char>(b[j - 1]));
      const std::size_t sub = prev[j - 1] + (ca == cb ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = static_cast<std::size_t>(-1);
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  // Accept up to a third of the word's length in edits (at least 2): close
  // enough to be a typo, far enough not to suggest nonsense.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  if (best.empty() || best_d > limit) return "";
  return "; did you mean '" + best + "'?";
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace servesim
