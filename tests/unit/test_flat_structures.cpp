// The flat structures behind the fast paths: the prefix cache's hash index
// (engine/block_hash_index.h) and the router's min-tree (engine/min_tree.h).
// Both are checked against the obvious implementation (std::unordered_map, a
// linear scan) over long random operation sequences: any difference is a bug.
#include <catch2/catch.hpp>

#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "engine/block_hash_index.h"
#include "engine/min_tree.h"
#include "engine/prefix_cache.h"

using namespace servesim;

TEST_CASE("BlockHashIndex agrees with unordered_map under random inserts and erases", "[engine][prefix]") {
  // Keys drawn from a small range so that probe runs collide, wrap around the
  // table's end and get shifted back by erases; key 0 is legal.
  RandomStream rng(7, "index");
  BlockHashIndex index;
  std::unordered_map<std::uint64_t, std::int32_t> ref;
  for (int op = 0; op < 200000; ++op) {
    // Every other operation uses keys shifted by 40 bits (a different spread
    // over the table's slots), so both kinds of key share the table.
    const std::uint64_t k = static_cast<std::uint64_t>(rng.uniform_int(0, 3000)) << (op % 2 ? 40 : 0);
    const auto it = ref.find(k);
    if (it == ref.end()) {
      index.insert(k, op);
      ref.emplace(k, op);
    } else if (rng.uniform_int(0, 2) > 0) {
      index.erase(k);
      ref.erase(it);
    }
    const std::uint64_t probe = static_cast<std::uint64_t>(rng.uniform_int(0, 3000)) << (op % 3 ? 40 : 0);
    const auto r = ref.find(probe);
    REQUIRE(index.find(probe) == (r == ref.end() ? -1 : r->second));
    REQUIRE(index.size() == ref.size());
  }
  for (const auto& [k, v] : ref) REQUIRE(index.find(k) == v);
}

TEST_CASE("MinTree names the lowest index of the smallest value, as a scan does", "[engine][router]") {
  RandomStream rng(11, "tree");
  for (std::size_t n : {1u, 2u, 3u, 5u, 8u, 32u, 33u}) {
    MinTree<std::int64_t> tree;
    tree.resize(n, 0);
    std::vector<std::int64_t> v(n, 0);
    for (int op = 0; op < 5000; ++op) {
      const auto i = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(n) - 1));
      v[i] = rng.uniform_int(0, 4);  // few distinct values: ties are common
      tree.set(i, v[i]);
      std::size_t best = 0;
      for (std::size_t j = 1; j < n; ++j)
        if (v[j] < v[best]) best = j;
      REQUIRE(tree.best() == best);
    }
  }
}

TEST_CASE("the flat prefix cache evicts least recently released blocks, tail first", "[engine][prefix]") {
  // Two 3-block prompts share block a: A = (a, b, c), B = (a, d, e).
  // Both pinned, then released A then B: release goes last block first, so the
  // LRU order is c, b (A; a still pinned by B), then e, d, a (B).
  PrefixCache cache;
  const std::vector<std::uint64_t> A{1, 2, 3}, B{1, 4, 5};
  CHECK(cache.add(A, 0, 3).fresh == 3);
  std::vector<std::int32_t> nodes;
  const PrefixCache::Pinned p = cache.match_acquire(B, 3, &nodes);
  CHECK(nodes.size() == 1);
  CHECK(p.matched == 1);  // a only
  CHECK(p.revived == 0);  // a was pinned by A
  const PrefixCache::Registered r = cache.add(B, 1, 3);
  CHECK(r.fresh == 2);
  CHECK(cache.pinned() == 5);
  CHECK(cache.release(A, 3) == 2);  // b, c free; a still B's
  CHECK(cache.release(B, 3) == 3);
  CHECK(cache.evictable() == 5);
  cache.shrink_to(3);  // evicts c then b
  CHECK(cache.evictions() == 2);
  CHECK(cache.match(A, 3) == 1);  // a stays, b is gone
  CHECK(cache.match(B, 3) == 3);
  cache.shrink_to(1);  // evicts e then d
  CHECK(cache.match(B, 3) == 1);
  // Reviving a: it leaves the LRU list, so shrinking to 0 evicts nothing more.
  CHECK(cache.acquire(B, 1) == 1);
  cache.shrink_to(0);
  CHECK(cache.evictions() == 4);
  CHECK(cache.match(A, 1) == 1);
}

TEST_CASE("BlockHashChains gives engine_block_hashes' hashes, shared prefixes or not", "[engine][prefix]") {
  // Prompts drawn from 3 shared starts of 0-40 ids, then private ids, at id
  // blocks of 16 and 32 tokens and engine blocks of 16 and 48 (blocks that span
  // id blocks, and id blocks that span engine blocks): the memo must never
  // change a hash, whatever it remembered before.
  RandomStream rng(5, "chains");
  std::vector<std::vector<std::uint64_t>> starts(3);
  for (auto& s : starts)
    for (std::int64_t i = 0, n = rng.uniform_int(0, 40); i < n; ++i) s.push_back(rng.next_u64());
  for (std::int64_t idb : {16, 32}) {
    for (std::int64_t bs : {16, 48}) {
      BlockHashChains chains;
      std::vector<std::uint64_t> got;
      for (int r = 0; r < 300; ++r) {
        std::vector<std::uint64_t> ids = starts[static_cast<std::size_t>(rng.uniform_int(0, 2))];
        ids.resize(static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(ids.size()))));  // a shorter start
        for (std::int64_t i = 0, n = rng.uniform_int(0, 20); i < n; ++i) ids.push_back(rng.next_u64());
        const std::int64_t prompt = rng.uniform_int(0, static_cast<std::int64_t>(ids.size()) * idb + 40);
        chains.hashes(ids, idb, prompt, bs, got);
        REQUIRE(got == engine_block_hashes(ids, idb, prompt, bs));
      }
    }
  }
}
