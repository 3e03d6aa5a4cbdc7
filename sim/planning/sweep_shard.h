#pragma once
// A sweep split into shards that run apart (a Slurm job array, a Kubernetes Indexed
// Job, Dask workers) and merge into exactly the unsharded output.
//
// Shard K of N (K = 0..N-1, as SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX count)
// simulates the points whose index i satisfies i mod N == K: round robin rather than
// contiguous blocks, so a sweep whose cost grows along an axis (rates, lengths)
// spreads its expensive points over all shards. Every shard still parses every
// point, so a bad --vary fails in every shard with the same message as the
// unsharded sweep.
//
// A shard file is JSON lines: a header {"servesim_sweep_shard": 1, "fingerprint",
// "points", "shard": [K, N], "axes": [{key, values}]} and then one line per point
// of the shard, in point order, in the sweep checkpoint's record form. Merging
// checks that the files come from one sweep (same fingerprint, points and N), that
// no shard is given twice and none is missing, and rebuilds the rows from the
// records: the CSV or JSON is byte-identical to `sweep --out` of the whole sweep.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "config/config_node.h"
#include "planning/sweep.h"

namespace servesim::planning {

struct Shard {
  std::size_t index = 0;  // K
  std::size_t count = 1;  // N
};

// "K/N" with 0 <= K < N; anything else is an Error saying what is expected.
Shard parse_shard(const std::string& text);
bool in_shard(std::size_t point, const Shard& shard);

// Simulates the points of `shard` (options.skip is replaced) and returns the shard
// file's text. `fingerprint`: sweep_fingerprint of the whole sweep.
std::string run_sweep_shard(const ConfigNode& base, const std::string& source, const std::vector<SweepAxis>& axes,
                            const SweepOptions& options, const Shard& shard, const std::string& fingerprint);

struct MergedSweep {
  std::vector<SweepAxis> axes;
  std::vector<PointRecord> records;  // every point, in point order
};

// Merges shard files given as (name for errors, text). Errors name the file and
// what does not fit: not a shard file, cut short, another sweep, a shard twice,
// missing shards.
MergedSweep merge_sweep_shards(const std::vector<std::pair<std::string, std::string>>& files);

// The output a sweep writes to `out` (FILE.csv or FILE.json), as `sweep --out` does.
std::string sweep_output_text(const MergedSweep& sweep, bool json);

}  // namespace servesim::planning
