#pragma once
// Runs known only by their aggregates (internal to sim/workload): an AIPerf or
// genai-perf summary (trace_aiperf_summary.cpp) or a `vllm bench serve` result saved
// without --save-detailed (trace_vllm_bench_summary.cpp) records how many requests
// were sent, how (concurrency, rate, burstiness), the length distributions (or only
// their means) and latency statistics, but no request. The replay regenerates them:
// lengths at the midpoints of equal quantile slices of each length distribution,
// shuffled, sent all at once under the concurrency limit or as a (gamma) Poisson
// stream at the recorded rate.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "workload/measured_requests.h"
#include "workload/trace_reader.h"

namespace servesim::trace_detail {

// Piecewise-linear quantile function through (0, min), (q, p_q) ..., (1, max) as far as
// the file gives them; a single point (the mean alone) gives a constant.
struct Quantiles {
  std::vector<std::pair<double, double>> points;  // (quantile, value), increasing quantile
  double at(double q) const;
};

struct RegeneratedRun {
  MeasuredAggregate measured;  // requests, concurrency / request_rate / request_throughput, statistics
  Quantiles isl, osl;          // prompt and output lengths, tokens
  double burstiness = 1.0;     // gamma shape of the gaps (1: Poisson); vllm bench serve --burstiness
  // vllm bench serve paces sends at --request-rate even under --max-concurrency; AIPerf's
  // concurrency mode sends every request as soon as a slot frees.
  bool paced_under_concurrency = false;
};

// A TraceReader over the regenerated requests of `run` (record k = request k), with
// lengths shuffled and arrivals drawn from `seed` ("lengths" and "arrivals" streams).
std::unique_ptr<TraceReader> open_regenerated_run(const std::string& path, TraceFormat format, RegeneratedRun run,
                                                  std::uint64_t seed);

// How the replay sends the regenerated requests, in words (MeasuredAggregate::arrivals).
std::string regenerated_arrivals(const RegeneratedRun& run, std::uint64_t seed);

}  // namespace servesim::trace_detail
