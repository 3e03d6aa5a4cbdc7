#pragma once
// Exact summary statistics over all samples (no sketches): percentiles by linear
// interpolation between order statistics, as numpy.percentile and `vllm bench serve`
// compute them, so reported numbers compare like for like.
#include <cstdint>
#include <utility>
#include <vector>

namespace servesim {

struct Distribution {
  std::int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, min = 0, max = 0;
};

// Sorts `values` in place.
Distribution summarize_values(std::vector<double>& values);
double percentile_sorted(const std::vector<double>& sorted, double q);  // q in [0, 100]
// (value, count) pairs, e.g. one decode step's gap shared by every sequence in it.
// Sorts in place; the percentile is that of the expanded sample.
Distribution summarize_weighted(std::vector<std::pair<double, std::int64_t>>& samples);

}  // namespace servesim
