#include "workload/length_distribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

namespace {

struct LengthEntry {
  const char* name;
  LengthKind kind;
  const char* description;
};

constexpr LengthEntry kLengths[] = {
    {"fixed", LengthKind::fixed, "{value}: every request has exactly `value` tokens"},
    {"uniform", LengthKind::uniform, "{min, max}: integers uniform on [min, max] inclusive"},
    {"normal", LengthKind::normal, "{mean, stddev}: normal, rounded, clipped to [min, max]"},
    {"lognormal", LengthKind::lognormal,
     "{mean, stddev}: lognormal with this mean and stddev of the length itself (long tail)"},
    {"exponential", LengthKind::exponential, "{mean}: exponential with this mean"},
};

const char* kind_name(LengthKind kind) {
  for (const auto& e : kLengths)
    if (e.kind == kind) return e.name;
  return "?";
}

std::vector<std::string> kind_names() {
  std::vector<std::string> names;
  for (const auto& e : kLengths) names.emplace_back(e.name);
  return names;
}

double positive_mean(ConfigMap& m) {
  const double mean = m.number("mean");
  if (!(mean > 0.0)) throw Error(fmt::format("{}: mean must be > 0 tokens, got {}", m.where("mean"), mean));
  return mean;
}

double nonnegative_stddev(ConfigMap& m) {
  const double sd = m.number("stddev");
  if (!(sd >= 0.0)) throw Error(fmt::format("{}: stddev must be >= 0 tokens, got {}", m.where("stddev"), sd));
  return sd;
}

}  // namespace

LengthSpec parse_length_distribution(ConfigMap& m) {
  LengthSpec spec;
  const std::string dist = m.string("dist");
  const auto* entry = std::find_if(std::begin(kLengths), std::end(kLengths),
                                   [&](const LengthEntry& e) { return dist == e.name; });
  if (entry == std::end(kLengths)) {
    const auto names = kind_names();
    throw Error(fmt::format("{}: unknown length distribution '{}'{} (valid: {})", m.where("dist"), dist,
                            did_you_mean(dist, names), join(names)));
  }
  spec.kind = entry->kind;

  switch (spec.kind) {
    case LengthKind::fixed:
      spec.value = m.integer("value");
      if (spec.value < 1)
        throw Error(fmt::format("{}: value must be >= 1 token, got {}", m.where("value"), spec.value));
      break;
    case LengthKind::uniform:
      // min and max are the range itself, so both are required.
      spec.min = m.integer("min");
      spec.max = m.integer("max");
      break;
    case LengthKind::normal:
    case LengthKind::lognormal:
      spec.mean = positive_mean(m);
      spec.stddev = nonnegative_stddev(m);
      break;
    case LengthKind::exponential:
      spec.mean = positive_mean(m);
      break;
  }
  spec.min = m.integer("min", spec.min);
  spec.max = m.integer("max", spec.max);
  if (spec.min < 1)
    throw Error(fmt::format("{}: min must be >= 1 token, got {}", m.where("min"), spec.min));
  if (spec.min > spec.max)
    throw Error(fmt::format("{}: min ({}) is greater than max ({})", m.where("max"), spec.min, spec.max));
  // No request is a billion tokens long (no model's context comes near); the bound
  // keeps every sum of lengths (prefix + question, context + output) inside int64.
  const auto too_long = [&](const char* key, double v) {
    if (v > static_cast<double>(kMaxLengthTokens))
      throw Error(fmt::format("{}: {} {:g} tokens is above the {} servesim accepts for one request (no model's "
                              "context comes near it)",
                              m.where(key), key, v, kMaxLengthTokens));
  };
  if (spec.kind == LengthKind::fixed) too_long("value", static_cast<double>(spec.value));
  if (m.has("min")) too_long("min", static_cast<double>(spec.min));
  if (m.has("max")) too_long("max", static_cast<double>(spec.max));
  if (spec.kind != LengthKind::fixed && spec.kind != LengthKind::uniform && std::isfinite(spec.mean))
    too_long("mean", spec.mean);
  // Clipping to [min, max] is part of the distribution, but a mean outside that
  // range could never be realised: every draw would be clipped to one end and the
  // requests would silently differ from what the key asks for.
  if (spec.kind != LengthKind::fixed && spec.kind != LengthKind::uniform) {
    const bool above = spec.mean > static_cast<double>(spec.max);
    if (above || spec.mean < static_cast<double>(spec.min))
      throw Error(fmt::format("{}: mean {:g} is {} {} ({}), so every length would be clipped and the realised mean "
                              "would not be {:g}: raise {} or change the mean",
                              m.where("mean"), spec.mean, above ? "above" : "below", above ? "max" : "min",
                              above ? spec.max : spec.min, spec.mean, above ? "max" : "lower min"));
  }
  // fixed: the value itself is clipped the same way.
  if (spec.kind == LengthKind::fixed && (spec.value < spec.min || spec.value > spec.max))
    throw Error(fmt::format("{}: value {} is outside [min, max] = [{}, {}]: every request would be clipped to {}",
                            m.where("value"), spec.value, spec.min, spec.max,
                            spec.value < spec.min ? spec.min : spec.max));
  m.finish();
  return spec;
}

std::int64_t sample_length(const LengthSpec& spec, RandomStream& rng) {
  double x = 0.0;
  switch (spec.kind) {
    case LengthKind::fixed: x = static_cast<double>(spec.value); break;
    case LengthKind::uniform: return rng.uniform_int(spec.min, spec.max);
    case LengthKind::normal: x = rng.normal(spec.mean, spec.stddev); break;
    case LengthKind::lognormal: x = rng.lognormal_from_mean_std(spec.mean, spec.stddev); break;
    case LengthKind::exponential: x = rng.exponential(1.0 / spec.mean); break;
  }
  // Clip in double first: a far tail draw (or an unbounded max) must not reach
  // llround outside the int64 range. 1e18 tokens is beyond any real context.
  const double hi = std::min(static_cast<double>(spec.max), 1e18);
  x = std::clamp(x, static_cast<double>(spec.min), hi);
  return std::clamp<std::int64_t>(std::llround(x), spec.min, spec.max);
}

std::string describe_length(const LengthSpec& spec) {
  std::string body;
  switch (spec.kind) {
    case LengthKind::fixed: body = fmt::format("fixed({})", spec.value); break;
    case LengthKind::uniform: return fmt::format("uniform[{}, {}]", spec.min, spec.max);
    case LengthKind::normal:
    case LengthKind::lognormal:
      body = fmt::format("{}(mean={:g}, stddev={:g})", kind_name(spec.kind), spec.mean, spec.stddev);
      break;
    case LengthKind::exponential: body = fmt::format("exponential(mean={:g})", spec.mean); break;
  }
  if (spec.max == std::numeric_limits<std::int64_t>::max())
    return spec.min == 1 ? body : fmt::format("{} >= {}", body, spec.min);
  return fmt::format("{} in [{}, {}]", body, spec.min, spec.max);
}

std::vector<std::pair<std::string, std::string>> length_distribution_registry() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : kLengths) {
    std::string text = e.description;
    if (e.kind != LengthKind::uniform) text += "; optional clip min (default 1), max";
    out.emplace_back(e.name, text);
  }
  return out;
}

}  // namespace servesim
