#include "cost/layout_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

Parallelism apply_layout_text(const std::string& text, Parallelism p) {
  std::string spaced = text;
  for (char& c : spaced)
    if (c == ',') c = ' ';
  // A layout is whole: what it does not name is the plain value (pp and the rest stay).
  p.tp = p.attention_dp = p.ep = 1;
  p.redundant_experts = 0;
  p.nodes = 0;  // a declared node count described the layout replaced; derived anew
  int items = 0;
  for (const std::string& raw : split(spaced, ' ')) {
    const std::string item = trim(raw);
    if (item.empty()) continue;
    std::size_t k = 0;
    while (k < item.size() && std::isalpha(static_cast<unsigned char>(item[k]))) ++k;
    const std::string name = item.substr(0, k);
    std::string digits = item.substr(k);
    if (!digits.empty() && digits[0] == '=') digits = digits.substr(1);
    int value = 0;
    bool ok = !digits.empty() && digits.size() <= 6;
    for (char c : digits) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    if (ok) value = std::stoi(digits);
    static const std::vector<std::string> names = {"tp", "dp", "ep", "r", "pp"};
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw Error(fmt::format("layout '{}': unknown item '{}'{} (items: tp, dp, ep, r, pp, e.g. \"tp1 dp16 ep16\")",
                              text, item, did_you_mean(name, names)));
    if (!ok || (value < 1 && name != "r"))
      throw Error(fmt::format("layout '{}': '{}' needs a whole number{} after it: '{}'", text, name,
                              name == "r" ? "" : " >= 1", item));
    ++items;
    if (name == "tp") p.tp = value;
    if (name == "dp") p.attention_dp = value;
    if (name == "ep") p.ep = value;
    if (name == "r") p.redundant_experts = value;
    if (name == "pp") p.pp = value;
  }
  if (items == 0) throw Error(fmt::format("layout '{}' names nothing (e.g. \"tp8\" or \"dp16 ep16\")", text));
  return p;
}

std::string layout_label(const Parallelism& p) {
  std::string s = fmt::format("tp={}", p.tp);
  if (p.attention_dp > 1) s += fmt::format(" dp={}", p.attention_dp);
  if (p.ep > 1) s += fmt::format(" ep={}", p.ep);
  if (p.redundant_experts > 0) s += fmt::format(" r={}", p.redundant_experts);
  if (p.pp > 1) s += fmt::format(" pp={}", p.pp);
  return s;
}

}  // namespace servesim
