#include "workload/prefix_hash.h"

#include <algorithm>

namespace servesim {

std::uint64_t prefix_block_hash(HashOwner kind, std::uint64_t owner, std::uint64_t block) {
  return prefix_owner_id(prefix_owner_base(kind, owner), block);
}

std::vector<std::uint64_t> prompt_block_hashes(std::int64_t total_tokens, std::int32_t block_tokens,
                                               std::int64_t group, std::int64_t prefix_tokens, HashOwner kind,
                                               std::uint64_t owner) {
  const std::int64_t n = block_tokens > 0 ? total_tokens / block_tokens : 0;
  const std::int64_t shared = group >= 0 ? std::min(n, prefix_tokens / block_tokens) : 0;
  std::vector<std::uint64_t> out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  const std::uint64_t group_base = prefix_owner_base(HashOwner::group, static_cast<std::uint64_t>(group));
  for (std::int64_t j = 0; j < shared; ++j) out.push_back(prefix_owner_id(group_base, static_cast<std::uint64_t>(j)));
  const std::uint64_t owner_base = prefix_owner_base(kind, owner);
  for (std::int64_t j = shared; j < n; ++j) out.push_back(prefix_owner_id(owner_base, static_cast<std::uint64_t>(j)));
  return out;
}

const std::vector<std::uint64_t>& PromptBlockHashes::group_hashes(std::int64_t group, std::int64_t shared) {
  if (static_cast<std::int64_t>(groups_.size()) <= group) groups_.resize(static_cast<std::size_t>(group + 1));
  std::vector<std::uint64_t>& memo = groups_[static_cast<std::size_t>(group)];
  if (static_cast<std::int64_t>(memo.size()) < shared) {
    const std::uint64_t group_base = prefix_owner_base(HashOwner::group, static_cast<std::uint64_t>(group));
    for (auto j = static_cast<std::int64_t>(memo.size()); j < shared; ++j)
      memo.push_back(prefix_owner_id(group_base, static_cast<std::uint64_t>(j)));
  }
  return memo;
}

std::vector<std::uint64_t> PromptBlockHashes::operator()(std::int64_t total_tokens, std::int32_t block_tokens,
                                                         std::int64_t group, std::int64_t prefix_tokens, HashOwner kind,
                                                         std::uint64_t owner) {
  if (group < 0 || group >= kMemoGroups || block_tokens <= 0)
    return prompt_block_hashes(total_tokens, block_tokens, group, prefix_tokens, kind, owner);
  const std::int64_t n = total_tokens / block_tokens;
  const std::int64_t shared = std::min(n, prefix_tokens / block_tokens);
  const std::vector<std::uint64_t>& memo = group_hashes(group, shared);
  // Sized once and written in place (no capacity check per block: this runs for
  // every request's every block).
  std::vector<std::uint64_t> out(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  std::uint64_t* p = out.data();
  const std::int64_t s0 = std::max<std::int64_t>(shared, 0);
  std::copy(memo.begin(), memo.begin() + s0, p);
  const std::uint64_t owner_base = prefix_owner_base(kind, owner);
  for (std::int64_t j = s0; j < n; ++j) p[j] = prefix_owner_id(owner_base, static_cast<std::uint64_t>(j));
  return out;
}

}  // namespace servesim
