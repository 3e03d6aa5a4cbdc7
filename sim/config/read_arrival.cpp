// workload.arrival: the process named by `process` and the keys it reads, and
// each stage of a multi_stage process.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "config/workload_keys.h"
#include "config/workload_reader.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

// The process `key` names; a stage may only be a renewal process.
ArrivalKind read_process(ConfigMap& m, const Key& key, bool in_stage) {
  const std::string name = read_text(m, key);
  const auto& all = arrival_processes();
  const auto known = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.name == name; });
  if (known != all.end() && (known->stage_ok || !in_stage)) return known->kind;
  std::vector<std::string> valid(key.choices.begin(), key.choices.end());
  if (known != all.end())
    m.fail(std::string(key.name), fmt::format("'{}' cannot be a stage of multi_stage (valid here: {})", name, join(valid)));
  m.fail(std::string(key.name), fmt::format("unknown arrival process '{}'{} (valid{}: {})", name,
                                            did_you_mean(name, valid), in_stage ? " in a stage" : "", join(valid)));
}

// rate (and cv for gamma) of a poisson/gamma/constant process.
void read_renewal(ConfigMap& m, ArrivalKind kind, double& rate, double& cv) {
  rate = read_number(m, arrival_keys::rate);
  if (kind != ArrivalKind::gamma) return;
  cv = read_number(m, arrival_keys::cv);
  // Both in range, their combination can still leave double range.
  const double shape = 1.0 / (cv * cv), scale = 1.0 / (rate * shape);
  if (!std::isnormal(scale))
    throw Error(fmt::format("{}: rate {:g} with cv {:g} gives gamma gaps of scale {:g}, out of range; "
                            "use a smaller rate or cv",
                            where(m, arrival_keys::cv), rate, cv, scale));
}

ArrivalStage read_stage(ConfigMap& m) {
  using namespace arrival_keys;
  ArrivalStage st;
  st.process = read_process(m, stage_process, /*in_stage=*/true);
  read_renewal(m, st.process, st.rate, st.cv);
  const bool has_duration = has_key(m, stage_duration);
  if (has_duration == has_key(m, stage_requests))
    throw Error(fmt::format("{}: a stage needs exactly one of 'duration' (e.g. \"600 s\") or 'requests'",
                            m.where()));
  if (has_duration)
    st.duration_s = read_quantity(m, stage_duration);
  else
    st.requests = read_integer(m, stage_requests);
  m.finish();
  return st;
}

std::vector<ArrivalStage> read_stages(ConfigMap& m) {
  const std::string key(arrival_keys::stages.name);
  const ConfigNode* node = m.get(key);
  if (!node || !node->is_sequence() || node->items().empty())
    throw Error(fmt::format("{}: multi_stage needs 'stages', a non-empty list of "
                            "{{process, rate, duration | requests}} mappings",
                            m.where(key)));
  std::vector<ArrivalStage> stages;
  for (std::size_t i = 0; i < node->items().size(); ++i) {
    ConfigMap stage(node->items()[i], m.file(), fmt::format("{}[{}]", m.key_path(key), i));
    stages.push_back(read_stage(stage));
  }
  return stages;
}

}  // namespace

ArrivalSpec parse_arrival(ConfigMap& m) {
  using namespace arrival_keys;
  ArrivalSpec spec;
  spec.kind = read_process(m, process, /*in_stage=*/false);
  switch (spec.kind) {
    case ArrivalKind::poisson:
    case ArrivalKind::gamma:
    case ArrivalKind::constant: read_renewal(m, spec.kind, spec.rate, spec.cv); break;
    case ArrivalKind::all_at_once: break;
    case ArrivalKind::closed_loop:
      spec.users = read_integer(m, users);
      spec.think_time_s = read_quantity(m, think_time);
      break;
    case ArrivalKind::multi_stage: spec.stages = read_stages(m); break;
  }
  m.finish();
  return spec;
}

}  // namespace servesim
