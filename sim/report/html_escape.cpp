#include "report/html_escape.h"

#include <fmt/format.h>

#include <cmath>

namespace servesim::report {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_number(double value) {
  if (!std::isfinite(value)) return "-";
  // Counts and token rates above 10^4 read better whole (58940, not 5.894e+04).
  if (std::abs(value) >= 1e4 && std::abs(value) < 1e15) return fmt::format("{:.0f}", value);
  return fmt::format("{:.4g}", value);
}

}  // namespace servesim::report
