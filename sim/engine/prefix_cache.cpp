#include "engine/prefix_cache.h"

#include <algorithm>

#include "engine/cpu_tier.h"

namespace servesim {

std::int64_t PrefixCache::match(const std::vector<std::uint64_t>& hashes, std::int64_t limit) const {
  const std::int64_t n = std::min<std::int64_t>(limit, static_cast<std::int64_t>(hashes.size()));
  std::int64_t i = 0;
  while (i < n && entries_.count(hashes[static_cast<std::size_t>(i)])) ++i;
  return i;
}

std::int64_t PrefixCache::acquire(const std::vector<std::uint64_t>& hashes, std::int64_t n) {
  std::int64_t revived = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    Entry& e = entries_.at(hashes[static_cast<std::size_t>(i)]);
    if (e.refs++ == 0) {
      lru_.erase(e.lru);
      ++pinned_;
      ++revived;
    }
  }
  return revived;
}

PrefixCache::Registered PrefixCache::add(const std::vector<std::uint64_t>& hashes, std::int64_t first, std::int64_t n) {
  Registered r;
  for (std::int64_t i = first; i < n; ++i) {
    auto [it, inserted] = entries_.try_emplace(hashes[static_cast<std::size_t>(i)]);
    Entry& e = it->second;
    if (inserted) {
      e.refs = 1;
      ++pinned_;
      ++r.fresh;
    } else if (e.refs++ == 0) {
      lru_.erase(e.lru);
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
  for (std::int64_t i = n - 1; i >= 0; --i) {
    Entry& e = entries_.at(hashes[static_cast<std::size_t>(i)]);
    if (--e.refs == 0) {
      e.lru = lru_.insert(lru_.end(), hashes[static_cast<std::size_t>(i)]);
      --pinned_;
      ++freed;
    }
  }
  return freed;
}

void PrefixCache::evict(std::int64_t max_evictable) {
  while (static_cast<std::int64_t>(lru_.size()) > std::max<std::int64_t>(0, max_evictable)) {
    if (spill_) spill_->put(lru_.front());
    entries_.erase(lru_.front());
    lru_.pop_front();
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
  if (ids.empty() || id_block_tokens <= 0 || block_size <= 0) return out;
  const std::int64_t covered = std::min(prompt_tokens, static_cast<std::int64_t>(ids.size()) * id_block_tokens);
  const std::int64_t blocks = covered / block_size;
  out.reserve(static_cast<std::size_t>(blocks));
  std::uint64_t h = 0x51ed270b27f3a1c5ULL;
  for (std::int64_t b = 0; b < blocks; ++b) {
    // The id blocks this engine block's tokens fall in, and where in them it starts.
    const std::int64_t t0 = b * block_size, t1 = t0 + block_size;
    for (std::int64_t id = t0 / id_block_tokens; id * id_block_tokens < t1; ++id) {
      h = mix(h, ids[static_cast<std::size_t>(id)]);
    }
    h = mix(h, static_cast<std::uint64_t>(t0 % id_block_tokens));
    out.push_back(h);
  }
  return out;
}

}  // namespace servesim
