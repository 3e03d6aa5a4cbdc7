#pragma once
// A sweep that keeps what it finished. With an output file, every point is appended
// to "<out>.partial" as it completes (one JSON line, flushed), so Ctrl-C, a crash or
// a kill keeps the finished points; a later run of the same sweep (same scenario
// text, --set and --vary: the header's fingerprint) reuses them and simulates only
// the rest. When every point is done the output is written from the rows in point
// order, atomically, and the .partial removed: the file is byte-identical to that of
// an uninterrupted run, whatever the thread count or the order points finished in.
#include "config/config_node.h"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "planning/sweep.h"

namespace servesim::planning {

struct CheckpointedSweep {
  std::vector<PointRecord> records;  // every point, in point order
  std::size_t resumed = 0;           // points read back from an earlier .partial
};

// The fingerprint of a sweep's definition (scenario text, overrides, axes).
std::string sweep_fingerprint(const std::string& scenario_text, const std::vector<std::string>& sets,
                              const std::vector<SweepAxis>& axes);

// One finished point as the one-line JSON object a checkpoint (and a shard file,
// planning/sweep_shard.h) stores, and back; record_from_json throws
// nlohmann::json::exception on an object of another shape.
nlohmann::ordered_json record_json(const PointRecord& r);
PointRecord record_from_json(const nlohmann::ordered_json& j);

// "<out>.partial".
std::string partial_path(const std::string& out);

// Runs the sweep. `out` empty: no checkpoint, nothing written. Otherwise `out`
// (FILE.csv, or FILE.json for the JSON array) is written when all points are done.
// Ctrl-C: throws Interrupted("interrupted: N of M points done, kept in <out>.partial;
// run the same command again to finish").
CheckpointedSweep run_sweep_checkpointed(const ConfigNode& base, const std::string& source,
                                         const std::vector<SweepAxis>& axes, const SweepOptions& options,
                                         const std::string& out, const std::string& fingerprint);

}  // namespace servesim::planning
