#pragma once
// Parameter sweeps: the cartesian product of scenario keys, each point simulated
// (in parallel), one result row per point in point order whatever the thread count.
//
//   --vary KEY=V1,V2,...         explicit values (each parsed as YAML, like --set)
//   --vary KEY=START:STOP:STEP   an inclusive arithmetic range (1:5:2 -> 1,3,5)
// Items of one --vary may mix both: "rate=1:4:1,8,16".
//
// Errors: a key the strict scenario loader does not know ("unknown key ... did
// you mean"), a malformed key path, a zero step, a step whose sign cannot reach
// STOP, an empty value, a repeated key, and a value that fails to parse at every
// point it appears in (e.g. a misspelt GPU name) are servesim::Error before any
// simulation runs. A point that parses but cannot run (the model does not fit,
// or a combination the loader rejects, such as a TP degree for one model of a
// model sweep) becomes a row with status "infeasible" and the reason.
#include "config/config_node.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run/simulation.h"
#include "scenario/scenario.h"

namespace servesim::planning {

struct SweepAxis {
  std::string key;                  // dotted scenario key, e.g. workload.arrival.rate
  std::vector<std::string> values;  // YAML texts, in order
};

// Parses "KEY=V1,V2" / "KEY=START:STOP:STEP" (throws servesim::Error with the reason).
SweepAxis parse_vary(const std::string& text);
// Expands one range "START:STOP:STEP" (inclusive; integers stay integers, decimals
// are printed with at most 12 significant digits so 0.1 steps do not drift).
std::vector<std::string> expand_range(const std::string& text, const std::string& what);

// Points in order: the last axis varies fastest.
std::vector<std::vector<std::string>> cartesian(const std::vector<SweepAxis>& axes);
// The values of point `index` of that order, without making the others.
std::vector<std::string> point_values(const std::vector<SweepAxis>& axes, std::size_t index);
// The number of points, or an Error naming the limit and the axes' sizes when there are
// more than `max_points` (checked without overflow).
std::size_t sweep_point_count(const std::vector<SweepAxis>& axes, std::size_t max_points);

struct PointResult {
  std::size_t index = 0;
  std::vector<std::string> values;  // one per axis
  bool ok = false;
  std::string reason;               // why infeasible
  std::optional<Scenario> scenario; // when it parsed
  std::optional<SimulationResult> result;  // when it ran
};

// The default bound on a sweep's points (`--max-points` raises it): a product of a few
// long ranges multiplies fast (1000 x 1000 = a million simulations).
inline constexpr std::size_t kDefaultMaxSweepPoints = 100'000;

struct SweepOptions {
  int threads = 1;
  std::size_t max_points = kDefaultMaxSweepPoints;
  // Keep every PointResult (scenario and simulation result) and return them; false:
  // each point is dropped after on_point (streaming: memory flat in the point count).
  bool keep_results = true;
  std::size_t timeline_rows = 0;  // keep timelines (what-if does not need them)
  // Called with (points done, total) from worker threads, serialised.
  std::function<void(std::size_t, std::size_t)> progress;
  // Points to leave unsimulated (finished by an earlier, interrupted run); they come
  // back with no scenario or result, and the caller supplies their rows.
  std::function<bool(std::size_t)> skip;
  // Called (serialised) as each simulated point finishes, in completion order: the
  // sweep checkpoint writes its row here.
  std::function<void(const PointResult&)> on_point;
};

// Runs every point of the product of `axes` over `base` (a parsed YAML document,
// already carrying any --set overrides; it is cloned per point and never modified).
// Returns the points in order (empty when options.keep_results is false).
std::vector<PointResult> run_sweep(const ConfigNode& base, const std::string& source,
                                   const std::vector<SweepAxis>& axes, const SweepOptions& options);

// Runs fn(i) for i in [0, n) on `threads` threads (work stealing by atomic
// counter); rethrows the first exception once all threads stop. The caller's
// StopScope (util/interrupt.h) holds in every worker.
void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn);

// One point as JSON: {point, vary: {key: value}, status, reason, setup, memory,
// summary (summary_json), cost, energy}; only point/vary/status/reason when infeasible.
nlohmann::ordered_json point_json(const PointResult& p, const std::vector<SweepAxis>& axes);
// The same flattened to "a.b" columns: the varied keys by their own names,
// summary.* without its prefix, SLO targets as slo.<metric>.<statistic>(.met).
nlohmann::ordered_json flat_row(const PointResult& p, const std::vector<SweepAxis>& axes);

// CSV (header + one row per point) and JSON (array of objects) of a sweep; the
// metric columns are the union over feasible rows, in first-seen order.
std::string sweep_csv(const std::vector<PointResult>& points, const std::vector<SweepAxis>& axes);
nlohmann::ordered_json sweep_json(const std::vector<PointResult>& points, const std::vector<SweepAxis>& axes);

// A finished point in the form every sweep output is built from, and that a sweep
// checkpoint stores: its JSON object and its CSV cells as text. Building the outputs
// from records (fresh or read back from a checkpoint) is what makes a resumed sweep's
// file byte-identical to an uninterrupted one.
//
// A sweep keeps one record per point until it writes its output, so a record is
// compact (about 7.5 kB for a feasible point, where a parsed JSON tree and a pair of
// strings per cell took 45 kB): the JSON as its compact text, the cells' texts in one
// string, and the column names shared by every record with the same columns.
struct PointRecord {
  std::size_t index = 0;
  std::vector<std::string> values;  // one per axis, as given
  std::string json_text;            // point_json, compact (dump())
  std::shared_ptr<const std::vector<std::string>> csv_keys;  // flat_row's keys (shared)
  std::string csv_text;                                      // each cell's CSV text, back to back
  std::vector<std::uint32_t> csv_ends;                       // end of cell i in csv_text

  nlohmann::ordered_json json() const;  // point_json, parsed back
  std::size_t cells() const { return csv_ends.size(); }
  const std::string& key(std::size_t i) const { return (*csv_keys)[i]; }
  std::string_view cell(std::size_t i) const;
  // Sets the cells from (key, CSV text) pairs; the key list is shared when seen before.
  void set_cells(const std::vector<std::pair<std::string, std::string>>& cells);
};
PointRecord point_record(const PointResult& p, const std::vector<SweepAxis>& axes);
// The same outputs as sweep_csv / sweep_json, from records in point order.
std::string records_csv(const std::vector<PointRecord>& records, const std::vector<SweepAxis>& axes);
nlohmann::ordered_json records_json(const std::vector<PointRecord>& records);
// records_json(records).dump(2), written record by record (no tree of the whole sweep).
std::string records_json_text(const std::vector<PointRecord>& records);

// Flattens nested objects into "a.b.c" keys (arrays index as a.0.b).
void flatten_json(const nlohmann::ordered_json& j, const std::string& prefix, nlohmann::ordered_json& out);

// RFC 4180 quoting when a field holds a comma, quote or newline.
std::string csv_field(const std::string& s);
// A JSON scalar as CSV text (numbers shortest round-trip, booleans true/false, null empty).
std::string csv_value(const nlohmann::ordered_json& v);
// A YAML scalar text as JSON: a number when it reads as one, else the string.
nlohmann::ordered_json scalar_json(const std::string& text);

}  // namespace servesim::planning
