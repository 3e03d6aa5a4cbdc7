#include "engine/kv_tiers.h"

#include <cmath>
#include <utility>

namespace servesim {

std::int64_t tier_capacity_blocks(const KvTierSpec& spec, double block_bytes) {
  if (block_bytes <= 0) return 0;
  return static_cast<std::int64_t>(std::floor(spec.capacity_bytes / block_bytes));
}

KvTierLevel::KvTierLevel(KvTierSpec spec, std::int64_t capacity_blocks)
    : spec_(std::move(spec)), capacity_(capacity_blocks > 0 ? capacity_blocks : 0),
      ttl_(spec_.ttl_s > 0 ? to_nanos(spec_.ttl_s) : 0) {}

void KvTierLevel::expire(Nanos now) {
  if (ttl_ <= 0) return;
  while (!lru_.empty() && now - lru_.front().last > ttl_) {
    index_.erase(lru_.front().hash);
    lru_.pop_front();
    ++counts.expired;
  }
}

void KvTierLevel::shrink_to(std::int64_t n, std::vector<std::uint64_t>& out) {
  while (size() > n && !lru_.empty()) {
    out.push_back(lru_.front().hash);
    index_.erase(lru_.front().hash);
    lru_.pop_front();
    ++counts.demoted;
  }
}

void KvTierLevel::put(std::uint64_t hash, Nanos now, std::vector<std::uint64_t>& out) {
  expire(now);
  const std::int64_t room = capacity_ - reserved_;
  if (room <= 0) {  // no room at all: the block passes straight through
    out.push_back(hash);
    return;
  }
  ++counts.stored;
  if (const auto it = index_.find(hash); it != index_.end()) {
    it->second->last = now;
    lru_.splice(lru_.end(), lru_, it->second);
    return;
  }
  lru_.push_back(Entry{hash, now});
  index_.emplace(hash, std::prev(lru_.end()));
  shrink_to(room, out);
}

bool KvTierLevel::contains(std::uint64_t hash, Nanos now) {
  expire(now);
  return index_.count(hash) != 0;
}

void KvTierLevel::touch(std::uint64_t hash, Nanos now) {
  const auto it = index_.find(hash);
  if (it == index_.end()) return;
  it->second->last = now;
  lru_.splice(lru_.end(), lru_, it->second);
}

bool KvTierLevel::reserve(std::int64_t blocks, std::vector<std::uint64_t>& out) {
  if (reserved_ + blocks > capacity_) return false;
  reserved_ += blocks;
  shrink_to(capacity_ - reserved_, out);
  return true;
}

KvTierChain::KvTierChain(std::vector<std::shared_ptr<KvTierLevel>> levels, double block_bytes)
    : levels_(std::move(levels)), block_bytes_(block_bytes) {}

void KvTierChain::store(std::size_t i, std::vector<std::uint64_t>& hashes) {
  for (; i < levels_.size() && !hashes.empty(); ++i) {
    next_.clear();
    for (std::uint64_t h : hashes) levels_[i]->put(h, now_, next_);
    hashes.swap(next_);
  }
  hashes.clear();  // past the last tier: dropped (counted as its demotions)
}

void KvTierChain::put(std::uint64_t hash) {
  moving_.clear();
  moving_.push_back(hash);
  store(0, moving_);
}

std::int64_t KvTierChain::match(const std::vector<std::uint64_t>& hashes, std::int64_t from, std::int64_t limit,
                                std::vector<std::int8_t>& tier_of) {
  tier_of.clear();
  for (std::int64_t k = from; k < limit; ++k) {
    const std::uint64_t h = hashes[static_cast<std::size_t>(k)];
    std::int8_t found = -1;
    for (std::size_t i = 0; i < levels_.size(); ++i)
      if (levels_[i]->contains(h, now_)) {
        found = static_cast<std::int8_t>(i);
        break;
      }
    if (found < 0) break;
    tier_of.push_back(found);
  }
  return static_cast<std::int64_t>(tier_of.size());
}

double KvTierChain::reload_seconds(const std::vector<std::int8_t>& tier_of, std::int64_t n) const {
  std::vector<std::int64_t> per_tier(levels_.size(), 0);
  for (std::int64_t k = 0; k < n; ++k) ++per_tier[static_cast<std::size_t>(tier_of[static_cast<std::size_t>(k)])];
  double s = 0;
  for (std::size_t i = 0; i < levels_.size(); ++i) {
    if (per_tier[i] == 0) continue;
    const KvTierSpec& t = levels_[i]->spec();
    s += static_cast<double>(per_tier[i]) * block_bytes_ / t.bandwidth + t.latency_s;
  }
  return s;
}

std::int64_t KvTierChain::best_reload(const std::vector<std::int8_t>& tier_of, std::int64_t run,
                                      double recompute_block_s) const {
  std::int64_t best = 0;
  double best_s = static_cast<double>(run) * recompute_block_s;
  for (std::int64_t n = 1; n <= run; ++n) {
    // Only the end of a stretch of one tier (or of the run) can be best.
    if (n < run && tier_of[static_cast<std::size_t>(n)] == tier_of[static_cast<std::size_t>(n - 1)]) continue;
    const double s = reload_seconds(tier_of, n) + static_cast<double>(run - n) * recompute_block_s;
    if (s < best_s) {
      best_s = s;
      best = n;
    }
  }
  return best;
}

void KvTierChain::reloaded(const std::vector<std::uint64_t>& hashes, std::int64_t from, std::int64_t n,
                           const std::vector<std::int8_t>& tier_of) {
  std::vector<std::int64_t> per_tier(levels_.size(), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(tier_of[static_cast<std::size_t>(k)]);
    levels_[i]->touch(hashes[static_cast<std::size_t>(from + k)], now_);
    ++per_tier[i];
  }
  for (std::size_t i = 0; i < levels_.size(); ++i) {
    if (per_tier[i] == 0) continue;
    KvTierCounts& c = levels_[i]->counts;
    const KvTierSpec& t = levels_[i]->spec();
    c.reloaded += per_tier[i];
    ++c.transfers;
    c.transfer_s += static_cast<double>(per_tier[i]) * block_bytes_ / t.bandwidth + t.latency_s;
  }
}

bool KvTierChain::swap_out(std::int64_t blocks) {
  if (levels_.empty() || levels_.front()->spec().shared) return false;
  moving_.clear();
  if (!levels_.front()->reserve(blocks, moving_)) return false;
  store(1, moving_);  // what the reservation pushed out goes down the chain
  return true;
}

}  // namespace servesim
