#include "engine/prefix_cache.h"

#include <algorithm>
#include <stdexcept>

#include "engine/kv_spill.h"

namespace servesim {

namespace {
// How many blocks ahead the loops below prefetch index slots.
constexpr std::int64_t kAhead = 8;

// The hash a split at block n indexes the rest by. A node reaching past a
// request's last hash would be one whose later blocks that request cannot name:
// runs are only reached by their owner and chains only by requests of their group,
// which have every hash of it, and a conversation's turn (Request::extended_later),
// which may meet a run a later turn registered past its own end, carries the hash
// of the block after its prompt (tests/unit/test_flat_structures.cpp).
std::uint64_t rest_hash(const std::vector<std::uint64_t>& hashes, std::int64_t n) {
  if (n >= static_cast<std::int64_t>(hashes.size()))
    throw std::logic_error("PrefixCache: a cached run or chain reaches past a prompt's last block");
  return hashes[static_cast<std::size_t>(n)];
}
}  // namespace

std::int32_t PrefixCache::new_node(std::uint64_t hash, std::int32_t count) {
  std::int32_t i;
  if (!free_nodes_.empty()) {
    i = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    i = static_cast<std::int32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  at(i) = Node{hash, 0, count, -1, -1};
  index_.insert(hash, i);
  return i;
}

void PrefixCache::lru_unlink(Node& n) {
  if (n.prev >= 0) at(n.prev).next = n.next;
  else lru_head_ = n.next;
  if (n.next >= 0) at(n.next).prev = n.prev;
  else lru_tail_ = n.prev;
  n.prev = n.next = -1;
  lru_size_ -= n.count;
}

void PrefixCache::lru_push_back(std::int32_t i) {
  Node& n = at(i);
  n.prev = lru_tail_;
  n.next = -1;
  if (lru_tail_ >= 0) at(lru_tail_).next = i;
  else lru_head_ = i;
  lru_tail_ = i;
  lru_size_ += n.count;
}

void PrefixCache::split(std::int32_t i, std::int64_t keep, std::uint64_t rest_hash) {
  const std::int32_t r = new_node(rest_hash, at(i).count - static_cast<std::int32_t>(keep));  // may move nodes_
  Node& head = at(i);
  Node& rest = at(r);
  head.count = static_cast<std::int32_t>(keep);
  if (head.refs > 0) {
    // The same holders (pinned_ is unchanged); their handles reach it through head.
    split_referenced_ = true;
    rest.refs = head.refs;
    rest.next = head.next;
    head.next = r;
    return;
  }
  rest.prev = head.prev;
  rest.next = i;
  if (head.prev >= 0) at(head.prev).next = r;
  else lru_head_ = r;
  head.prev = r;  // lru_size_ is unchanged: the same blocks, in two nodes
}

__attribute__((always_inline)) inline void PrefixCache::drop(std::int32_t e, std::int64_t& freed) {
  Node& node = at(e);
  if (--node.refs == 0) {
    lru_push_back(e);
    pinned_ -= node.count;
    freed += node.count;
  }
}

__attribute__((always_inline)) inline void PrefixCache::pin(std::int32_t i, std::int64_t& revived) {
  Node& e = at(i);
  if (e.refs++ == 0) {
    lru_unlink(e);
    pinned_ += e.count;
    revived += e.count;
  }
}

std::int64_t PrefixCache::match(const std::vector<std::uint64_t>& hashes, std::int64_t limit) const {
  const std::int64_t n = std::min<std::int64_t>(limit, static_cast<std::int64_t>(hashes.size()));
  std::int64_t i = 0;
  while (i < n) {
    const std::int32_t f = index_.find(hashes[static_cast<std::size_t>(i)]);
    if (f < 0) break;
    i += nodes_[static_cast<std::size_t>(f)].count;
  }
  return std::min(i, n);
}

PrefixCache::Pinned PrefixCache::probe(const std::vector<std::uint64_t>& hashes, std::int64_t limit) const {
  Pinned p;
  const std::int64_t n = std::min<std::int64_t>(limit, static_cast<std::int64_t>(hashes.size()));
  while (p.matched < n) {
    const std::int32_t f = index_.find(hashes[static_cast<std::size_t>(p.matched)]);
    if (f < 0) break;
    const Node& node = nodes_[static_cast<std::size_t>(f)];
    const std::int64_t c = std::min<std::int64_t>(node.count, n - p.matched);  // a node past the limit: its first blocks
    if (node.refs == 0) p.revived += c;
    p.matched += c;
  }
  return p;
}

PrefixCache::Pinned PrefixCache::match_acquire(const std::vector<std::uint64_t>& hashes, std::int64_t limit,
                                               std::vector<Handle>* nodes) {
  Pinned p;
  const std::int64_t size = static_cast<std::int64_t>(hashes.size());
  const std::int64_t n = std::min<std::int64_t>(limit, size);
  for (std::int64_t j = 0; j < std::min(n, kAhead); ++j) index_.prefetch(hashes[static_cast<std::size_t>(j)]);
  while (p.matched < n) {
    if (p.matched + kAhead < n) index_.prefetch(hashes[static_cast<std::size_t>(p.matched + kAhead)]);
    const std::int32_t i = index_.find(hashes[static_cast<std::size_t>(p.matched)]);
    if (i < 0) break;
    // A run or chain reaching past the limit: the caller takes its first blocks only.
    if (at(i).count > n - p.matched) split(i, n - p.matched, rest_hash(hashes, n));
    const std::int32_t c = at(i).count;
    nodes->push_back(Handle{i, c});
    pin(i, p.revived);
    p.matched += c;
  }
  return p;
}

std::int64_t PrefixCache::acquire(const std::vector<std::uint64_t>& hashes, std::int64_t n) {
  std::vector<Handle> nodes;
  const Pinned p = match_acquire(hashes, n, &nodes);
  if (p.matched != n) throw std::logic_error("PrefixCache::acquire: a block is not cached");
  return p.revived;
}

PrefixCache::Registered PrefixCache::add(const std::vector<std::uint64_t>& hashes, std::int64_t first, std::int64_t n,
                                         std::vector<Handle>* nodes, std::int64_t unique_from) {
  Registered r;
  // The spill tier takes evicted blocks by their hashes: no runs, no chains then.
  const std::int64_t unique = spill_ ? n : std::max(unique_from, first);
  // Blocks before `chain_end` are a shared chain (one node per stretch not cached yet).
  const std::int64_t chain_end = spill_ || unique_from == kNoUnique ? 0 : std::min(n, unique_from);
  const std::int64_t ahead_end = std::min(n, unique);  // prefetching pays only for per-block entries
  for (std::int64_t j = first; j < std::min(ahead_end, first + kAhead); ++j)
    index_.prefetch(hashes[static_cast<std::size_t>(j)]);
  for (std::int64_t i = first; i < n;) {
    if (i + kAhead < ahead_end) index_.prefetch(hashes[static_cast<std::size_t>(i + kAhead)]);
    const std::uint64_t h = hashes[static_cast<std::size_t>(i)];
    std::int32_t e = index_.find(h);
    if (e < 0) {
      // Not cached: one new block, or, from `unique` on, the whole rest as one run
      // (the owner's blocks still cached are a run of consecutive blocks from its
      // first unique one: evictions take them from the end, oldest first), or the
      // rest of a shared chain (none of its later blocks is cached either).
      const std::int64_t len = i >= unique ? n - i : i < chain_end ? chain_end - i : 1;
      e = new_node(h, static_cast<std::int32_t>(len));
      at(e).refs = 1;
      if (nodes) nodes->push_back(Handle{e, static_cast<std::int32_t>(len)});
      pinned_ += len;
      r.fresh += len;
      i += len;
      continue;
    }
    if (at(e).count > n - i) split(e, n - i, rest_hash(hashes, n));
    const std::int32_t c = at(e).count;
    if (nodes) nodes->push_back(Handle{e, c});
    if (at(e).refs == 0) pin(e, r.revived);
    else {
      ++at(e).refs;
      r.duplicate += c;
    }
    i += c;
  }
  return r;
}

std::int64_t PrefixCache::release(const std::vector<std::uint64_t>& hashes, std::int64_t n) {
  std::vector<Handle> nodes;
  for (std::int64_t i = 0; i < n;) {
    const std::int32_t e = index_.find(hashes[static_cast<std::size_t>(i)]);
    nodes.push_back(Handle{e, at(e).count});
    i += at(e).count;
  }
  return release_nodes(nodes);
}

void PrefixCache::release_parts(const Handle& h, std::int64_t& freed) {
  // Its parts, first to last (drop() relinks them, so they are all found first).
  parts_.clear();
  for (std::int32_t e = h.node, left = h.blocks; left > 0; e = at(e).next) {
    parts_.push_back(e);
    left -= at(e).count;
  }
  for (auto k = parts_.size(); k-- > 0;) drop(parts_[k], freed);
}

std::int64_t PrefixCache::release_nodes(const std::vector<Handle>& nodes) {
  std::int64_t freed = 0;
  const auto n = static_cast<std::int64_t>(nodes.size());
  const bool spans = split_referenced_;  // until a referenced node is split, every handle is its node alone
  for (std::int64_t i = n - 1; i >= 0; --i) {  // last block first (a prefix's tail is evicted before its head)
    if (i >= kAhead) __builtin_prefetch(&nodes_[static_cast<std::size_t>(nodes[static_cast<std::size_t>(i - kAhead)].node)]);
    const Handle& h = nodes[static_cast<std::size_t>(i)];
    if (!spans || at(h.node).count == h.blocks) drop(h.node, freed);
    else release_parts(h, freed);
  }
  return freed;
}

void PrefixCache::evict(std::int64_t max_evictable) {
  const std::int64_t keep = std::max<std::int64_t>(0, max_evictable);
  while (lru_size_ > keep) {
    const std::int32_t i = lru_head_;
    Node& e = at(i);
    const std::int64_t excess = lru_size_ - keep;
    if (e.count > excess) {  // a run's last `excess` blocks go, its first ones stay
      e.count -= static_cast<std::int32_t>(excess);
      lru_size_ -= excess;
      evictions_ += excess;
      return;
    }
    if (e.next >= 0) {  // the next victim: its node, and its index slot once the node is in
      const Node& next = at(e.next);
      __builtin_prefetch(&next);
      if (next.next >= 0) __builtin_prefetch(&at(next.next));
      index_.prefetch(next.hash);
    }
    if (spill_) spill_->put(e.hash);
    index_.erase(e.hash);
    evictions_ += e.count;
    lru_unlink(e);
    free_nodes_.push_back(i);
  }
}

namespace {
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // splitmix64 finaliser over a combination: cheap, well distributed, deterministic.
  std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

std::vector<std::uint64_t> engine_block_hashes(const PromptIds& ids, std::int64_t id_block_tokens,
                                               std::int64_t prompt_tokens, std::int64_t block_size) {
  std::vector<std::uint64_t> out;
  engine_block_hashes(ids, id_block_tokens, prompt_tokens, block_size, out);
  return out;
}

namespace {
constexpr std::uint64_t kChainSeed = 0x51ed270b27f3a1c5ULL;

// Appends the hashes of engine blocks [from, blocks) to `out`, which holds those before.
void chain_blocks(const PromptIds& ids, std::int64_t id_block_tokens, std::int64_t block_size,
                  std::int64_t from, std::int64_t blocks, std::vector<std::uint64_t>& out) {
  std::uint64_t h = from > 0 ? out[static_cast<std::size_t>(from - 1)] : kChainSeed;
  for (std::int64_t b = from; b < blocks; ++b) {
    // The id blocks this engine block's tokens fall in, and where in them it starts.
    const std::int64_t t0 = b * block_size, t1 = t0 + block_size;
    for (std::int64_t id = t0 / id_block_tokens; id * id_block_tokens < t1; ++id) {
      h = mix(h, ids[static_cast<std::size_t>(id)]);
    }
    h = mix(h, static_cast<std::uint64_t>(t0 % id_block_tokens));
    out.push_back(h);
  }
}

}  // namespace

std::int64_t engine_block_count(const PromptIds& ids, std::int64_t id_block_tokens, std::int64_t prompt_tokens,
                                std::int64_t block_size) {
  if (ids.empty() || id_block_tokens <= 0 || block_size <= 0) return 0;
  return std::min(prompt_tokens, static_cast<std::int64_t>(ids.size()) * id_block_tokens) / block_size;
}

void engine_block_hashes(const PromptIds& ids, std::int64_t id_block_tokens, std::int64_t prompt_tokens,
                         std::int64_t block_size, std::vector<std::uint64_t>& out) {
  out.clear();
  const std::int64_t blocks = engine_block_count(ids, id_block_tokens, prompt_tokens, block_size);
  out.reserve(static_cast<std::size_t>(blocks));
  chain_blocks(ids, id_block_tokens, block_size, 0, blocks, out);
}

void BlockHashChains::hashes(const PromptIds& ids, std::int64_t id_block_tokens,
                             std::int64_t prompt_tokens, std::int64_t block_size, std::vector<std::uint64_t>& out,
                             std::int64_t max_blocks, std::int64_t named_ids) {
  out.clear();
  const std::int64_t blocks = std::min(max_blocks, engine_block_count(ids, id_block_tokens, prompt_tokens, block_size));
  if (blocks <= 0) return;
  Chain& c = chains_[static_cast<std::size_t>((ids[0] * 0x9e3779b97f4a7c15ULL) >> 58)];  // kSlots = 2^6
  std::int64_t reuse = 0;
  const bool same_start = c.id_block_tokens == id_block_tokens && c.block_size == block_size && !c.ids.empty() &&
                          c.ids[0] == ids[0];
  if (same_start) {
    // Ids in common, as far as this prompt's blocks reach: block b is reusable when
    // all the ids its tokens and those before it fall in, [0, ceil((b+1) bs / idb)), are.
    const std::size_t reach = std::min({c.ids.size(), ids.size(),
                                        static_cast<std::size_t>((blocks * block_size + id_block_tokens - 1) / id_block_tokens)});
    std::size_t k = 0;
    if (named_ids > 0 && c.named_ids == named_ids) k = std::min(reach, static_cast<std::size_t>(named_ids));
    else
      while (k < reach && c.ids[k] == ids[k]) ++k;
    reuse = std::min({static_cast<std::int64_t>(k) * id_block_tokens / block_size,
                      static_cast<std::int64_t>(c.hashes.size()), blocks});
    out.assign(c.hashes.begin(), c.hashes.begin() + reuse);
  }
  out.reserve(static_cast<std::size_t>(blocks));
  chain_blocks(ids, id_block_tokens, block_size, reuse, blocks, out);
  if (!same_start) {  // remember this request for the next ones that start like it
    c.id_block_tokens = id_block_tokens;
    c.block_size = block_size;
    c.named_ids = named_ids;
    ids.assign_to(c.ids);
    c.hashes = out;
  }
}

}  // namespace servesim
