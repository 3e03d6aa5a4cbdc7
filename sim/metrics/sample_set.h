#pragma once
// Samples of one metric: kept exactly up to a cap, then folded into a
// LogHistogram (log_histogram.h: percentiles within 0.1% of exact; count, mean,
// min and max exact), so memory is flat in the run's length. Weighted sets keep
// (value, count) pairs (inter-token gaps per step); unweighted ones plain values.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "metrics/log_histogram.h"
#include "metrics/stats.h"

namespace servesim {

class SampleSet {
 public:
  SampleSet(std::size_t cap, bool weighted) : cap_(cap), weighted_(weighted) {}
  // Inline, the histogram first: past the cap (long runs) that is every call.
  void add(double value, std::int64_t count = 1) {
    if (hist_) {
      hist_->add(value, count);
      return;
    }
    add_exact(value, count);
  }
  bool exact() const { return !hist_; }
  void set_cap(std::size_t cap) { cap_ = cap; }
  // Exact: summarize_values / summarize_weighted (sorting the samples in place).
  Distribution summarize();

 private:
  void add_exact(double value, std::int64_t count);
  void to_histogram();

  std::size_t cap_;
  bool weighted_;
  std::vector<double> values_;
  std::vector<std::pair<double, std::int64_t>> pairs_;
  std::unique_ptr<LogHistogram> hist_;
};

}  // namespace servesim
