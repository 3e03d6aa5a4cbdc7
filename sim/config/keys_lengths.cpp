// The keys of a token-length distribution, `workload.input_tokens` and
// `workload.output_tokens` alike (read by config/read_lengths.cpp). The
// distribution names and descriptions come from workload/length_distribution.h.
#include "config/workload_keys.h"
#include "config/workload_limits.h"
#include "workload/length_distribution.h"

namespace servesim {
namespace {

std::vector<std::string_view> dist_names() {
  std::vector<std::string_view> out;
  for (const auto& d : length_distributions()) out.push_back(d.name);
  return out;
}

constexpr double kMaxTokens = static_cast<double>(kMaxLengthTokens);
constexpr std::string_view kTooLong = "tokens of one request: no model's context comes near a billion";

}  // namespace

namespace length_keys {

const Key dist{.name = "dist",
               .type = KeyType::choice,
               .doc = "the distribution; it selects the keys read beside it",
               .spec = "LengthSpec::kind",
               .required = true,
               .choices = dist_names()};
const Key value{.name = "value",
                .type = KeyType::integer,
                .doc = "the length of every request",
                .spec = "LengthSpec::value",
                .unit = "tokens",
                .required = true,
                .min = 1,
                .max = kMaxTokens,
                .why = kTooLong};
// A mean below 1 token is below every clip min, so it could never be realised.
const Key mean{.name = "mean",
               .type = KeyType::number,
               .doc = "mean length (lognormal: of the length itself, not of its log)",
               .spec = "LengthSpec::mean",
               .unit = "tokens",
               .required = true,
               .min = 1,
               .max = kMaxTokens,
               .why = kTooLong};
const Key stddev{.name = "stddev",
                 .type = KeyType::number,
                 .doc = "standard deviation of the length",
                 .spec = "LengthSpec::stddev",
                 .unit = "tokens",
                 .required = true,
                 .min = 0};
const Key range_min{.name = "min",
                    .type = KeyType::integer,
                    .doc = "shortest length, inclusive",
                    .spec = "LengthSpec::min",
                    .unit = "tokens",
                    .required = true,
                    .min = 1,
                    .max = kMaxTokens,
                    .why = kTooLong};
const Key range_max{.name = "max",
                    .type = KeyType::integer,
                    .doc = "longest length, inclusive",
                    .spec = "LengthSpec::max",
                    .unit = "tokens",
                    .required = true,
                    .min = 1,
                    .max = kMaxTokens,
                    .why = kTooLong};
const Key clip_min{.name = "min",
                   .type = KeyType::integer,
                   .doc = "draws below it are clipped to it",
                   .spec = "LengthSpec::min",
                   .unit = "tokens",
                   .default_number = 1,
                   .min = 1,
                   .max = kMaxTokens,
                   .why = kTooLong};
const Key clip_max{.name = "max",
                   .type = KeyType::integer,
                   .doc = "draws above it are clipped to it",
                   .spec = "LengthSpec::max",
                   .unit = "tokens",
                   .default_note = "none: unbounded",
                   .min = 1,
                   .max = kMaxTokens,
                   .why = kTooLong};

}  // namespace length_keys

std::vector<const KeySection*> length_key_sections() {
  using namespace length_keys;
  auto keys_of = [](LengthKind kind) -> std::vector<const Key*> {
    switch (kind) {
      case LengthKind::fixed: return {&value, &clip_min, &clip_max};
      case LengthKind::uniform: return {&range_min, &range_max};
      case LengthKind::normal:
      case LengthKind::lognormal: return {&mean, &stddev, &clip_min, &clip_max};
      case LengthKind::exponential: return {&mean, &clip_min, &clip_max};
    }
    return {};
  };
  static const std::vector<KeySection> sections = [&] {
    std::vector<KeySection> out;
    for (std::string_view path :
         {"workload.input_tokens", "workload.output_tokens", "workload.multi_turn.tool_calls.output_tokens"}) {
      out.push_back({.path = path,
                     .doc = path == "workload.input_tokens"    ? "prompt length of each request, tokens"
                            : path == "workload.output_tokens" ? "output length of each request, tokens"
                                                               : "tokens of a tool call's output, appended to the context",
                     .keys = {&dist}});
      for (const auto& d : length_distributions())
        out.push_back(
            {.path = path, .doc = d.doc, .selector = "dist", .variant = d.name, .keys = keys_of(d.kind)});
    }
    return out;
  }();
  std::vector<const KeySection*> out;
  for (const auto& s : sections) out.push_back(&s);
  return out;
}

}  // namespace servesim
