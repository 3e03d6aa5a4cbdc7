// workload.input_tokens / workload.output_tokens: the distribution named by
// `dist`, its keys and its clip bounds.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "config/workload_keys.h"
#include "config/workload_reader.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

LengthKind read_dist(ConfigMap& m) {
  const Key& key = length_keys::dist;
  const std::string name = read_text(m, key);
  for (const auto& d : length_distributions())
    if (d.name == name) return d.kind;
  std::vector<std::string> valid(key.choices.begin(), key.choices.end());
  m.fail(std::string(key.name),
         fmt::format("unknown length distribution '{}'{} (valid: {})", name, did_you_mean(name, valid), join(valid)));
}

// Clipping to [min, max] is part of the distribution, but a mean (or a fixed
// value) outside that range could never be realised: every draw would be clipped
// to one end and the requests would silently differ from what the key asks for.
void check_realisable(ConfigMap& m, const LengthSpec& spec) {
  if (spec.kind == LengthKind::fixed) {
    if (spec.value < spec.min || spec.value > spec.max)
      throw Error(fmt::format("{}: value {} is outside [min, max] = [{}, {}]: every request would be clipped to {}",
                              where(m, length_keys::value), spec.value, spec.min, spec.max,
                              spec.value < spec.min ? spec.min : spec.max));
    return;
  }
  if (spec.kind == LengthKind::uniform) return;
  const bool above = spec.mean > static_cast<double>(spec.max);
  if (above || spec.mean < static_cast<double>(spec.min))
    throw Error(fmt::format("{}: mean {:g} is {} {} ({}), so every length would be clipped and the realised mean "
                            "would not be {:g}: raise {} or change the mean",
                            where(m, length_keys::mean), spec.mean, above ? "above" : "below", above ? "max" : "min",
                            above ? spec.max : spec.min, spec.mean, above ? "max" : "lower min"));
}

}  // namespace

LengthSpec parse_length_distribution(ConfigMap& m) {
  using namespace length_keys;
  LengthSpec spec;
  spec.kind = read_dist(m);
  switch (spec.kind) {
    case LengthKind::fixed: spec.value = read_integer(m, value); break;
    case LengthKind::uniform:
      // min and max are the range itself, so both are required.
      spec.min = read_integer(m, range_min);
      spec.max = read_integer(m, range_max);
      break;
    case LengthKind::normal:
    case LengthKind::lognormal:
      spec.mean = read_number(m, mean);
      spec.stddev = read_number(m, stddev);
      break;
    case LengthKind::exponential: spec.mean = read_number(m, mean); break;
  }
  if (spec.kind != LengthKind::uniform) {
    spec.min = read_integer(m, clip_min);
    if (has_key(m, clip_max)) spec.max = read_integer(m, clip_max);  // absent: unbounded
  }
  if (spec.min > spec.max)
    throw Error(fmt::format("{}: min ({}) is greater than max ({})", where(m, clip_max), spec.min, spec.max));
  check_realisable(m, spec);
  m.finish();
  return spec;
}

}  // namespace servesim
