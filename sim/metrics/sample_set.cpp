#include "metrics/sample_set.h"

namespace servesim {

void SampleSet::add_exact(double value, std::int64_t count) {
  if (weighted_) pairs_.emplace_back(value, count);
  else values_.push_back(value);
  if ((weighted_ ? pairs_.size() : values_.size()) > cap_) to_histogram();
}

void SampleSet::to_histogram() {
  hist_ = std::make_unique<LogHistogram>();
  for (double v : values_) hist_->add(v);
  for (const auto& [v, c] : pairs_) hist_->add(v, c);
  std::vector<double>().swap(values_);
  std::vector<std::pair<double, std::int64_t>>().swap(pairs_);
}

Distribution SampleSet::summarize() {
  if (hist_) return hist_->summarize();
  return weighted_ ? summarize_weighted(pairs_) : summarize_values(values_);
}

}  // namespace servesim
