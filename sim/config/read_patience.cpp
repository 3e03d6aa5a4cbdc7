// workload.patience: how long users wait for the first token before giving up
// (workload/patience.h). Its keys are declared here, once; `dist` selects them.
#include <fmt/format.h>

#include "config/workload_keys.h"
#include "config/workload_reader.h"
#include "util/error.h"
#include "util/text.h"
#include "workload/patience.h"

namespace servesim {
namespace {

std::vector<std::string_view> dist_names() {
  std::vector<std::string_view> out;
  for (const auto& d : patience_distributions()) out.push_back(d.name);
  return out;
}

// Patience is measured in seconds; a day is far beyond any interactive user,
// and the cap keeps an exponential's tail (up to ~37 means) within servesim's
// longest duration.
constexpr double kMaxPatienceS = 86400.0;
constexpr std::string_view kWhy = "a wait for one first token: a day is beyond any user";

}  // namespace

namespace patience_keys {

const Key dist{.name = "dist",
               .type = KeyType::choice,
               .doc = "the distribution of the users' patience; it selects the keys read beside it",
               .spec = "PatienceSpec::kind",
               .required = true,
               .choices = dist_names()};
const Key value{.name = "value",
                .type = KeyType::quantity,
                .doc = "every user's patience: time from sending the request to giving up without a first token",
                .spec = "PatienceSpec::value_s",
                .dimension = Dimension::time,
                .required = true,
                .min = 0,
                .max = kMaxPatienceS,
                .why = kWhy};
const Key min{.name = "min",
              .type = KeyType::quantity,
              .doc = "shortest patience, inclusive",
              .spec = "PatienceSpec::min_s",
              .dimension = Dimension::time,
              .required = true,
              .min = 0,
              .max = kMaxPatienceS,
              .why = kWhy};
const Key max{.name = "max",
              .type = KeyType::quantity,
              .doc = "longest patience, inclusive",
              .spec = "PatienceSpec::max_s",
              .dimension = Dimension::time,
              .required = true,
              .min = 0,
              .max = kMaxPatienceS,
              .why = kWhy};
const Key mean{.name = "mean",
               .type = KeyType::quantity,
               .doc = "mean patience (lognormal: of the patience itself, not of its log)",
               .spec = "PatienceSpec::mean_s",
               .dimension = Dimension::time,
               .required = true,
               .min = 1e-9,
               .max = kMaxPatienceS,
               .why = kWhy};
const Key stddev{.name = "stddev",
                 .type = KeyType::quantity,
                 .doc = "standard deviation of the patience",
                 .spec = "PatienceSpec::stddev_s",
                 .dimension = Dimension::time,
                 .required = true,
                 .min = 0,
                 .max = kMaxPatienceS,
                 .why = kWhy};

}  // namespace patience_keys

PatienceSpec parse_patience(ConfigMap& m) {
  using namespace patience_keys;
  PatienceSpec p;
  const std::string name = read_text(m, dist);
  bool known = false;
  for (const auto& d : patience_distributions())
    if (d.name == name) {
      p.kind = d.kind;
      known = true;
    }
  if (!known) {
    std::vector<std::string> valid(dist.choices.begin(), dist.choices.end());
    m.fail(std::string(dist.name),
           fmt::format("unknown patience distribution '{}'{} (valid: {})", name, did_you_mean(name, valid), join(valid)));
  }
  switch (p.kind) {
    case PatienceKind::fixed: p.value_s = read_quantity(m, value); break;
    case PatienceKind::uniform:
      p.min_s = read_quantity(m, min);
      p.max_s = read_quantity(m, max);
      if (p.min_s > p.max_s)
        throw Error(fmt::format("{}: min ({:g} s) is greater than max ({:g} s)", where(m, max), p.min_s, p.max_s));
      break;
    case PatienceKind::exponential: p.mean_s = read_quantity(m, mean); break;
    case PatienceKind::lognormal:
      p.mean_s = read_quantity(m, mean);
      p.stddev_s = read_quantity(m, stddev);
      break;
  }
  m.finish();
  return p;
}

std::vector<const KeySection*> patience_key_sections() {
  using namespace patience_keys;
  auto keys_of = [](PatienceKind kind) -> std::vector<const Key*> {
    switch (kind) {
      case PatienceKind::fixed: return {&value};
      case PatienceKind::uniform: return {&min, &max};
      case PatienceKind::exponential: return {&mean};
      case PatienceKind::lognormal: return {&mean, &stddev};
    }
    return {};
  };
  static const std::vector<KeySection> sections = [&] {
    std::vector<KeySection> out;
    out.push_back({.path = "workload.patience",
                   .doc = "users who give up: how long each waits for the first token before leaving",
                   .keys = {&dist}});
    for (const auto& d : patience_distributions())
      out.push_back({.path = "workload.patience", .doc = d.doc, .selector = "dist", .variant = d.name,
                     .keys = keys_of(d.kind)});
    return out;
  }();
  std::vector<const KeySection*> out;
  for (const auto& s : sections) out.push_back(&s);
  return out;
}

}  // namespace servesim
