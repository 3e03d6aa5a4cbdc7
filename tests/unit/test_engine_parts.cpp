// The vLLM-style engine's parts on their own (vllm_engine.h lists them): the
// block arithmetic, the decode aggregate's block counts against a step-by-step
// count, and the KV block manager's prefix sharing. The engine's behaviour as a
// whole is tested through the simulation (test_sim_*.cpp).
#include <catch2/catch.hpp>

#include <vector>

#include "engine/decode_aggregate.h"
#include "engine/engine.h"
#include "engine/kv_blocks.h"

using namespace servesim;

namespace {

// Blocks the decoders of lengths `lens` allocate over `steps` decode steps, one token at a time.
std::int64_t brute_blocks(std::vector<std::int64_t> lens, std::int64_t bs, std::int64_t steps) {
  std::int64_t need = 0;
  for (std::int64_t j = 0; j < steps; ++j)
    for (auto& len : lens) {
      ++len;
      if (len % bs == 1 || bs == 1) ++need;
    }
  return need;
}

EngineContext context(int block_size, std::int64_t blocks) {
  EngineContext ctx;
  ctx.config.block_size = block_size;
  ctx.kv_blocks = blocks;
  return ctx;
}

}  // namespace

TEST_CASE("block size arithmetic agrees for powers of two and other sizes", "[engine][kv]") {
  for (int bs : {1, 2, 16, 24, 100, 512}) {
    const BlockSize b(bs);
    for (std::int64_t t : {0, 1, 15, 16, 17, 99, 100, 101, 511, 512, 513, 10000}) {
      CHECK(b.blocks_for(t) == (t + bs - 1) / bs);
    }
    for (std::int64_t x : {-1025, -17, -1, 0, 1, 17, 1025}) CHECK(b.mod(x) == ((x % bs) + bs) % bs);
  }
}

TEST_CASE("the decode aggregate counts the blocks decoders need step by step", "[engine][kv]") {
  for (int bs : {4, 16, 24, 300}) {
    const BlockSize b(bs);
    DecodeAggregate dec(b);
    std::vector<std::int64_t> lens;
    // Decoders join at different decode steps with different lengths.
    for (std::int64_t len : {5, 16, 17, 31, 64, 100, 1}) {
      dec.join(len);
      lens.push_back(len);
      dec.advance(3);
      for (auto& l : lens) l += 3;
    }
    std::int64_t kv = 0;
    for (auto l : lens) kv += l;
    CHECK(dec.kv_tokens(dec.step()) == kv);
    CHECK(dec.next_step_blocks() == brute_blocks(lens, bs, 1));
    for (std::int64_t steps : {1, 2, 7, 16, 50, 301, 700}) {
      CHECK(dec.blocks_needed(dec.step() + 1, steps) == brute_blocks(lens, bs, steps));
    }
    // max_steps: the most steps (at least 1, at most the limit) whose blocks fit.
    for (std::int64_t free : {0, 1, 3, 10, 40, 1000}) {
      const std::int64_t limit = 500;
      std::int64_t want = 1;
      for (std::int64_t k = 1; k <= limit; ++k)
        if (brute_blocks(lens, bs, k) <= free) want = k;
      CHECK(dec.max_steps(dec.step() + 1, limit, free) == want);
    }
  }
}

TEST_CASE("the KV block manager shares prompt blocks through the prefix cache", "[engine][kv]") {
  const EngineContext ctx = context(16, 100);
  KvBlocks kv(ctx);
  const std::vector<std::uint64_t> prompt = {11, 22, 33, 44};

  // Each request keeps the cache's handles of the blocks it holds (release_prefix takes them).
  std::vector<PrefixCache::Handle> first, second, third, fourth;

  // The first request computes its 4 blocks privately, then shares them.
  kv.allocate(4);
  CHECK(kv.used() == 4);
  CHECK(kv.share_prefix(prompt, 0, 4, first) == 4);  // its private blocks become shared ones
  CHECK(kv.used() == 4);                             // still pinned by it
  CHECK(first.size() == 4);

  // A second request with the same prompt finds 3 of them (the limit) and pins nothing new.
  const KvBlocks::PrefixHit hit = kv.acquire_prefix(prompt, 3, second);
  CHECK(hit.gpu == 3);
  CHECK(hit.cpu == 0);
  CHECK(kv.used() == 4);
  CHECK(second == std::vector<PrefixCache::Handle>(first.begin(), first.begin() + 3));  // the same blocks

  // Both let go: the blocks stay cached but count as free, and a new allocation evicts them.
  kv.release_prefix(first);
  kv.release_prefix(second);
  CHECK(kv.used() == 0);
  CHECK(kv.acquire_prefix(prompt, 4, third).gpu == 4);  // revived from the evictable set
  CHECK(kv.used() == 4);
  kv.release_prefix(third);
  kv.allocate(98);  // only 2 blocks are truly free: 2 cached ones must go
  CHECK(kv.acquire_prefix(prompt, 4, fourth).gpu == 2);
  CHECK_FALSE(kv.swap_out(1));  // no CPU tier
}
