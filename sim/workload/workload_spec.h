#pragma once
// The scenario's `workload:` mapping as plain data, and the source built from it.
//
//   workload:
//     seed: 1                   # optional, default 1
//     requests: 2000            # optional total; at least one of requests,
//     duration: "10 min"        #   duration or a multi_stage arrival must bound the run
//     arrival: {process: poisson, rate: 8}
//     input_tokens: {dist: lognormal, mean: 1024, stddev: 512, max: 8192}
//     output_tokens: {dist: uniform, min: 64, max: 512}
#include <cstdint>
#include <memory>
#include <optional>

#include "util/yaml_map.h"
#include "workload/arrival_process.h"
#include "workload/length_distribution.h"
#include "workload/request_source.h"

namespace servesim {

struct WorkloadSpec {
  std::uint64_t seed = 1;              // scenario seed; each stream mixes in its name
  std::int64_t requests = -1;          // total requests, -1 = until the arrival schedule ends
  std::optional<double> duration_s;    // seconds: no arrival after this time
  ArrivalSpec arrival;
  LengthSpec input_tokens;
  LengthSpec output_tokens;
};

// Reads the `workload:` mapping (and finish()es it and every mapping inside).
// Keys reserved for other workload kinds (trace, shared_prefix, multi_turn,
// hash_block_tokens) are let through but not read. Throws servesim::Error with
// the location for bad values, and when nothing bounds the run (a poisson,
// gamma, constant or closed_loop process with neither requests nor duration;
// all_at_once without requests).
WorkloadSpec parse_workload(YamlMap& m);

// The synthetic source for `spec` (see synthetic_source.h).
std::unique_ptr<RequestSource> make_synthetic_source(const WorkloadSpec& spec);

}  // namespace servesim
