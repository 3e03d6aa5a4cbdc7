#pragma once
// Automatic prefix caching (vLLM APC): full KV blocks are identified by a hash of
// their tokens chained with their predecessor's hash, so equal hashes mean an
// equal prefix. A block in use by running requests is reference-counted; when its
// last user releases it, it stays cached but evictable, oldest first (LRU), until a
// new allocation needs its space.
//
// The engine counts blocks, not addresses: "used" blocks are the private blocks of
// running requests plus the cached blocks with users (pinned()). Evictable cached
// blocks count as free for allocation; shrink_to() evicts them when the truly free
// blocks run out.
//
// Storage is flat (block_hash_index.h): each cached block is a node in one array,
// found through an open-addressing index, with its reference count in place and,
// while evictable, links to its LRU neighbours by node number. Nothing is
// allocated per block; freed nodes are reused.
//
// Runs: a prompt's blocks from `unique_from` on (add()) are ones no other request
// can ever hit: their hash chain contains an id only this request has (the
// synthetic workload's per-request question). Such blocks are only ever touched
// together by their owner (registered together when its prompt is computed,
// released together when it finishes or is preempted, matched together when it
// comes back after a preemption), so they are one node: a run of `count`
// consecutive blocks indexed by the hash of its first block, with one reference
// count, one place in the LRU list (its blocks were released consecutively, last
// block first) and eviction from its last block (the oldest of them) towards its
// first. Eviction may take part of a run, a match cut by its limit splits one.
//
// Shared chains: a prompt's blocks before `unique_from` (the synthetic workload's
// system prompt) are the same for every request whose hash at any of their
// positions is the same (the group's prompt, chained: equal hashes, equal
// content from block 0 on). Those a request registers in one go become one node
// too, so every later request of the group pins and releases the whole prompt
// with one reference instead of one per block. Unlike a run, a chain is shared:
// a request may hold only its first blocks (a match cut by its limit, a shorter
// registration), so a referenced node is split too; the holders of the whole
// node then hold both parts, which a handle's block count says (Handle, and
// release_nodes walks the parts: a referenced node's `next` link, unused by the
// LRU list while it is referenced, names the part split off it). A chain's
// cached blocks are always a prefix of it (every holder holds a prefix, and its
// tail blocks are released, so evicted, first), so a block missing from the
// index means none after it is cached either.
//
// Every count (pinned, evictable, evictions, hits) and the eviction order are
// those of one node per block; tests/unit/test_flat_structures.cpp checks it
// against a per-block reference. With a spill tier (CPU offload) every block is
// its own node: the tier takes evicted blocks one by one, by their hashes.
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/block_hash_index.h"
#include "workload/prompt_ids.h"

namespace servesim {

class KvSpill;

class PrefixCache {
 public:
  // add()'s unique_from when no block is provably unique to its request.
  static constexpr std::int64_t kNoUnique = std::numeric_limits<std::int64_t>::max();

  // What a holder references: node `node` and, when it has been split since the
  // holder took it, the parts split off it, `blocks` in all.
  struct Handle {
    std::int32_t node;
    std::int32_t blocks;
    bool operator==(const Handle&) const = default;
  };

  // Number of leading `hashes` cached now (at most `limit`).
  std::int64_t match(const std::vector<std::uint64_t>& hashes, std::int64_t limit) const;
  // match() and acquire() of what it found in one pass over the hashes.
  struct Pinned {
    std::int64_t matched = 0;  // leading hashes cached (now referenced by the caller)
    std::int64_t revived = 0;  // of those, how many were evictable (became pinned)
  };
  // What match_acquire would find, changing nothing (no pin, no split, LRU order
  // kept): a decode instance asks it before it grants a request its blocks, since
  // pinning evictable blocks takes room the grant must find (decode_prefix_cache.h).
  Pinned probe(const std::vector<std::uint64_t>& hashes, std::int64_t limit) const;
  // The handle of each matched node (a block, or a run of blocks) is appended to
  // `nodes` (see release_nodes).
  Pinned match_acquire(const std::vector<std::uint64_t>& hashes, std::int64_t limit, std::vector<Handle>* nodes);
  // Takes a reference on each of the first n hashes (all must be cached). Returns how
  // many became pinned (were evictable), i.e. how much "used" grows.
  std::int64_t acquire(const std::vector<std::uint64_t>& hashes, std::int64_t n);
  // Registers hashes[first..n) computed by a request (which holds a reference).
  // Returns how many were already cached by someone else (duplicates: the request's
  // private copy is dropped, so "used" shrinks by that many minus those revived).
  struct Registered {
    std::int64_t fresh = 0;      // new entries: a private block became a pinned one
    std::int64_t duplicate = 0;  // already pinned by others: the private copy is freed
    std::int64_t revived = 0;    // already cached but evictable: now pinned, private freed
  };
  // With `nodes`, each node's handle is appended to it. Blocks from `unique_from`
  // on can be hit by no other request (see Runs above); they become runs, and
  // those before it that are not cached yet a shared chain (above).
  Registered add(const std::vector<std::uint64_t>& hashes, std::int64_t first, std::int64_t n,
                 std::vector<Handle>* nodes = nullptr, std::int64_t unique_from = kNoUnique);
  // Drops one reference on each of the first n hashes, last block first (so a
  // prefix's tail is evicted before its head). Returns how many became evictable.
  std::int64_t release(const std::vector<std::uint64_t>& hashes, std::int64_t n);
  // release() of every block the handles match_acquire and add gave out cover: a
  // handle stays valid while the caller holds its reference (only unreferenced
  // blocks are evicted), so no hash lookup is needed.
  std::int64_t release_nodes(const std::vector<Handle>& nodes);
  // Evicts least-recently-released blocks until at most `max_evictable` remain;
  // with a spill tier set, evicted blocks move there (CPU offload).
  void shrink_to(std::int64_t max_evictable) {
    if (lru_size_ > max_evictable) evict(max_evictable);
  }
  void set_spill(KvSpill* tier) { spill_ = tier; }

  std::int64_t pinned() const { return pinned_; }
  std::int64_t evictable() const { return lru_size_; }
  std::int64_t evictions() const { return evictions_; }

 private:
  struct Node {
    std::uint64_t hash = 0;             // of its first block
    std::int32_t refs = 0;
    std::int32_t count = 1;             // blocks: 1, or a run's length
    std::int32_t prev = -1, next = -1;  // LRU neighbours while refs == 0; next: the part split off it while refs > 0
  };
  Node& at(std::int32_t i) { return nodes_[static_cast<std::size_t>(i)]; }
  std::int32_t new_node(std::uint64_t hash, std::int32_t count);
  void lru_unlink(Node& n);
  void lru_push_back(std::int32_t i);
  // Cuts node i after its first `keep` blocks: the rest becomes a node of its own,
  // indexed by `rest_hash` (the hash of block keep). Evictable, it goes just older
  // than i in the LRU list (it holds the later blocks, released before the first
  // ones); referenced, it has i's holders, linked from i (Handle).
  void split(std::int32_t i, std::int64_t keep, std::uint64_t rest_hash);
  // Drops one reference on node e; adds its blocks to `freed` when that was the last.
  void drop(std::int32_t e, std::int64_t& freed);
  // Drops one reference on each part of a handle taken before its node was split,
  // last block first.
  __attribute__((noinline)) void release_parts(const Handle& h, std::int64_t& freed);
  // Takes a reference on node i (reviving it when evictable); adds its blocks to p.
  void pin(std::int32_t i, std::int64_t& revived);

  BlockHashIndex index_;           // hash -> node
  std::vector<Node> nodes_;        // every cached block (and free nodes)
  std::vector<std::int32_t> free_nodes_;
  std::vector<std::int32_t> parts_;  // release_parts' scratch
  bool split_referenced_ = false;    // a referenced node was ever split (handles may span parts)
  std::int32_t lru_head_ = -1, lru_tail_ = -1;  // evictable, oldest first
  std::int64_t lru_size_ = 0;
  std::int64_t pinned_ = 0;
  std::int64_t evictions_ = 0;
  KvSpill* spill_ = nullptr;

  void evict(std::int64_t max_evictable);
};

// Hashes of a request's full prompt blocks at the engine's block size, chained so
// that each depends on everything before it. `ids` name blocks of `id_block_tokens`
// tokens (the workload's prefix structure); only blocks fully inside both the ids
// and the prompt are hashed.
// (`ids`: a list, or a request's stored and implied ids, PromptIds.)
std::vector<std::uint64_t> engine_block_hashes(const PromptIds& ids, std::int64_t id_block_tokens,
                                               std::int64_t prompt_tokens, std::int64_t block_size);
// How many hashes engine_block_hashes gives (the full blocks inside both).
std::int64_t engine_block_count(const PromptIds& ids, std::int64_t id_block_tokens, std::int64_t prompt_tokens,
                                std::int64_t block_size);
// The same, written into `out` (cleared first; its capacity is reused).
void engine_block_hashes(const PromptIds& ids, std::int64_t id_block_tokens, std::int64_t prompt_tokens,
                         std::int64_t block_size, std::vector<std::uint64_t>& out);

// engine_block_hashes with shared prefixes hashed once: engine block b's hash
// depends only on the ids its tokens and those before it fall in, so a request
// whose ids start like a remembered request's takes that request's hashes for
// the blocks inside the common run and chains on from there. It remembers one
// request per slot of a small table indexed by the first id (the system prompt
// or conversation a request starts with); bounded memory, the same results.
class BlockHashChains {
 public:
  // At most `max_blocks` of them (the first ones). `named_ids`: the first ids are
  // a shared system prompt named by its first id (Request::unique_hashes_from):
  // two prompts with the same first id and the same named_ids have the same ids
  // before it, so they are not compared (0: nothing known, compare them).
  void hashes(const PromptIds& ids, std::int64_t id_block_tokens, std::int64_t prompt_tokens,
              std::int64_t block_size, std::vector<std::uint64_t>& out,
              std::int64_t max_blocks = std::numeric_limits<std::int64_t>::max(), std::int64_t named_ids = 0);

 private:
  static constexpr std::size_t kSlots = 64;
  struct Chain {
    std::int64_t id_block_tokens = 0, block_size = 0, named_ids = 0;
    std::vector<std::uint64_t> ids, hashes;
  };
  std::vector<Chain> chains_ = std::vector<Chain>(kSlots);
};

}  // namespace servesim
