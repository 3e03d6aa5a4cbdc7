#include "workload/patience.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/rng.h"
#include "util/units.h"

namespace servesim {

namespace {
constexpr std::array<PatienceDistributionInfo, 4> kDistributions{{
    {"fixed", PatienceKind::fixed, "every user waits `value` for the first token"},
    {"uniform", PatienceKind::uniform, "patience uniform on [min, max]"},
    {"exponential", PatienceKind::exponential, "exponential patience of the given mean (memoryless users)"},
    {"lognormal", PatienceKind::lognormal, "lognormal patience of the given mean and standard deviation"},
}};
}  // namespace

std::span<const PatienceDistributionInfo> patience_distributions() { return kDistributions; }

std::string_view patience_name(PatienceKind kind) {
  for (const auto& d : kDistributions)
    if (d.kind == kind) return d.name;
  return "unknown";
}

Patience::Patience(const PatienceSpec& spec, std::uint64_t seed) : spec_(spec) {
  std::uint64_t s = seed;
  key_ = splitmix64(s) ^ fnv1a64("patience");
}

double Patience::uniform01(std::int64_t id, std::uint64_t k) const { return keyed_uniform01(key_, id, k); }

double Patience::seconds(std::int64_t id) const {
  // Unbounded draws are capped at the longest duration servesim accepts (about
  // 116 days), so arrival + patience stays an exact, overflow-free time.
  return std::min(draw(id), kMaxDurationSeconds);
}

double Patience::draw(std::int64_t id) const {
  // The second uniform only where the distribution reads it (a lognormal with a spread).
  return sample_duration(spec_, uniform01(id, 0), spec_.uses_second_uniform() ? uniform01(id, 1) : 0.5);
}

}  // namespace servesim
