#include "workload/prefix_hash.h"

#include <algorithm>

namespace servesim {

namespace {
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// prefix_block_hash(kind, owner, j) = mix(base ^ j) with base = mix(mix(kind) ^ owner):
// the base is the same for every block of one owner, so it is mixed once.
std::uint64_t base(HashOwner k, std::uint64_t o) { return mix(mix(static_cast<std::uint64_t>(k)) ^ o); }
}  // namespace

std::uint64_t prefix_block_hash(HashOwner kind, std::uint64_t owner, std::uint64_t block) {
  return mix(mix(mix(static_cast<std::uint64_t>(kind)) ^ owner) ^ block);
}

std::vector<std::uint64_t> prompt_block_hashes(std::int64_t total_tokens, std::int32_t block_tokens,
                                               std::int64_t group, std::int64_t prefix_tokens, HashOwner kind,
                                               std::uint64_t owner) {
  const std::int64_t n = block_tokens > 0 ? total_tokens / block_tokens : 0;
  const std::int64_t shared = group >= 0 ? std::min(n, prefix_tokens / block_tokens) : 0;
  std::vector<std::uint64_t> out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  const std::uint64_t group_base = base(HashOwner::group, static_cast<std::uint64_t>(group));
  for (std::int64_t j = 0; j < shared; ++j) out.push_back(mix(group_base ^ static_cast<std::uint64_t>(j)));
  const std::uint64_t owner_base = base(kind, owner);
  for (std::int64_t j = shared; j < n; ++j) out.push_back(mix(owner_base ^ static_cast<std::uint64_t>(j)));
  return out;
}

std::vector<std::uint64_t> PromptBlockHashes::operator()(std::int64_t total_tokens, std::int32_t block_tokens,
                                                         std::int64_t group, std::int64_t prefix_tokens, HashOwner kind,
                                                         std::uint64_t owner) {
  if (group < 0 || group >= kMemoGroups || block_tokens <= 0)
    return prompt_block_hashes(total_tokens, block_tokens, group, prefix_tokens, kind, owner);
  const std::int64_t n = block_tokens > 0 ? total_tokens / block_tokens : 0;
  const std::int64_t shared = std::min(n, prefix_tokens / block_tokens);
  if (static_cast<std::int64_t>(groups_.size()) <= group) groups_.resize(static_cast<std::size_t>(group + 1));
  std::vector<std::uint64_t>& memo = groups_[static_cast<std::size_t>(group)];
  if (static_cast<std::int64_t>(memo.size()) < shared) {
    const std::uint64_t group_base = base(HashOwner::group, static_cast<std::uint64_t>(group));
    for (auto j = static_cast<std::int64_t>(memo.size()); j < shared; ++j)
      memo.push_back(mix(group_base ^ static_cast<std::uint64_t>(j)));
  }
  // Sized once and written in place (no capacity check per block: this runs for
  // every request's every block).
  std::vector<std::uint64_t> out(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  std::uint64_t* p = out.data();
  const std::int64_t s0 = std::max<std::int64_t>(shared, 0);
  std::copy(memo.begin(), memo.begin() + s0, p);
  const std::uint64_t owner_base = base(kind, owner);
  for (std::int64_t j = s0; j < n; ++j) p[j] = mix(owner_base ^ static_cast<std::uint64_t>(j));
  return out;
}

}  // namespace servesim
