#pragma once
// The prefix cache of a decode instance of prefill/decode disaggregation
// (engine/decode_only_engine.h), kept when engine.prefix_caching is on, as vLLM
// decode instances keep theirs: the KV blocks of the requests it served stay
// cached after they finish, evictable oldest first (LRU), until blocks are needed.
//
// What is cached, and when (vLLM v1, vllm/v1/core/sched/scheduler.py and
// vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py):
//  - a transferred prompt's full blocks once its KV has arrived (the scheduler's
//    _update_waiting_for_remote_kv caches the received blocks), a prompt the P/D
//    decider left to the instance once its prefill step ends;
//  - the rest of the sequence's full blocks (prompt + output - 1 tokens: the last
//    sampled token is never written back) when the request finishes. vLLM caches
//    a generated block as soon as it is full; only a later request could hit it,
//    and a conversation's next turn usually comes after this one's answer, so
//    registering them at the end gives the same hits. An open-loop turn sent before
//    the previous answer has ended is the difference: it finds only the blocks
//    registered by then.
// The answer's blocks have hashes only when the request's owner goes on with them:
// a conversation's next turn starts with this turn's prompt and answer
// (Request::extended_later, whose ids continue past the prompt, PromptIds::
// extend_by_owner). Other requests' answers no prompt contains: only their prompt
// blocks are hashed and cached.
//
// Every block is its own node in the PrefixCache (add() with no unique part): the
// decode side registers a sequence in two calls and sees prompts of other turns
// that end inside what it registered, which the co-located engine's runs and
// chains would have to split; one node per block needs no such care, and decode
// pools are small next to the fleets the runs were built for.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/prefix_cache.h"
#include "workload/request.h"

namespace servesim {

class DecodePrefixCache {
 public:
  explicit DecodePrefixCache(int block_size) : block_size_(block_size) {}

  // The hashes of r's full KV blocks once it has finished (see above): its prompt's,
  // then its answer's when its conversation goes on with it. Empty without prefix
  // information (Request::block_hashes).
  void sequence_hashes(const Request& r, std::vector<std::uint64_t>& out) const;
  // The prompt's full blocks only (what a router's precise prefix scorer compares).
  void prompt_hashes(const Request& r, std::vector<std::uint64_t>& out) const;
  // The most prompt blocks a request can find cached: its full blocks before its last
  // token, which is always computed or sent (vLLM's KV cache manager caps a hit at
  // the prompt's length - 1 tokens, so the connector pulls at least one token).
  std::int64_t hit_limit(const Request& r, const std::vector<std::uint64_t>& hashes) const {
    const std::int64_t before_last = r.input_tokens > 0 ? (r.input_tokens - 1) / block_size_ : 0;
    return std::min<std::int64_t>(before_last, static_cast<std::int64_t>(hashes.size()));
  }
  // Full prompt blocks among `hashes` (they may go on into the answer).
  std::int64_t prompt_blocks(const Request& r, const std::vector<std::uint64_t>& hashes) const {
    return std::min<std::int64_t>(r.input_tokens / block_size_, static_cast<std::int64_t>(hashes.size()));
  }

  PrefixCache& cache() { return cache_; }
  const PrefixCache& cache() const { return cache_; }
  int block_size() const { return block_size_; }

 private:
  int block_size_;
  PrefixCache cache_;
};

}  // namespace servesim
