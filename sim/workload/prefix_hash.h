#pragma once
// Deterministic prefix-block hashes for synthetic prompts. A prompt is a token
// stream cut into blocks of `block_tokens`; only FULL blocks get a hash. Block
// j's hash names its content: equal hashes at the same positions mean a shared
// prefix, so the engine's prefix cache can reuse them.
//
// Ownership of the content: the first floor(prefix_tokens / block_tokens)
// blocks belong to the shared system prompt of `group` (when group >= 0), the
// rest to `owner` in namespace `kind` (a request, a distinct prompt, a session).
// Hashes are SplitMix64 finalizer chains of (kind, owner, block index): stable
// across platforms and runs.
#include <cstdint>
#include <vector>

namespace servesim {

enum class HashOwner : std::uint64_t { group = 1, prompt = 2, request = 3, session = 4 };

std::uint64_t prefix_block_hash(HashOwner kind, std::uint64_t owner, std::uint64_t block);

// Hashes of the full blocks of a `total_tokens`-token prompt (see above).
std::vector<std::uint64_t> prompt_block_hashes(std::int64_t total_tokens, std::int32_t block_tokens,
                                               std::int64_t group, std::int64_t prefix_tokens, HashOwner kind,
                                               std::uint64_t owner);

// prompt_block_hashes with each shared system prompt's hashes computed once: a
// group's blocks hash the same for every prompt of the group, so the first
// kMemoGroups groups keep theirs (as many as the longest prompt asked for) and
// copy them. The same hashes as prompt_block_hashes.
class PromptBlockHashes {
 public:
  std::vector<std::uint64_t> operator()(std::int64_t total_tokens, std::int32_t block_tokens, std::int64_t group,
                                        std::int64_t prefix_tokens, HashOwner kind, std::uint64_t owner);

 private:
  static constexpr std::int64_t kMemoGroups = 4096;  // at most 4096 x the prefix's blocks x 8 bytes
  std::vector<std::vector<std::uint64_t>> groups_;
};

}  // namespace servesim
