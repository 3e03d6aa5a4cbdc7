#include "workload/workload_spec.h"

#include <fmt/format.h>

#include <filesystem>

#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"
#include "util/units.h"
#include "config/config_ranges.h"
#include "workload/workload_limits.h"

namespace servesim {

namespace {
ConfigMap required_map(ConfigMap& m, const std::string& key, const char* example) {
  if (!m.has(key))
    throw Error(fmt::format("{}: missing required key '{}' (e.g. {}: {})", m.where(), m.key_path(key), key,
                            example));
  return m.map(key);
}

// A relative trace path names a file beside the scenario when there is one
// there, else one relative to the working directory.
std::string resolve_trace_path(const std::string& ref, const std::string& scenario_file) {
  if (ref.empty() || ref[0] == '/') return ref;
  const auto slash = scenario_file.rfind('/');
  const std::string beside = slash == std::string::npos ? ref : scenario_file.substr(0, slash + 1) + ref;
  std::error_code ec;
  if (std::filesystem::exists(beside, ec)) return beside;  // a directory there is then named as one
  return ref;
}

void parse_trace(ConfigMap& m, WorkloadSpec& w) {
  for (const char* key : {"arrival", "input_tokens", "output_tokens", "shared_prefix", "multi_turn"}) {
    if (m.has(key))
      throw Error(fmt::format("{}: not used with workload.trace (the trace gives the arrivals and lengths); "
                              "remove it",
                              m.where(key)));
  }
  TraceSpec t;
  const std::string ref = m.string("trace");
  if (ref.empty()) throw Error(fmt::format("{}: trace must name a file", m.where("trace")));
  t.path = resolve_trace_path(ref, m.file());
  if (!file_exists(t.path)) {
    if (is_directory(t.path))
      throw Error(fmt::format("{}: {}: is a directory, expected a trace file", m.where("trace"), t.path));
    const auto slash = m.file().rfind('/');
    throw Error(fmt::format("{}: trace file '{}' not found (looked beside the scenario{} and in the working "
                            "directory)",
                            m.where("trace"), ref,
                            slash == std::string::npos ? "" : " in " + m.file().substr(0, slash + 1)));
  }
  t.format = parse_trace_format(m.string("format", "auto"), m.where("format"));
  t.time_scale = m.number("time_scale", 1.0);
  if (!(t.time_scale > 0.0))
    throw Error(fmt::format("{}: time_scale must be > 0, got {}", m.where("time_scale"), t.time_scale));
  // Far outside this, gaps collapse below the 1 ns tick (every request at once) or
  // a second-long gap leaves the clock's range; .inf is refused too.
  check_real_range(m.where("time_scale"), t.time_scale, {1e-6, 1e6}, Dimension::fraction,
                   "a factor on the trace's arrival gaps");
  w.trace = t;
}

SharedPrefixSpec parse_shared_prefix(ConfigMap& sp) {
  SharedPrefixSpec s;
  s.groups = sp.integer("groups");
  if (s.groups < 1) throw Error(fmt::format("{}: groups must be >= 1, got {}", sp.where("groups"), s.groups));
  s.tokens = sp.integer("tokens");
  if (s.tokens < 1)
    throw Error(fmt::format("{}: tokens (the system prompt length) must be >= 1, got {}", sp.where("tokens"),
                            s.tokens));
  check_integer_range(sp.where("tokens"), s.tokens, {1, kMaxLengthTokens}, "tokens of one system prompt");
  if (sp.has("prompts_per_group")) {
    s.prompts_per_group = sp.integer("prompts_per_group");
    if (s.prompts_per_group < 1)
      throw Error(fmt::format("{}: prompts_per_group must be >= 1, got {}", sp.where("prompts_per_group"),
                              s.prompts_per_group));
    if (s.groups > 10'000'000 / s.prompts_per_group)
      throw Error(fmt::format("{}: groups * prompts_per_group must be at most 10,000,000", sp.where()));
  }
  const std::string assign = sp.string("assign", "round_robin");
  if (assign != "round_robin" && assign != "random")
    throw Error(fmt::format("{}: unknown assign '{}'{} (valid: round_robin, random)", sp.where("assign"), assign,
                            did_you_mean(assign, {"round_robin", "random"})));
  s.random_assign = assign == "random";
  sp.finish();
  return s;
}
}  // namespace

WorkloadSpec parse_workload(ConfigMap& m) {
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
  if (m.has("hash_block_tokens")) {
    const std::int64_t b = m.integer("hash_block_tokens");
    if (b < 1 || b > (1 << 20))
      throw Error(fmt::format("{}: hash_block_tokens must be in [1, 1048576], got {}", m.where("hash_block_tokens"),
                              b));
    w.hash_block_tokens = static_cast<std::int32_t>(b);
  }

  if (m.has("trace")) {
    parse_trace(m, w);
    m.finish();
    ConfigMap no_arrival(empty_config_map(), m.file(), m.key_path("arrival"));
    check_workload_limits(m, no_arrival, w);
    return w;
  }
  for (const char* key : {"format", "time_scale"}) {
    if (m.has(key))
      throw Error(fmt::format("{}: only used with workload.trace (a trace file to replay)", m.where(key)));
  }

  ConfigMap arrival = required_map(m, "arrival", "{process: poisson, rate: 8}");
  w.arrival = parse_arrival(arrival);
  ConfigMap input = required_map(m, "input_tokens", "{dist: lognormal, mean: 1024, stddev: 512}");
  w.input_tokens = parse_length_distribution(input);
  ConfigMap output = required_map(m, "output_tokens", "{dist: uniform, min: 64, max: 512}");
  w.output_tokens = parse_length_distribution(output);
  if (m.has("shared_prefix")) {
    ConfigMap sp = m.map("shared_prefix");
    w.shared_prefix = parse_shared_prefix(sp);
  }
  if (m.has("multi_turn")) {
    ConfigMap mt = m.map("multi_turn");
    MultiTurnSpec t;
    t.turns = mt.integer("turns");
    if (t.turns < 1) throw Error(fmt::format("{}: turns must be >= 1, got {}", mt.where("turns"), t.turns));
    const bool closed = w.arrival.kind == ArrivalKind::closed_loop;
    if (closed && mt.has("think_time"))
      throw Error(fmt::format("{}: with a closed_loop arrival the time between turns is arrival.think_time "
                              "(from each completion); remove multi_turn.think_time",
                              mt.where("think_time")));
    if (!closed) {
      if (!mt.has("think_time"))
        throw Error(fmt::format("{}: missing required key '{}' (seconds from one turn's arrival to the next, "
                                "e.g. think_time: \"5 s\")",
                                mt.where(), mt.key_path("think_time")));
      t.think_time_s = mt.quantity("think_time", Dimension::time);
      if (t.think_time_s < 0.0)
        throw Error(fmt::format("{}: think_time must be >= 0", mt.where("think_time")));
    }
    mt.finish();
    if (w.arrival.kind == ArrivalKind::all_at_once)
      throw Error(fmt::format("{}: multi_turn needs arrivals that start sessions over time (poisson, gamma, "
                              "constant, multi_stage or closed_loop), not all_at_once",
                              mt.where()));
    if (w.shared_prefix && w.shared_prefix->prompts_per_group > 0)
      throw Error(fmt::format("{}: shared_prefix.prompts_per_group cannot be combined with multi_turn (each turn "
                              "asks a new question)",
                              mt.where()));
    w.multi_turn = t;
  }
  m.finish();

  // Only now, so that a misspelt 'requests' is reported as such first.
  if (w.arrival.kind == ArrivalKind::all_at_once && w.requests < 0)
    throw Error(fmt::format("{}: all_at_once needs workload.requests (how many arrive at t = 0)",
                            arrival.where()));
  if (w.requests < 0 && !w.duration_s && !arrival_ends(w.arrival))
    throw Error(fmt::format("{}: arrival process '{}' never ends by itself: set workload.requests or "
                            "workload.duration",
                            arrival.where(), describe_arrival(w.arrival)));
  check_workload_limits(m, arrival, w);
  return w;
}

}  // namespace servesim
