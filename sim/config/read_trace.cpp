// workload.trace and its companions: which file to replay, in which format, how
// fast. The trace itself is read later, by the trace source (workload/trace_*.cpp).
#include <fmt/format.h>

#include <filesystem>

#include "config/workload_keys.h"
#include "config/workload_reader.h"
#include "util/error.h"
#include "util/paths.h"

namespace servesim {
namespace {

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

}  // namespace

TraceSpec parse_trace(ConfigMap& m) {
  using namespace workload_keys;
  for (const Key* k : {&arrival, &input_tokens, &output_tokens, &shared_prefix, &multi_turn}) {
    if (has_key(m, *k))
      throw Error(fmt::format("{}: not used with workload.trace (the trace gives the arrivals and lengths); "
                              "remove it",
                              where(m, *k)));
  }
  TraceSpec t;
  const std::string ref = m.string(std::string(trace.name));
  const std::string at = where(m, trace);
  if (ref.empty()) throw Error(fmt::format("{}: trace must name a file", at));
  t.path = resolve_trace_path(ref, m.file());
  if (!file_exists(t.path)) {
    if (is_directory(t.path)) throw Error(fmt::format("{}: {}: is a directory, expected a trace file", at, t.path));
    const auto slash = m.file().rfind('/');
    throw Error(fmt::format("{}: trace file '{}' not found (looked beside the scenario{} and in the working "
                            "directory)",
                            at, ref, slash == std::string::npos ? "" : " in " + m.file().substr(0, slash + 1)));
  }
  // parse_trace_format's own error names the formats with a did-you-mean.
  t.format = parse_trace_format(read_text(m, format), where(m, format));
  t.time_scale = read_number(m, time_scale);
  return t;
}

}  // namespace servesim
