#include "engine/decode_prefix_cache.h"

#include "workload/prompt_ids.h"

namespace servesim {

void DecodePrefixCache::prompt_hashes(const Request& r, std::vector<std::uint64_t>& out) const {
  out.clear();
  if (r.block_hashes.empty() || r.hash_block_tokens <= 0) return;
  engine_block_hashes(PromptIds(r), r.hash_block_tokens, r.input_tokens, block_size_, out);
}

void DecodePrefixCache::sequence_hashes(const Request& r, std::vector<std::uint64_t>& out) const {
  out.clear();
  if (r.block_hashes.empty() || r.hash_block_tokens <= 0) return;
  PromptIds ids(r);
  const std::int64_t idb = r.hash_block_tokens;
  const std::int64_t kv_tokens = r.input_tokens + std::max<std::int64_t>(0, r.output_tokens - 1);
  // The conversation's ids past this prompt are the ones its next turn's prompt has
  // there (its answer's): extend_by_owner names them when the prompt ends in ids of
  // its own (false, and only the prompt hashed, otherwise).
  if (r.extended_later && kv_tokens > r.input_tokens &&
      ids.extend_by_owner(static_cast<std::size_t>((kv_tokens + idb - 1) / idb),
                          static_cast<std::size_t>(r.unique_hashes_from))) {
    engine_block_hashes(ids, idb, kv_tokens, block_size_, out);
    return;
  }
  engine_block_hashes(ids, idb, r.input_tokens, block_size_, out);
}

}  // namespace servesim
