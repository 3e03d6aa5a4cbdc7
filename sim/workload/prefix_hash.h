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

// beam: the tokens a request's beams generate (run/beam_loop.h), owned by the request.
enum class HashOwner : std::uint64_t { group = 1, prompt = 2, request = 3, session = 4, beam = 5 };

// The SplitMix64 finaliser the hashes are made of.
inline std::uint64_t prefix_hash_mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// Its inverse: each step of the finaliser (an add, xor-shifts, multiplications by odd
// constants) is a bijection of 64-bit words. A prompt's first id is
// prefix_owner_id(base, 0) = prefix_hash_mix(base), so the first id of a synthetic
// system prompt gives back the base its other ids follow from, and they need not be
// stored (Request::system_ids_implied).
namespace detail {
// The inverse of an odd c modulo 2^64 (Newton's iteration doubles the correct low
// bits each round: c * c = 1 mod 8 gives 3 of them, six rounds give 64+).
constexpr std::uint64_t odd_inverse(std::uint64_t c) {
  std::uint64_t x = c;
  for (int i = 0; i < 6; ++i) x *= 2 - c * x;
  return x;
}
// The inverse of z ^= z >> s (s >= 22: three terms reach past 64 bits).
constexpr std::uint64_t unshift_xor(std::uint64_t z, int s) { return z ^ (z >> s) ^ (z >> (2 * s)); }
}  // namespace detail
inline std::uint64_t prefix_hash_unmix(std::uint64_t z) {
  constexpr std::uint64_t inv1 = detail::odd_inverse(0xbf58476d1ce4e5b9ULL);
  constexpr std::uint64_t inv2 = detail::odd_inverse(0x94d049bb133111ebULL);
  static_assert(inv1 * 0xbf58476d1ce4e5b9ULL == 1 && inv2 * 0x94d049bb133111ebULL == 1);
  z = detail::unshift_xor(z, 31) * inv2;
  z = detail::unshift_xor(z, 27) * inv1;
  return detail::unshift_xor(z, 30) - 0x9e3779b97f4a7c15ULL;
}
// prefix_block_hash(kind, owner, j) = prefix_owner_id(prefix_owner_base(kind, owner), j):
// the base is the same for every block of one owner, so it is mixed once.
inline std::uint64_t prefix_owner_base(HashOwner kind, std::uint64_t owner) {
  return prefix_hash_mix(prefix_hash_mix(static_cast<std::uint64_t>(kind)) ^ owner);
}
inline std::uint64_t prefix_owner_id(std::uint64_t owner_base, std::uint64_t block) {
  return prefix_hash_mix(owner_base ^ block);
}

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
  // The memo of `group` holding at least `shared` hashes (group < kMemoGroups).
  const std::vector<std::uint64_t>& group_hashes(std::int64_t group, std::int64_t shared);
  std::vector<std::vector<std::uint64_t>> groups_;
};

}  // namespace servesim
