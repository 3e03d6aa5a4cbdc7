#pragma once
// A name a user gives (a request class, a fleet pool) that is printed in tables, CSV
// and JSON: 1 to 64 letters, digits, '_', '-' or '.', so nothing a spreadsheet evaluates.
#include <algorithm>
#include <cctype>
#include <string>

namespace servesim {

inline bool printable_name(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

}  // namespace servesim
