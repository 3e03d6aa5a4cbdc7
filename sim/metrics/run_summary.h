#pragma once
// The result of one simulation: what `servesim run --json` prints.
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/failure.h"
#include "metrics/stats.h"

namespace servesim {

struct SloResult {
  std::string metric, statistic;
  double limit_ms = 0, value_ms = 0;
  bool met = false;
  bool measured = true;  // false when no completed request gave the metric a value (value_ms means nothing)
};

struct RunSummary {
  std::int64_t completed = 0;
  std::int64_t failed = 0;
  FailureCounts failures{};  // failed requests by reason (failure.h)
  std::int64_t preemptions = 0;
  std::int64_t preempted_requests = 0;
  double duration_s = 0;  // first arrival to last completion
  double requests_per_s = 0, input_tokens_per_s = 0, output_tokens_per_s = 0, total_tokens_per_s = 0;
  int gpus = 1;
  std::int64_t input_tokens = 0, output_tokens = 0, cached_tokens = 0;
  // Per request (completed only), milliseconds.
  Distribution ttft_ms, tpot_ms, itl_ms, e2e_ms, queue_ms;
  // SLOs.
  std::vector<SloResult> slo;
  // Not met when any request failed or none completed: a verdict over the served
  // requests alone would hide the ones that were not.
  bool slo_met = true;
  double slo_attainment = 1.0;  // share of offered requests (completed + failed) meeting every per-request limit
  double goodput_rps = 0;       // such requests per second
  // Engine and GPU utilisation (time-weighted over the busy period).
  double mfu = 0;                   // model FLOP/s over peak, while busy
  double bandwidth_utilization = 0; // HBM bytes/s over peak, while busy
  double busy_fraction = 0;         // share of wall time some step was running (per replica, averaged)
  double kv_utilization_mean = 0, kv_utilization_max = 0;
  double batch_size_mean = 0;
  std::int64_t batch_size_max = 0;
  double queue_length_mean = 0;
  std::int64_t queue_length_max = 0;
  std::int64_t steps = 0;
  double bound_share[4] = {0, 0, 0, 0};  // compute, memory, communication, overhead
  double prefix_hit_rate = 0;           // cached prompt tokens / prompt tokens
  // CPU KV offload tier (engine.cpu_offload): prompt tokens reloaded from host
  // memory instead of recomputed, and preemptions swapped out instead of recomputed.
  std::int64_t offload_tokens = 0;
  std::int64_t swapped_preemptions = 0;
};

}  // namespace servesim
