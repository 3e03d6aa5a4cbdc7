#include "planning/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace servesim::planning {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

ProgressBar::ProgressBar(std::string unit, bool enabled)
    : unit_(std::move(unit)), enabled_(enabled), start_(std::chrono::steady_clock::now()), last_(start_) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  // At most ~10 redraws a second, but always the last one.
  if (drawn_ && done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double frac = static_cast<double>(done) / static_cast<double>(total);
  constexpr int width = 30;
  const int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(width, '.');
  const std::string eta = done > 0 && done < total ? fmt::format(", ETA {:.0f} s", elapsed / frac - elapsed) : "";
  std::fputs(fmt::format("\r[{}] {}/{} {} ({:.0f}%) {:.1f} s{}\033[K", bar, done, total, unit_, 100 * frac, elapsed, eta)
                 .c_str(),
             stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::tick(std::size_t done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::fputs(fmt::format("\r{} {} {:.1f} s\033[K", done, unit_, elapsed).c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
  drawn_ = false;
}

}  // namespace servesim::planning
