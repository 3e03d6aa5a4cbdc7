#pragma once
// Users who give up: how long a user waits for the first token before leaving
// (`workload.patience`, read by config/read_patience.cpp).
//
//   patience: {dist: fixed, value: "4 s"}
//   patience: {dist: uniform, min: "3 s", max: "5 s"}
//   patience: {dist: exponential, mean: "4 s"}
//   patience: {dist: lognormal, mean: "4 s", stddev: "2 s"}
//
// A request whose first token has not come `patience` after its arrival (the
// time the user sent it, so the front-end latency counts) is abandoned: the
// engine drops it from the waiting queue or aborts its prefill, frees its KV
// blocks and reports it as failed with reason `abandoned` (metrics/failure.h).
//
// Each request's patience is a pure function of (workload.seed, request id): a
// counter-based draw (SplitMix64 of the seed, the stream name "patience" and
// the id), not a draw from a stateful stream. So it needs no per-request storage
// (a waiting request stays 64 bytes), any engine can recompute it, and it
// perturbs no other random stream: with patience unset nothing changes.
#include <cstdint>
#include <span>
#include <string_view>

#include "core/sim_time.h"
#include "workload/duration_distribution.h"
#include "workload/request.h"

namespace servesim {

// A patience is a duration distribution (duration_distribution.h).
using PatienceKind = DurationKind;
using PatienceSpec = DurationSpec;

struct PatienceDistributionInfo {
  std::string_view name;
  PatienceKind kind;
  std::string_view doc;
};
std::span<const PatienceDistributionInfo> patience_distributions();
std::string_view patience_name(PatienceKind kind);

class Patience {
 public:
  Patience(const PatienceSpec& spec, std::uint64_t seed);
  // Request `id`'s patience, seconds (>= 0).
  double seconds(std::int64_t id) const;
  // When the user gives up: arrival + patience.
  Nanos deadline(const Request& r) const { return r.arrival + to_nanos(seconds(r.id)); }
  const PatienceSpec& spec() const { return spec_; }

 private:
  double draw(std::int64_t id) const;
  // Uniform on (0, 1), the k-th of request `id`'s draws.
  double uniform01(std::int64_t id, std::uint64_t k) const;

  PatienceSpec spec_;
  std::uint64_t key_;  // seed mixed with the stream name
};

}  // namespace servesim
