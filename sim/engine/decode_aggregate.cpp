#include "engine/decode_aggregate.h"

#include <algorithm>

namespace servesim {

std::int64_t DecodeAggregate::max_steps(std::int64_t from_step, std::int64_t limit, std::int64_t free_blocks) const {
  // The largest k in [1, limit] with blocks_needed(from_step, k) <= free_blocks
  // (1 if none): need(k) = (k / bs) * n + partial[k % bs], with partial[r] the blocks
  // of the first r steps of a cycle, so whole cycles are counted at once.
  const std::int64_t bs = block_.size;
  const std::int64_t n = weight_;  // blocks per whole cycle
  const std::int64_t owed = from_step == G_ + 1 ? fork_ : 0;  // taken at the first step
  free_blocks -= owed;
  if (free_blocks < 0) return 1;
  // Common case, plenty of free blocks: whole cycles past `limit` fit.
  if (n == 0 || free_blocks / n >= limit / bs + 1) return std::max<std::int64_t>(1, limit);
  std::int64_t partial[kMaxTabulatedBlockSize + 1];
  if (bs > kMaxTabulatedBlockSize) {
    std::int64_t lo = 1, hi = limit;  // unusual block size: binary search
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (blocks_needed(from_step, mid) <= free_blocks + owed) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  partial[0] = 0;
  std::int64_t key = key_for_step(from_step);
  for (std::int64_t r = 1; r <= bs; ++r) {
    partial[r] = partial[r - 1] + bucket_[static_cast<std::size_t>(key)];
    key = key == 0 ? bs - 1 : key - 1;
  }
  // need() is nondecreasing and need(cycles * bs) = cycles * n (n == partial[bs]), so
  // with cycles the whole cycles that fit, the answer is cycles * bs + r for the
  // largest r with partial[r] within what is left.
  const std::int64_t cycles = free_blocks / n;
  const std::int64_t left = free_blocks - cycles * n;
  std::int64_t r = bs - 1;
  while (partial[r] > left) --r;  // partial[0] = 0 <= left
  return std::clamp<std::int64_t>(cycles * bs + r, 1, std::max<std::int64_t>(1, limit));
}

}  // namespace servesim
