#pragma once
// Service-level objectives: per metric, thresholds on mean or percentiles, and
// the share of requests that must meet every per-request threshold (attainment).
// config/read_slo.cpp reads it; its keys are made from the names below.
#include <string>
#include <vector>


namespace servesim {

struct SloTarget {
  std::string metric;     // ttft_ms, tpot_ms, itl_ms, e2e_ms
  std::string statistic;  // mean, p50, p90, p95, p99
  double limit_ms = 0;
};

struct SloSpec {
  std::vector<SloTarget> targets;
  double attainment = 0.0;  // required share of requests meeting all per-request limits (0 = not set)
  bool empty() const { return targets.empty(); }
};

const std::vector<std::string>& slo_metric_names();
const std::vector<std::string>& slo_statistic_names();

}  // namespace servesim
