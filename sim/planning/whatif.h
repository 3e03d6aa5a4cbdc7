#pragma once
// What-if comparisons: a small sweep (sweep.h) shown side by side and explained
// through the memory plan and the step-cost model: KV capacity (blocks, tokens)
// and why it moved (weights per GPU, KV bytes per token, HBM capacity), the mean
// batch the engine ran, the decode step time at that batch and at the
// baseline's batch, and the TTFT/TPOT that follow. The baseline is the first
// feasible point.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "planning/sweep.h"

namespace servesim::planning {

struct WhatIfRow {
  const PointResult* point = nullptr;
  std::string label;              // "model.weights=fp8, hardware.gpu=h200-sxm"
  bool ok = false;
  double weights_gib = 0;         // per GPU
  double kv_bytes_per_token = 0;  // per GPU
  double hbm_gb = 0;              // per GPU
  std::int64_t kv_blocks = 0, kv_tokens = 0;  // per replica
  double batch_mean = 0;
  double context_mean = 0;        // tokens a decoding sequence has in KV on average (input + output/2)
  double decode_step_ms = 0;      // one decode step at round(batch_mean) sequences of context_mean
  double decode_step_base_ms = 0; // ... at the baseline's batch and context
  double bandwidth_share = 0, compute_share = 0;
  double usd_per_mtok = 0;         // at the offered load (the scenario's rate)
  std::string precision;           // resolved, "W8A8 fp8, KV bf16"
  // Cost compared where it matters: at the highest rate that meets the SLOs
  // (capacity.h find_max_rate, per replica), not at the offered load, where a
  // faster configuration only looks idle.
  bool capacity_found = false;
  double capacity_rps = 0;         // SLO-meeting rate of the whole configuration (all replicas)
  double usd_per_mtok_at_capacity = 0;
  std::string capacity_note;       // why there is none
};

struct WhatIfOptions {
  bool at_capacity = true;         // run a capacity search per configuration
  std::int64_t trial_requests = 600;
};

std::vector<WhatIfRow> whatif_rows(const std::vector<PointResult>& points, const std::vector<SweepAxis>& axes,
                                   const WhatIfOptions& options = {});
std::string whatif_table(const std::vector<WhatIfRow>& rows);
// One sentence per non-baseline feasible row, comparing it with the baseline.
std::vector<std::string> whatif_explanations(const std::vector<WhatIfRow>& rows);
nlohmann::ordered_json whatif_json(const std::vector<WhatIfRow>& rows, const std::vector<SweepAxis>& axes);

// Time of one decode step of `batch` sequences with `context` tokens each.
double decode_step_seconds(const Scenario& sc, std::int64_t batch, double context);

}  // namespace servesim::planning
