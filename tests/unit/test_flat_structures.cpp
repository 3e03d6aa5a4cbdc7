// The flat structures behind the fast paths: the prefix cache's hash index
// (engine/block_hash_index.h) and the router's min-tree (engine/min_tree.h).
// Both are checked against the obvious implementation (std::unordered_map, a
// linear scan) over long random operation sequences: any difference is a bug.
#include <catch2/catch.hpp>

#include <list>
#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "engine/block_hash_index.h"
#include "engine/min_tree.h"
#include "engine/prefix_cache.h"
#include "workload/prefix_hash.h"
#include "workload/prompt_ids.h"

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
  std::vector<PrefixCache::Handle> nodes;
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

TEST_CASE("BlockHashChains trusts a named system prompt without comparing it, same hashes", "[engine][prefix]") {
  // Requests as the synthetic workload makes them with shared prefixes: one of 3
  // system prompts (0-40 ids, named by their first id: Request::unique_hashes_from),
  // then ids of their own; some asked for their first blocks only (the lazy
  // hashes before registration), then all of them. Whatever the memo holds, the
  // hashes must be engine_block_hashes'.
  RandomStream rng(7, "named chains");
  std::vector<std::vector<std::uint64_t>> prompts(3);
  for (auto& p : prompts)
    for (std::int64_t i = 0, n = rng.uniform_int(1, 40); i < n; ++i) p.push_back(rng.next_u64());
  for (std::int64_t idb : {16, 32}) {
    for (std::int64_t bs : {16, 48}) {
      BlockHashChains chains;
      std::vector<std::uint64_t> got;
      for (int r = 0; r < 300; ++r) {
        std::vector<std::uint64_t> ids = prompts[static_cast<std::size_t>(rng.uniform_int(0, 2))];
        const auto named = static_cast<std::int64_t>(ids.size());
        for (std::int64_t i = 0, n = rng.uniform_int(0, 20); i < n; ++i) ids.push_back(rng.next_u64());
        const std::int64_t prompt = rng.uniform_int(named * idb, static_cast<std::int64_t>(ids.size()) * idb + 40);
        const std::vector<std::uint64_t> want = engine_block_hashes(ids, idb, prompt, bs);
        const std::int64_t first = rng.uniform_int(0, static_cast<std::int64_t>(want.size()));
        chains.hashes(ids, idb, prompt, bs, got, first, named);
        REQUIRE(got == std::vector<std::uint64_t>(want.begin(), want.begin() + first));
        chains.hashes(ids, idb, prompt, bs, got, std::numeric_limits<std::int64_t>::max(), named);
        REQUIRE(got == want);
      }
    }
  }
}

namespace {
// The prefix cache as one entry per block: a reference count per hash and an LRU
// list of the unreferenced ones, oldest first. What PrefixCache's runs must match.
class PerBlockCache {
 public:
  PrefixCache::Pinned match_acquire(const std::vector<std::uint64_t>& h, std::int64_t limit) {
    PrefixCache::Pinned p;
    const std::int64_t n = std::min<std::int64_t>(limit, static_cast<std::int64_t>(h.size()));
    for (; p.matched < n; ++p.matched) {
      const auto it = refs_.find(h[static_cast<std::size_t>(p.matched)]);
      if (it == refs_.end()) break;
      if (it->second++ == 0) {
        unlink(it->first);
        ++p.revived;
      }
    }
    return p;
  }
  PrefixCache::Registered add(const std::vector<std::uint64_t>& h, std::int64_t first, std::int64_t n) {
    PrefixCache::Registered r;
    for (std::int64_t i = first; i < n; ++i) {
      const auto [it, fresh] = refs_.try_emplace(h[static_cast<std::size_t>(i)], 0);
      if (fresh) ++r.fresh;
      else if (it->second == 0) {
        unlink(it->first);
        ++r.revived;
      } else {
        ++r.duplicate;
      }
      ++it->second;
    }
    return r;
  }
  std::int64_t release(const std::vector<std::uint64_t>& h, std::int64_t n) {
    std::int64_t freed = 0;
    for (std::int64_t i = n - 1; i >= 0; --i) {
      const std::uint64_t k = h[static_cast<std::size_t>(i)];
      if (--refs_[k] == 0) {
        where_[k] = lru_.insert(lru_.end(), k);
        ++freed;
      }
    }
    return freed;
  }
  void shrink_to(std::int64_t keep) {
    while (static_cast<std::int64_t>(lru_.size()) > keep) {
      refs_.erase(lru_.front());
      where_.erase(lru_.front());
      lru_.pop_front();
      ++evictions_;
    }
  }
  std::int64_t match(const std::vector<std::uint64_t>& h, std::int64_t limit) const {
    const std::int64_t n = std::min<std::int64_t>(limit, static_cast<std::int64_t>(h.size()));
    std::int64_t i = 0;
    while (i < n && refs_.count(h[static_cast<std::size_t>(i)])) ++i;
    return i;
  }
  std::int64_t pinned() const { return static_cast<std::int64_t>(refs_.size() - lru_.size()); }
  std::int64_t evictable() const { return static_cast<std::int64_t>(lru_.size()); }
  std::int64_t evictions() const { return evictions_; }

 private:
  void unlink(std::uint64_t k) {
    lru_.erase(where_[k]);
    where_.erase(k);
  }
  std::unordered_map<std::uint64_t, std::int64_t> refs_;
  std::list<std::uint64_t> lru_;
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where_;
  std::int64_t evictions_ = 0;
};
}  // namespace

TEST_CASE("the prefix cache's runs and shared chains count as one node per block would", "[engine][prefix]") {
  // 40 requests over 3 shared prefixes (0-24 blocks: a system prompt, a shared
  // chain) followed by 0-12 blocks of their own (runs); a quarter of them say
  // nothing about uniqueness (per-block entries, mixed with the others' chains).
  // Each request in turn is admitted (a match cut by a random limit: runs and
  // chains get split, chains also while others hold them), has a random longer
  // part of its prompt registered (reviving or splitting what it still has
  // cached), is released (finish or preemption) and comes back later; evictions
  // of random depth in between cut runs and chains from their end. Every count,
  // and every later match (which shows which blocks are still cached), must be
  // the per-block cache's.
  RandomStream rng(23, "runs");
  std::vector<std::vector<std::uint64_t>> prefixes(3);
  for (auto& p : prefixes)
    for (std::int64_t i = 0, n = rng.uniform_int(0, 24); i < n; ++i) p.push_back(rng.next_u64());
  struct Req {
    std::vector<std::uint64_t> h;
    std::int64_t group = 0, unique_from = 0, held = -1;  // held: blocks referenced, -1 when none
    std::vector<PrefixCache::Handle> nodes;
  };
  std::vector<Req> reqs(40);
  for (Req& r : reqs) {
    r.group = rng.uniform_int(0, 2);
    r.h = prefixes[static_cast<std::size_t>(r.group)];
    r.unique_from = rng.uniform_int(0, 3) == 0 ? PrefixCache::kNoUnique : static_cast<std::int64_t>(r.h.size());
    for (std::int64_t i = 0, n = rng.uniform_int(0, 12); i < n; ++i) r.h.push_back(rng.next_u64());
  }
  PrefixCache flat;
  PerBlockCache ref;
  std::int64_t splits_seen = 0, pinned_cuts = 0;
  for (int op = 0; op < 60000; ++op) {
    Req& r = reqs[static_cast<std::size_t>(rng.uniform_int(0, 39))];
    const auto size = static_cast<std::int64_t>(r.h.size());
    const auto shared = static_cast<std::int64_t>(prefixes[static_cast<std::size_t>(r.group)].size());
    const std::int64_t kind = rng.uniform_int(0, 3);
    if (kind == 3) {
      const std::int64_t keep = rng.uniform_int(0, flat.evictable());
      flat.shrink_to(keep);
      ref.shrink_to(keep);
    } else if (r.held < 0) {  // admission
      const std::int64_t limit = rng.uniform_int(0, size);
      const PrefixCache::Pinned a = flat.match_acquire(r.h, limit, &r.nodes);
      const PrefixCache::Pinned b = ref.match_acquire(r.h, limit);
      REQUIRE(a.matched == b.matched);
      REQUIRE(a.revived == b.revived);
      // Stopped by the limit inside the request's own cached blocks: a run was cut.
      if (a.matched == limit && limit > r.unique_from && ref.match(r.h, size) > limit) ++splits_seen;
      // Stopped by the limit inside the system prompt while another request holds more of it.
      if (a.matched == limit && limit < shared)
        for (const Req& o : reqs)
          if (&o != &r && o.group == r.group && o.held > limit) {
            ++pinned_cuts;
            break;
          }
      r.held = a.matched;
    } else if (kind == 0) {  // prefill done: blocks [held, n) registered
      const std::int64_t n = rng.uniform_int(r.held, size);
      const PrefixCache::Registered a = flat.add(r.h, r.held, n, &r.nodes, r.unique_from);
      const PrefixCache::Registered b = ref.add(r.h, r.held, n);
      REQUIRE(a.fresh == b.fresh);
      REQUIRE(a.duplicate == b.duplicate);
      REQUIRE(a.revived == b.revived);
      r.held = n;
    } else {  // finished or preempted
      REQUIRE(flat.release_nodes(r.nodes) == ref.release(r.h, r.held));
      r.nodes.clear();
      r.held = -1;
    }
    REQUIRE(flat.pinned() == ref.pinned());
    REQUIRE(flat.evictable() == ref.evictable());
    REQUIRE(flat.evictions() == ref.evictions());
    const Req& probe = reqs[static_cast<std::size_t>(rng.uniform_int(0, 39))];
    REQUIRE(flat.match(probe.h, static_cast<std::int64_t>(probe.h.size())) ==
            ref.match(probe.h, static_cast<std::int64_t>(probe.h.size())));
  }
  CHECK(flat.evictions() > 10000);  // the sequence did exercise eviction,
  CHECK(splits_seen > 100);         // matches that cut a run,
  CHECK(pinned_cuts > 100);         // and ones that cut a chain others held
}

TEST_CASE("a shared system prompt is one node: pinned and released with one reference", "[engine][prefix]") {
  // Requests of one group: a 64-block system prompt, then 3 blocks of their own.
  // The first registers all 67 blocks as two nodes (the chain, its run); each
  // later one matches the chain as one node (one handle) and its own run, and
  // releasing puts the chain back as one LRU entry whose tail goes first.
  PrefixCache cache;
  std::vector<std::uint64_t> prompt(64);
  for (std::size_t i = 0; i < prompt.size(); ++i) prompt[i] = 1000 + i;
  std::vector<std::uint64_t> a = prompt, b = prompt;
  for (std::uint64_t i = 0; i < 3; ++i) {
    a.push_back(2000 + i);
    b.push_back(3000 + i);
  }
  std::vector<PrefixCache::Handle> ha, hb;
  const PrefixCache::Registered ra = cache.add(a, 0, 67, &ha, 64);
  CHECK(ra.fresh == 67);
  CHECK(ha.size() == 2);  // chain [0, 64) and run [64, 67)
  const PrefixCache::Pinned pb = cache.match_acquire(b, 66, &hb);
  CHECK(pb.matched == 64);  // b's own blocks are not cached
  CHECK(pb.revived == 0);   // a holds the chain
  CHECK(hb.size() == 1);
  CHECK(cache.add(b, 64, 67, &hb, 64).fresh == 3);
  CHECK(cache.pinned() == 64 + 3 + 3);
  CHECK(cache.release_nodes(ha) == 3);       // a's run; the chain is still b's
  CHECK(cache.release_nodes(hb) == 64 + 3);  // b's run, then the chain (newest)
  cache.shrink_to(60);  // of 70 evictable: a's run (3), b's run (3), the chain's last 4 blocks
  CHECK(cache.evictions() == 10);
  CHECK(cache.match(b, 67) == 60);
  // A request that may take only 10 blocks splits the evictable chain: 10 pinned.
  std::vector<PrefixCache::Handle> hc;
  CHECK(cache.match_acquire(b, 10, &hc).revived == 10);
  CHECK(cache.evictable() == 50);
}

TEST_CASE("PromptBlockHashes gives prompt_block_hashes' hashes", "[workload][prefix]") {
  // Groups inside and past the memo (4096), none (-1), prompts shorter and longer
  // than their system prompt, block sizes that do and do not divide it: the memo
  // must never change a hash, whatever it remembered before.
  RandomStream rng(31, "prompt hashes");
  PromptBlockHashes memo;
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t group = rng.uniform_int(0, 9) == 0 ? -1 : rng.uniform_int(0, 9) == 0 ? 5000 : rng.uniform_int(0, 5);
    const auto block = static_cast<std::int32_t>(rng.uniform_int(0, 2) == 0 ? 48 : 16);
    const std::int64_t prefix = rng.uniform_int(0, 1200), total = rng.uniform_int(0, 3000);
    const auto kind = rng.uniform_int(0, 1) == 0 ? HashOwner::request : HashOwner::session;
    const auto owner = static_cast<std::uint64_t>(rng.uniform_int(0, 100));
    REQUIRE(memo(total, block, group, prefix, kind, owner) == prompt_block_hashes(total, block, group, prefix, kind, owner));
  }
}

namespace {
// A request of the synthetic workload's per-request questions as SyntheticSource
// makes it: the system prompt's first id stored, every other id implied (or, with
// no full system-prompt block, every id stored).
Request implied_request(std::int64_t id, std::int64_t total, std::int32_t block, std::int64_t group,
                        std::int64_t prefix) {
  Request r;
  r.id = id;
  r.input_tokens = total;
  r.hash_block_tokens = block;
  if (!imply_prompt_ids(r, group, prefix))
    r.block_hashes = prompt_block_hashes(total, block, group, prefix, HashOwner::request, static_cast<std::uint64_t>(id));
  return r;
}
}  // namespace

TEST_CASE("implied ids read as the stored list, and materialise into it", "[workload][prefix]") {
  // Small and large groups, prompts shorter and longer than their system prompt,
  // block sizes that do and do not divide it. The reference is
  // prompt_block_hashes, every id written.
  RandomStream rng(37, "implied ids");
  int implied = 0, system_only = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t group = rng.uniform_int(0, 9) == 0 ? 5000 : rng.uniform_int(0, 5);
    const auto block = static_cast<std::int32_t>(rng.uniform_int(0, 2) == 0 ? 48 : 16);
    const std::int64_t prefix = rng.uniform_int(0, 1200), total = rng.uniform_int(0, 3000);
    const auto id = rng.uniform_int(0, 100000);
    const std::vector<std::uint64_t> want =
        prompt_block_hashes(total, block, group, prefix, HashOwner::request, static_cast<std::uint64_t>(id));
    Request r = implied_request(id, total, block, group, prefix);
    const std::int64_t shared = std::min(total / block, prefix / block);  // full system-prompt blocks
    if (shared <= 0) {  // nothing to name: every id stored, none implied
      REQUIRE(r.block_hashes == want);
      REQUIRE_FALSE(r.own_ids_implied);
      REQUIRE_FALSE(r.system_ids_implied);
      continue;
    }
    // Only the system prompt's name is stored; its own ids start after the system prompt's.
    REQUIRE(r.block_hashes == std::vector<std::uint64_t>{want[0]});
    REQUIRE(r.unique_hashes_from == shared);
    REQUIRE(r.system_ids_implied == (shared > 1));
    REQUIRE(r.own_ids_implied == (shared < static_cast<std::int64_t>(want.size())));
    implied += r.own_ids_implied ? 1 : 0;
    system_only += r.own_ids_implied ? 0 : 1;
    const PromptIds ids(r);
    REQUIRE(ids.size() == want.size());
    for (std::size_t j = 0; j < want.size(); ++j) REQUIRE(ids[j] == want[j]);
    REQUIRE(ids.to_vector() == want);
    materialize_block_ids(r);
    CHECK_FALSE(r.own_ids_implied);
    CHECK_FALSE(r.system_ids_implied);
    REQUIRE(r.block_hashes == want);
    REQUIRE(PromptIds(r).to_vector() == want);
  }
  CHECK(implied > 1000);     // most draws have both a full system-prompt block and ids of their own
  CHECK(system_only > 100);  // and some are all system prompt (the prompt ends inside it)
}

TEST_CASE("prefix_hash_unmix inverts prefix_hash_mix", "[workload][prefix]") {
  // The finaliser is a bijection; its inverse gives back every input (edge words and random ones).
  RandomStream rng(43, "unmix");
  for (std::uint64_t z : {0ULL, 1ULL, ~0ULL, 0x9e3779b97f4a7c15ULL, 1ULL << 63}) {
    REQUIRE(prefix_hash_unmix(prefix_hash_mix(z)) == z);
    REQUIRE(prefix_hash_mix(prefix_hash_unmix(z)) == z);
  }
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t z = (static_cast<std::uint64_t>(rng.uniform_int(0, (1LL << 62) - 1)) << 2) ^
                            static_cast<std::uint64_t>(rng.uniform_int(0, 3));
    REQUIRE(prefix_hash_unmix(prefix_hash_mix(z)) == z);
  }
  // A system prompt's first id names its base: prefix_owner_id(base, 0) = prefix_hash_mix(base).
  const std::uint64_t base = prefix_owner_base(HashOwner::group, 7);
  CHECK(prefix_hash_unmix(prefix_block_hash(HashOwner::group, 7, 0)) == base);
}

TEST_CASE("BlockHashChains on implied own ids gives the stored list's hashes", "[engine][prefix]") {
  // As the engine asks (batch_state.cpp): the first blocks up to the first unique
  // one, then all of them, the system prompt named by its first id; id blocks of
  // 16 and 32 tokens under engine blocks of 16 and 48.
  RandomStream rng(41, "implied chains");
  for (std::int32_t idb : {16, 32}) {
    for (std::int64_t bs : {16, 48}) {
      BlockHashChains chains;
      std::vector<std::uint64_t> got;
      for (int i = 0; i < 400; ++i) {
        const std::int64_t group = rng.uniform_int(0, 3), prefix = 32 * rng.uniform_int(1, 30);
        const std::int64_t total = prefix + rng.uniform_int(1, 1500);
        Request r = implied_request(i, total, idb, group, prefix);
        if (!r.own_ids_implied) continue;
        const std::vector<std::uint64_t> ids =
            prompt_block_hashes(total, idb, group, prefix, HashOwner::request, static_cast<std::uint64_t>(i));
        const std::vector<std::uint64_t> want = engine_block_hashes(ids, idb, total, bs);
        REQUIRE(engine_block_count(PromptIds(r), idb, total, bs) == static_cast<std::int64_t>(want.size()));
        const std::int64_t first = rng.uniform_int(0, static_cast<std::int64_t>(want.size()));
        chains.hashes(PromptIds(r), idb, total, bs, got, first, r.unique_hashes_from);
        REQUIRE(got == std::vector<std::uint64_t>(want.begin(), want.begin() + first));
        chains.hashes(PromptIds(r), idb, total, bs, got, std::numeric_limits<std::int64_t>::max(), r.unique_hashes_from);
        REQUIRE(got == want);
      }
    }
  }
}

TEST_CASE("conversation runs shared by overlapping turns and cut past a shorter turn's end count as one node per block would",
          "[engine][prefix]") {
  // Conversations as the multi-turn workload makes them (Request::extended_later):
  // a system prompt of one of 2 groups (0-16 blocks, a shared chain), then the
  // conversation's own blocks; turn k's prompt is the conversation's first L_k
  // blocks, L_k growing with k, and the hashes a turn carries go one block past its
  // prompt (the next block of its conversation, as its later turns have it). Turns
  // of one conversation are admitted, registered, released and evicted in random
  // order, so later turns hold and extend runs an earlier turn registered, and an
  // earlier turn comes back to runs a later one registered past its own end (the
  // cut at its last block needs the hash one past it). Every count and every
  // match must be the per-block cache's, which sees only the prompts' blocks.
  RandomStream rng(31, "conversation runs");
  std::vector<std::vector<std::uint64_t>> systems(2);
  for (auto& p : systems)
    for (std::int64_t i = 0, n = rng.uniform_int(0, 16); i < n; ++i) p.push_back(rng.next_u64());
  struct Turn {
    std::vector<std::uint64_t> h;  // the prompt's hashes and one more
    std::int64_t blocks = 0, unique_from = 0, held = -1;
    std::vector<PrefixCache::Handle> nodes;
  };
  std::vector<Turn> turns;
  for (int c = 0; c < 12; ++c) {
    const std::vector<std::uint64_t>& sys = systems[static_cast<std::size_t>(rng.uniform_int(0, 1))];
    std::vector<std::uint64_t> conv = sys;
    for (int i = 0; i < 60; ++i) conv.push_back(rng.next_u64());
    std::int64_t len = static_cast<std::int64_t>(sys.size());
    for (int k = 0; k < 4; ++k) {
      len = std::min<std::int64_t>(len + rng.uniform_int(1, 12), static_cast<std::int64_t>(conv.size()) - 1);
      Turn t;
      t.blocks = len;
      t.h.assign(conv.begin(), conv.begin() + len + 1);
      t.unique_from = static_cast<std::int64_t>(sys.size());
      turns.push_back(std::move(t));
    }
  }
  PrefixCache flat;
  PerBlockCache ref;
  auto prompt = [](const Turn& t) { return std::vector<std::uint64_t>(t.h.begin(), t.h.begin() + t.blocks); };
  std::int64_t cut_past_end = 0, shared = 0;
  for (int op = 0; op < 60000; ++op) {
    Turn& t = turns[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(turns.size()) - 1))];
    const std::vector<std::uint64_t> p = prompt(t);
    const std::int64_t kind = rng.uniform_int(0, 3);
    if (kind == 3) {
      const std::int64_t keep = rng.uniform_int(0, flat.evictable());
      flat.shrink_to(keep);
      ref.shrink_to(keep);
    } else if (t.held < 0) {  // admission: at most the prompt's blocks, often all of them
      const std::int64_t limit = rng.uniform_int(0, 1) == 0 ? t.blocks : rng.uniform_int(0, t.blocks);
      // A run reaching past this prompt's end, cut at it: the case the extra hash is for.
      if (limit == t.blocks && ref.match(t.h, t.blocks + 1) > t.blocks && flat.match(p, t.blocks) == t.blocks) ++cut_past_end;
      const PrefixCache::Pinned a = flat.match_acquire(t.h, limit, &t.nodes);
      const PrefixCache::Pinned b = ref.match_acquire(p, limit);
      REQUIRE(a.matched == b.matched);
      REQUIRE(a.revived == b.revived);
      t.held = a.matched;
    } else if (kind == 0) {  // prefill done: blocks [held, n) registered
      const std::int64_t n = rng.uniform_int(0, 1) == 0 ? t.blocks : rng.uniform_int(t.held, t.blocks);
      const PrefixCache::Registered a = flat.add(t.h, t.held, n, &t.nodes, t.unique_from);
      const PrefixCache::Registered b = ref.add(p, t.held, n);
      REQUIRE(a.fresh == b.fresh);
      REQUIRE(a.duplicate == b.duplicate);
      REQUIRE(a.revived == b.revived);
      shared += a.duplicate > 0 ? 1 : 0;
      t.held = n;
    } else {  // finished or preempted
      REQUIRE(flat.release_nodes(t.nodes) == ref.release(p, t.held));
      t.nodes.clear();
      t.held = -1;
    }
    REQUIRE(flat.pinned() == ref.pinned());
    REQUIRE(flat.evictable() == ref.evictable());
    REQUIRE(flat.evictions() == ref.evictions());
    const Turn& probe = turns[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(turns.size()) - 1))];
    REQUIRE(flat.match(prompt(probe), probe.blocks) == ref.match(prompt(probe), probe.blocks));
  }
  CHECK(flat.evictions() > 10000);
  CHECK(cut_past_end > 100);  // earlier turns took their part of later turns' runs
  CHECK(shared > 100);        // and turns registered blocks others held
}
