#include "engine/prefix_cache.h"

#include <algorithm>

#include "engine/cpu_tier.h"

namespace servesim {

namespace {
// How many blocks ahead the loops below prefetch index slots.
constexpr std::int64_t kAhead = 8;
}  // namespace

std::int32_t PrefixCache::new_node(std::uint64_t hash) {
  std::int32_t i;
  if (!free_nodes_.empty()) {
    i = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    i = static_cast<std::int32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  nodes_[static_cast<std::size_t>(i)] = Node{hash, 0, -1, -1};
  index_.insert(hash, i);
  return i;
}

void PrefixCache::lru_unlink(Node& n) {
  if (n.prev >= 0) nodes_[static_cast<std::size_t>(n.prev)].next = n.next;
  else lru_head_ = n.next;
  if (n.next >= 0) nodes_[static_cast<std::size_t>(n.next)].prev = n.prev;
  else lru_tail_ = n.prev;
  n.prev = n.next = -1;
  --lru_size_;
}

void PrefixCache::lru_push_back(std::int32_t i) {
  Node& n = nodes_[static_cast<std::size_t>(i)];
  n.prev = lru_tail_;
  n.next = -1;
  if (lru_tail_ >= 0) nodes_[static_cast<std::size_t>(lru_tail_)].next = i;
  else lru_head_ = i;
  lru_tail_ = i;
  ++lru_size_;
}

std::int64_t PrefixCache::match(const std::vector<std::uint64_t>& hashes, std::int64_t limit) const {
  const std::int64_t n = std::min<std::int64_t>(limit, static_cast<std::int64_t>(hashes.size()));
  std::int64_t i = 0;
  while (i < n && index_.find(hashes[static_cast<std::size_t>(i)]) >= 0) ++i;
  return i;
}

PrefixCache::Pinned PrefixCache::match_acquire(const std::vector<std::uint64_t>& hashes, std::int64_t limit,
                                               std::vector<std::int32_t>* nodes) {
  Pinned p;
  const std::int64_t n = std::min<std::int64_t>(limit, static_cast<std::int64_t>(hashes.size()));
  for (std::int64_t j = 0; j < std::min(n, kAhead); ++j) index_.prefetch(hashes[static_cast<std::size_t>(j)]);
  for (; p.matched < n; ++p.matched) {
    if (p.matched + kAhead < n) index_.prefetch(hashes[static_cast<std::size_t>(p.matched + kAhead)]);
    const std::int32_t i = index_.find(hashes[static_cast<std::size_t>(p.matched)]);
    if (i < 0) break;
    nodes->push_back(i);
    Node& e = nodes_[static_cast<std::size_t>(i)];
    if (e.refs++ == 0) {
      lru_unlink(e);
      ++pinned_;
      ++p.revived;
    }
  }
  return p;
}

std::int64_t PrefixCache::acquire(const std::vector<std::uint64_t>& hashes, std::int64_t n) {
  std::int64_t revived = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    Node& e = node_of(hashes[static_cast<std::size_t>(i)]);
    if (e.refs++ == 0) {
      lru_unlink(e);
      ++pinned_;
      ++revived;
    }
  }
  return revived;
}

PrefixCache::Registered PrefixCache::add(const std::vector<std::uint64_t>& hashes, std::int64_t first, std::int64_t n,
                                         std::vector<std::int32_t>* nodes) {
  Registered r;
  for (std::int64_t j = first; j < std::min(n, first + kAhead); ++j) index_.prefetch(hashes[static_cast<std::size_t>(j)]);
  for (std::int64_t i = first; i < n; ++i) {
    if (i + kAhead < n) index_.prefetch(hashes[static_cast<std::size_t>(i + kAhead)]);
    const std::uint64_t h = hashes[static_cast<std::size_t>(i)];
    const std::int32_t at = index_.find(h);
    if (at < 0) {
      const std::int32_t fresh = new_node(h);
      nodes_[static_cast<std::size_t>(fresh)].refs = 1;
      if (nodes) nodes->push_back(fresh);
      ++pinned_;
      ++r.fresh;
      continue;
    }
    if (nodes) nodes->push_back(at);
    Node& e = nodes_[static_cast<std::size_t>(at)];
    if (e.refs++ == 0) {
      lru_unlink(e);
      ++pinned_;
      ++r.revived;
    } else {
      ++r.duplicate;
    }
  }
  return r;
}

std::int64_t PrefixCache::release(const std::vector<std::uint64_t>& hashes, std::int64_t n) {
  std::int64_t freed = 0;
  for (std::int64_t j = n - 1; j >= std::max<std::int64_t>(0, n - kAhead); --j)
    index_.prefetch(hashes[static_cast<std::size_t>(j)]);
  for (std::int64_t i = n - 1; i >= 0; --i) {
    if (i - kAhead >= 0) index_.prefetch(hashes[static_cast<std::size_t>(i - kAhead)]);
    const std::int32_t at = index_.find(hashes[static_cast<std::size_t>(i)]);
    Node& e = nodes_[static_cast<std::size_t>(at)];
    if (--e.refs == 0) {
      lru_push_back(at);
      --pinned_;
      ++freed;
    }
  }
  return freed;
}

std::int64_t PrefixCache::release_nodes(const std::vector<std::int32_t>& nodes, std::int64_t n) {
  std::int64_t freed = 0;
  for (std::int64_t i = n - 1; i >= 0; --i) {  // last block first, as release()
    if (i >= kAhead) __builtin_prefetch(&nodes_[static_cast<std::size_t>(nodes[static_cast<std::size_t>(i - kAhead)])]);
    const std::int32_t at = nodes[static_cast<std::size_t>(i)];
    if (--nodes_[static_cast<std::size_t>(at)].refs == 0) {
      lru_push_back(at);
      --pinned_;
      ++freed;
    }
  }
  return freed;
}

void PrefixCache::evict(std::int64_t max_evictable) {
  while (lru_size_ > std::max<std::int64_t>(0, max_evictable)) {
    const std::int32_t i = lru_head_;
    Node& e = nodes_[static_cast<std::size_t>(i)];
    if (e.next >= 0) {  // the next victim: its node, and its index slot once the node is in
      const Node& next = nodes_[static_cast<std::size_t>(e.next)];
      __builtin_prefetch(&next);
      if (next.next >= 0) __builtin_prefetch(&nodes_[static_cast<std::size_t>(next.next)]);
      index_.prefetch(next.hash);
    }
    if (spill_) spill_->put(e.hash);
    index_.erase(e.hash);
    lru_unlink(e);
    free_nodes_.push_back(i);
    ++evictions_;
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

std::vector<std::uint64_t> engine_block_hashes(const std::vector<std::uint64_t>& ids, std::int64_t id_block_tokens,
                                               std::int64_t prompt_tokens, std::int64_t block_size) {
  std::vector<std::uint64_t> out;
  engine_block_hashes(ids, id_block_tokens, prompt_tokens, block_size, out);
  return out;
}

namespace {
constexpr std::uint64_t kChainSeed = 0x51ed270b27f3a1c5ULL;

// Appends the hashes of engine blocks [from, blocks) to `out`, which holds those before.
void chain_blocks(const std::vector<std::uint64_t>& ids, std::int64_t id_block_tokens, std::int64_t block_size,
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

std::int64_t engine_blocks(const std::vector<std::uint64_t>& ids, std::int64_t id_block_tokens, std::int64_t prompt_tokens,
                           std::int64_t block_size) {
  if (ids.empty() || id_block_tokens <= 0 || block_size <= 0) return 0;
  return std::min(prompt_tokens, static_cast<std::int64_t>(ids.size()) * id_block_tokens) / block_size;
}
}  // namespace

void engine_block_hashes(const std::vector<std::uint64_t>& ids, std::int64_t id_block_tokens, std::int64_t prompt_tokens,
                         std::int64_t block_size, std::vector<std::uint64_t>& out) {
  out.clear();
  const std::int64_t blocks = engine_blocks(ids, id_block_tokens, prompt_tokens, block_size);
  out.reserve(static_cast<std::size_t>(blocks));
  chain_blocks(ids, id_block_tokens, block_size, 0, blocks, out);
}

void BlockHashChains::hashes(const std::vector<std::uint64_t>& ids, std::int64_t id_block_tokens,
                             std::int64_t prompt_tokens, std::int64_t block_size, std::vector<std::uint64_t>& out) {
  out.clear();
  const std::int64_t blocks = engine_blocks(ids, id_block_tokens, prompt_tokens, block_size);
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
    c.ids = ids;
    c.hashes = out;
  }
}

}  // namespace servesim
