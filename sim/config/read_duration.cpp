// Duration distributions of closed-loop sessions: a user's think time
// (workload.multi_turn.think) and a tool call's duration
// (workload.multi_turn.tool_calls.duration). workload/duration_distribution.h
// samples them; their keys are declared here, once, and `dist` selects them.
#include <array>
#include <string_view>

#include <fmt/format.h>

#include "config/duration_key_set.h"
#include "config/workload_keys.h"
#include "config/workload_reader.h"
#include "util/error.h"
#include "util/text.h"
#include "workload/duration_distribution.h"

namespace servesim {
namespace {

struct DurationDistributionInfo {
  std::string_view name;
  DurationKind kind;
  std::string_view doc;
};
constexpr std::array<DurationDistributionInfo, 4> kDistributions{{
    {"fixed", DurationKind::fixed, "every pause lasts `value`"},
    {"uniform", DurationKind::uniform, "uniform on [min, max]"},
    {"exponential", DurationKind::exponential, "exponential of the given mean"},
    {"lognormal", DurationKind::lognormal, "lognormal of the given mean and standard deviation (of the duration itself)"},
}};

std::vector<std::string_view> dist_names() {
  std::vector<std::string_view> out;
  for (const auto& d : kDistributions) out.push_back(d.name);
  return out;
}

// A pause between two turns of one session; a day bounds any agent's tool or
// user's think time, and keeps an exponential's tail within servesim's times.
constexpr double kMaxPauseS = 86400.0;
constexpr std::string_view kWhy = "a pause between two turns of a session: a day is beyond any";

}  // namespace

namespace duration_keys {

const Key dist{.name = "dist",
               .type = KeyType::choice,
               .doc = "the distribution of the duration; it selects the keys read beside it",
               .spec = "DurationSpec::kind",
               .required = true,
               .choices = dist_names()};
const Key value{.name = "value",
                .type = KeyType::quantity,
                .doc = "every duration",
                .spec = "DurationSpec::value_s",
                .dimension = Dimension::time,
                .required = true,
                .min = 0,
                .max = kMaxPauseS,
                .why = kWhy};
const Key min{.name = "min",
              .type = KeyType::quantity,
              .doc = "shortest duration, inclusive",
              .spec = "DurationSpec::min_s",
              .dimension = Dimension::time,
              .required = true,
              .min = 0,
              .max = kMaxPauseS,
              .why = kWhy};
const Key max{.name = "max",
              .type = KeyType::quantity,
              .doc = "longest duration, inclusive",
              .spec = "DurationSpec::max_s",
              .dimension = Dimension::time,
              .required = true,
              .min = 0,
              .max = kMaxPauseS,
              .why = kWhy};
const Key mean{.name = "mean",
               .type = KeyType::quantity,
               .doc = "mean duration (lognormal: of the duration itself, not of its log)",
               .spec = "DurationSpec::mean_s",
               .dimension = Dimension::time,
               .required = true,
               .min = 1e-9,
               .max = kMaxPauseS,
               .why = kWhy};
const Key stddev{.name = "stddev",
                 .type = KeyType::quantity,
                 .doc = "standard deviation of the duration",
                 .spec = "DurationSpec::stddev_s",
                 .dimension = Dimension::time,
                 .required = true,
                 .min = 0,
                 .max = kMaxPauseS,
                 .why = kWhy};

}  // namespace duration_keys

DurationSpec read_duration_keys(ConfigMap& m, const DurationKeySet& keys,
                                const std::vector<std::pair<std::string_view, DurationKind>>& names) {
  DurationSpec p;
  const std::string name = read_text(m, *keys.dist);
  bool known = false;
  for (const auto& [n, kind] : names)
    if (n == name) {
      p.kind = kind;
      known = true;
    }
  if (!known) {
    std::vector<std::string> valid(keys.dist->choices.begin(), keys.dist->choices.end());
    m.fail(std::string(keys.dist->name), fmt::format("unknown {} distribution '{}'{} (valid: {})", keys.noun, name,
                                                     did_you_mean(name, valid), join(valid)));
  }
  switch (p.kind) {
    case DurationKind::fixed: p.value_s = read_quantity(m, *keys.value); break;
    case DurationKind::uniform:
      p.min_s = read_quantity(m, *keys.min);
      p.max_s = read_quantity(m, *keys.max);
      if (p.min_s > p.max_s)
        throw Error(fmt::format("{}: min ({:g} s) is greater than max ({:g} s)", where(m, *keys.max), p.min_s, p.max_s));
      break;
    case DurationKind::exponential: p.mean_s = read_quantity(m, *keys.mean); break;
    case DurationKind::lognormal:
      p.mean_s = read_quantity(m, *keys.mean);
      p.stddev_s = read_quantity(m, *keys.stddev);
      break;
  }
  m.finish();
  return p;
}

std::vector<const Key*> duration_keys_of(DurationKind kind, const DurationKeySet& keys) {
  switch (kind) {
    case DurationKind::fixed: return {keys.value};
    case DurationKind::uniform: return {keys.min, keys.max};
    case DurationKind::exponential: return {keys.mean};
    case DurationKind::lognormal: return {keys.mean, keys.stddev};
  }
  return {};
}

namespace {
const DurationKeySet& pause_keys() {
  using namespace duration_keys;
  static const DurationKeySet k{&dist, &value, &min, &max, &mean, &stddev, "duration"};
  return k;
}
std::vector<std::pair<std::string_view, DurationKind>> pause_names() {
  std::vector<std::pair<std::string_view, DurationKind>> out;
  for (const auto& d : kDistributions) out.emplace_back(d.name, d.kind);
  return out;
}
}  // namespace

DurationSpec parse_duration_distribution(ConfigMap& m) { return read_duration_keys(m, pause_keys(), pause_names()); }

std::vector<const KeySection*> duration_key_sections() {
  static const std::vector<KeySection> sections = [&] {
    std::vector<KeySection> out;
    for (std::string_view path : {"workload.multi_turn.think", "workload.multi_turn.tool_calls.duration"}) {
      out.push_back({.path = path,
                     .doc = path == "workload.multi_turn.think" ? "closed loop: a user's think time before each later turn"
                                                                : "closed loop: how long a tool call runs",
                     .keys = {pause_keys().dist}});
      for (const auto& d : kDistributions)
        out.push_back({.path = path, .doc = d.doc, .selector = "dist", .variant = d.name,
                         .keys = duration_keys_of(d.kind, pause_keys())});
    }
    return out;
  }();
  std::vector<const KeySection*> out;
  for (const auto& s : sections) out.push_back(&s);
  return out;
}

}  // namespace servesim
