#pragma once
// A one-line progress bar on stderr for long sweeps and plans (only when stderr
// is a terminal: pipes and logs stay clean).
#include <chrono>
#include <cstddef>
#include <string>

namespace servesim::planning {

class ProgressBar {
 public:
  // `unit`: "points", "candidates". Disabled unless `enabled` (use stderr_is_terminal()).
  ProgressBar(std::string unit, bool enabled);
  ~ProgressBar();
  void update(std::size_t done, std::size_t total);  // not thread-safe: callers serialise
  void finish();                                     // clears the line
  // A running count where the total is not known (e.g. an optimiser's evaluations).
  void tick(std::size_t done);
  bool enabled() const { return enabled_; }

 private:
  std::string unit_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

bool stderr_is_terminal();

}  // namespace servesim::planning
