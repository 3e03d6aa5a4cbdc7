#pragma once
// What a disaggregated run (run/disaggregated_simulation.h) reports beyond the usual
// summary: each pool's size and utilisation, and the KV transfers between them.
#include <cstdint>
#include <optional>
#include <string>

#include "metrics/autoscale_report.h"
#include "metrics/stats.h"

namespace servesim {

struct PoolReport {
  std::string gpu;
  int tp = 1, replicas = 1, gpus = 1;  // gpus = GPUs per instance x replicas
  int gpus_per_instance = 1;           // tp x attention_dp x pp
  std::string layout;                  // "tp=1 dp=72 ep=72 r=32" for a wide layout (DP attention / EP); "" otherwise
  std::string precision;               // the pool's resolved precision
  std::int64_t kv_blocks_per_instance = 0;
  // Over the whole run (first arrival to last completion), per instance averaged.
  double busy_fraction = 0;
  double mfu = 0, bandwidth_utilization = 0;  // while busy
  double batch_size_mean = 0;
  std::int64_t batch_size_max = 0;
  double kv_utilization_mean = 0, kv_utilization_max = 0;
  double queue_length_mean = 0;
  std::int64_t queue_length_max = 0;
  std::int64_t steps = 0;
  double energy_j = 0;  // the pool's GPUs over the whole run, idle time at idle power
  // An autoscaled pool (disaggregation.{prefill,decode}.autoscale): its instances serving
  // over the run and the GPU-hours they held; `replicas` and `gpus` are then its most, and
  // energy_j counts idle power only while an instance holds its GPUs.
  std::optional<AutoscaleReport> autoscale;
  // GPUs held on average: all of them when fixed, the autoscaler's GPU-seconds over its span
  // when autoscaled (what the pool is paid for).
  double held_gpus() const {
    return autoscale && autoscale->span_s > 0 ? autoscale->gpu_seconds / autoscale->span_s : static_cast<double>(gpus);
  }
};

struct DisaggregationReport {
  PoolReport prefill, decode;
  double link_bandwidth = 0;  // bytes/s, one prefill instance to one decode instance
  double link_latency_s = 0;
  bool layerwise = false;
  double kv_bytes_per_token = 0;  // the whole model's
  std::int64_t transfers = 0;
  double transfer_bytes = 0;
  Distribution transfer_ms;      // KV leaves the prefill instance's link queue -> it has arrived
  Distribution link_wait_ms;     // blocks granted -> the link is free (earlier transfers of the same instance)
  Distribution decode_wait_ms;   // first token sampled by prefill -> KV blocks granted by a decode instance
  std::int64_t finished_at_prefill = 0;  // one-token requests: done when the prefill instance sampled it
  // The P/D decider (disaggregation.decider_threshold): requests prefilled on their
  // decode instance instead (no prefill pool, no transfer).
  std::int64_t decider_threshold = 0;
  std::int64_t local_prefills = 0;
  // Decode instances' prefix caches (engine.prefix_caching; decode_only_engine.h):
  // prompt tokens of the requests granted there, of those found cached at the grant
  // (not sent, or not prefilled there), and cached blocks evicted for room.
  bool decode_prefix_caching = false;
  std::int64_t decode_prompt_tokens = 0, decode_cached_tokens = 0, decode_evicted_blocks = 0;
};

}  // namespace servesim
