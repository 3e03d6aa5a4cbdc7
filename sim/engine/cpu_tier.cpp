#include "engine/cpu_tier.h"

#include <algorithm>

namespace servesim {

void CpuKvTier::evict_to(std::int64_t max_cached) {
  while (static_cast<std::int64_t>(lru_.size()) > std::max<std::int64_t>(0, max_cached)) {
    index_.erase(lru_.front());
    lru_.pop_front();
  }
}

void CpuKvTier::put(std::uint64_t hash) {
  if (!enabled() || reserved_ >= capacity_) return;
  const auto it = index_.find(hash);
  if (it != index_.end()) {
    lru_.splice(lru_.end(), lru_, it->second);
    return;
  }
  evict_to(capacity_ - reserved_ - 1);
  index_.emplace(hash, lru_.insert(lru_.end(), hash));
}

std::int64_t CpuKvTier::match(const std::vector<std::uint64_t>& hashes, std::int64_t from, std::int64_t limit) const {
  if (index_.empty()) return 0;
  const std::int64_t n = std::min<std::int64_t>(limit, static_cast<std::int64_t>(hashes.size()));
  std::int64_t i = from;
  while (i < n && index_.count(hashes[static_cast<std::size_t>(i)])) ++i;
  return std::max<std::int64_t>(0, i - from);
}

void CpuKvTier::touch(const std::vector<std::uint64_t>& hashes, std::int64_t from, std::int64_t n) {
  // Last block first, so that a prefix's tail stays older than its head (leaves first).
  for (std::int64_t i = from + n - 1; i >= from; --i) {
    const auto it = index_.find(hashes[static_cast<std::size_t>(i)]);
    if (it != index_.end()) lru_.splice(lru_.end(), lru_, it->second);
  }
}

bool CpuKvTier::reserve(std::int64_t blocks) {
  if (!enabled() || blocks > capacity_ - reserved_) return false;
  reserved_ += blocks;
  evict_to(capacity_ - reserved_);
  return true;
}

}  // namespace servesim
