#include "workload/workload_spec.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/units.h"

namespace servesim {

namespace {
YamlMap required_map(YamlMap& m, const std::string& key, const char* example) {
  if (!m.has(key))
    throw Error(fmt::format("{}: missing required key '{}' (e.g. {}: {})", m.where(), m.key_path(key), key,
                            example));
  return m.map(key);
}
}  // namespace

WorkloadSpec parse_workload(YamlMap& m) {
  // Read by the trace / prefix / multi-turn workload loaders, not here.
  m.allow({"trace", "shared_prefix", "multi_turn", "hash_block_tokens"});
  WorkloadSpec w;

  const std::int64_t seed = m.integer("seed", 1);
  if (seed < 0) throw Error(fmt::format("{}: seed must be >= 0, got {}", m.where("seed"), seed));
  w.seed = static_cast<std::uint64_t>(seed);

  if (m.has("requests")) {
    w.requests = m.integer("requests");
    if (w.requests < 1)
      throw Error(fmt::format("{}: requests must be >= 1, got {}", m.where("requests"), w.requests));
  }
  if (m.has("duration")) {
    w.duration_s = m.quantity("duration", Dimension::time);
    if (!(*w.duration_s > 0.0)) throw Error(fmt::format("{}: duration must be > 0", m.where("duration")));
  }

  YamlMap arrival = required_map(m, "arrival", "{process: poisson, rate: 8}");
  w.arrival = parse_arrival(arrival);
  YamlMap input = required_map(m, "input_tokens", "{dist: lognormal, mean: 1024, stddev: 512}");
  w.input_tokens = parse_length_distribution(input);
  YamlMap output = required_map(m, "output_tokens", "{dist: uniform, min: 64, max: 512}");
  w.output_tokens = parse_length_distribution(output);
  m.finish();

  // Only now, so that a misspelt 'requests' is reported as such first.
  if (w.arrival.kind == ArrivalKind::all_at_once && w.requests < 0)
    throw Error(fmt::format("{}: all_at_once needs workload.requests (how many arrive at t = 0)",
                            arrival.where()));
  if (w.requests < 0 && !w.duration_s && !arrival_ends(w.arrival))
    throw Error(fmt::format("{}: arrival process '{}' never ends by itself: set workload.requests or "
                            "workload.duration",
                            arrival.where(), describe_arrival(w.arrival)));
  return w;
}

}  // namespace servesim
