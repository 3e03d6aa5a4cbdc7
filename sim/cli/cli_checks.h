#pragma once
// Range checks for real-valued command-line options. CLI::Range prints its bounds
// with %f, so a lower bound of 1e-7 reads "0.000000" and a refused 0 looks allowed;
// this one prints them as the user would write them.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string>

namespace servesim::cli {

inline CLI::Validator real_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double v = 0;
        try {
          std::size_t used = 0;
          v = std::stod(text, &used);
          if (used != text.size()) throw std::invalid_argument(text);
        } catch (const std::exception&) {
          return fmt::format("'{}' is not a number", text);
        }
        if (!(v >= lo && v <= hi)) return fmt::format("{} is outside [{:g}, {:g}]", text, lo, hi);
        return {};
      },
      fmt::format("in [{:g}, {:g}]", lo, hi));
}

}  // namespace servesim::cli
