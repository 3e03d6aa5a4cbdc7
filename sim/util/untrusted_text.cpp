#include "util/untrusted_text.h"

#include <cctype>

namespace servesim {

bool is_plain_number(std::string_view t) {
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == t.size();
}

std::string csv_cell(std::string_view text) {
  std::string cell;
  const bool formula_start = !text.empty() && (text[0] == '=' || text[0] == '+' || text[0] == '-' ||
                                               text[0] == '@' || text[0] == '\t' || text[0] == '\r');
  if (formula_start && !is_plain_number(text)) cell += '\'';
  cell += text;
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string gnuplot_string(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\'') out += "''";
    else if (u < 0x20 || u == 0x7f) out += ' ';
    else out += c;
  }
  return out + "'";
}

}  // namespace servesim
