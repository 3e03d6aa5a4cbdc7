#pragma once
// Prefill/decode disaggregation (the scenario's `disaggregation:` section): a pool
// of prefill instances and a pool of decode instances, each its own setup (GPU,
// tensor parallelism, replicas, weight precision), and the link that carries each
// request's prompt KV from the prefill instance that computed it to the decode
// instance that continues it. run/disaggregated_simulation.h states the timing.
#include <optional>

#include "model/dtype.h"
#include "scenario/autoscale_spec.h"
#include "scenario/setup.h"

namespace servesim {

struct KvTransferSpec {
  double bandwidth = 0;    // bytes/s between one prefill and one decode instance
  double latency_s = 0;    // per transfer, before the first byte arrives
  // Layer-wise pipelining: each layer's KV leaves as the last prefill step
  // computes it, so all but the last layer's share overlaps that step.
  bool layerwise = false;
};

struct DisaggregationSpec {
  Setup prefill;  // the scenario's setup with the prefill pool's gpu, tp, replicas, weights
  Setup decode;   // ... and the decode pool's
  KvTransferSpec transfer;
  // The P/D decider (llm-d's pd-profile-handler): a request whose prompt has at most
  // this many tokens the decode instance has not cached is prefilled there, without
  // the prefill pool or a transfer. With engine.prefix_caching the uncached part is
  // the prompt less what the decode instance (the decode pool's router picks it first,
  // as llm-d does) has cached; without it, the whole prompt. 0: every request goes
  // through the prefill pool.
  std::int64_t decider_threshold = 0;
  // Each pool's own autoscaler (disaggregation.{prefill,decode}.autoscale), as NVIDIA
  // Dynamo's planner scales prefill and decode workers apart: the pool's `replicas` is
  // its most; unset, the pool is fixed (run/disaggregated_simulation.cpp).
  std::optional<AutoscaleSpec> prefill_autoscale, decode_autoscale;
};

// KV bytes of one token over the whole model (every attention layer, every distinct KV
// head, or MLA's latent): what a prefill instance sends per prompt token, whatever its TP
// (replicated KV heads are sent once). A state layer's per-sequence state is not in it
// (read_disaggregation.cpp says so for such a model).
inline double model_kv_bytes_per_token(const ModelSpec& m, DType kv_cache) { return m.kv_bytes_per_token(kv_cache); }

}  // namespace servesim
