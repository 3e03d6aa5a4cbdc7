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

namespace {

// Lower-case runs of letters and runs of digits: "Llama-3.1-70B" -> llama 3 1 70 b,
// "h100-sxm" -> h 100 sxm. Separators (-, _, ., space) only split.
std::vector<std::string> name_tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  int cur_kind = 0;  // 1 letters, 2 digits
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const int kind = std::isdigit(c) ? 2 : std::isalpha(c) ? 1 : 0;
    if (kind != cur_kind && !cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
    cur_kind = kind;
    if (kind) cur += static_cast<char>(std::tolower(c));
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string quote_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " or " : ", ";
    out += "'" + names[i] + "'";
  }
  return "; did you mean " + out + "?";
}

}  // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty() || candidates.empty()) return "";
  constexpr std::size_t kMaxShown = 4;
  const std::string lw = to_lower(word);
  // Orders a list of matches: closest spelling first, then catalog order.
  auto by_distance = [&](std::vector<std::string> names) {
    std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
      return edit_distance(word, a) < edit_distance(word, b);
    });
    if (names.size() > kMaxShown) names.resize(kMaxShown);
    return names;
  };

  // 1. The word starts a name ("h100" -> h100-sxm, h100-pcie): a shortened name, whatever
  //    the raw edit distance to some unrelated short name (a10g) says.
  std::vector<std::string> prefixed;
  if (lw.size() >= 2) {
    for (const auto& c : candidates)
      if (to_lower(c).rfind(lw, 0) == 0 && to_lower(c) != lw) prefixed.push_back(c);
  }
  if (!prefixed.empty()) return quote_list(by_distance(prefixed));

  // 2. Every token of the word is a token of the name ("llama3-70b" -> llama-3.1-70b,
  //    not llama-2-70b, which lacks the 3): the same name written with other separators
  //    or a version left out.
  const auto wt = name_tokens(word);
  if (wt.size() >= 2) {
    std::vector<std::string> covering;
    std::size_t fewest_extra = static_cast<std::size_t>(-1);
    for (const auto& c : candidates) {
      auto ct = name_tokens(c);
      bool all = true;
      for (const auto& t : wt) {
        auto it = std::find(ct.begin(), ct.end(), t);
        if (it == ct.end()) {
          all = false;
          break;
        }
        ct.erase(it);  // a token counts once: "8x7b" needs two of neither
      }
      if (!all) continue;
      // Prefer the names that add the fewest tokens (llama-3-70b over llama-3.1-70b-x).
      if (ct.size() < fewest_extra) {
        fewest_extra = ct.size();
        covering.clear();
      }
      if (ct.size() == fewest_extra) covering.push_back(c);
    }
    if (!covering.empty()) return quote_list(by_distance(covering));
  }

  // 3. A typo: the closest spelling, if close. Ties go to the name sharing more tokens.
  std::string best;
  std::size_t best_d = static_cast<std::size_t>(-1);
  std::size_t best_shared = 0;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    std::size_t shared = 0;
    const auto ct = name_tokens(c);
    for (const auto& t : wt) shared += std::count(ct.begin(), ct.end(), t) ? 1 : 0;
    if (d < best_d || (d == best_d && shared > best_shared)) {
      best_d = d;
      best = c;
      best_shared = shared;
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

std::string excerpt(std::string_view s, std::size_t max_chars) {
  if (s.size() <= max_chars) return std::string(s);
  std::size_t cut = max_chars;
  // Do not split a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "... (" + std::to_string(s.size()) + " characters)";
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
