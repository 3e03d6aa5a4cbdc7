// workload.patience: how long users wait for the first token before giving up
// (workload/patience.h). Its keys are declared here, once; `dist` selects them.
#include <fmt/format.h>

#include "config/duration_key_set.h"
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

namespace {
const DurationKeySet& keys() {
  using namespace patience_keys;
  static const DurationKeySet k{&dist, &value, &min, &max, &mean, &stddev, "patience"};
  return k;
}
}  // namespace

PatienceSpec parse_patience(ConfigMap& m) {
  std::vector<std::pair<std::string_view, DurationKind>> names;
  for (const auto& d : patience_distributions()) names.emplace_back(d.name, d.kind);
  return read_duration_keys(m, keys(), names);
}

std::vector<const KeySection*> patience_key_sections() {
  static const std::vector<KeySection> sections = [&] {
    std::vector<KeySection> out;
    out.push_back({.path = "workload.patience",
                   .doc = "users who give up: how long each waits for the first token before leaving",
                   .keys = {keys().dist}});
    for (const auto& d : patience_distributions())
      out.push_back({.path = "workload.patience", .doc = d.doc, .selector = "dist", .variant = d.name,
                     .keys = duration_keys_of(d.kind, keys())});
    return out;
  }();
  std::vector<const KeySection*> out;
  for (const auto& s : sections) out.push_back(&s);
  return out;
}

}  // namespace servesim
