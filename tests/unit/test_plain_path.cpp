// The plain path's shortcuts against the obvious code they replace: the completion
// calendar (engine/finish_calendar.h) against the binary heap it took over from,
// uniform_int's kept threshold against the rejection rule computed afresh, and the
// lengths' rounding against std::llround. Any difference is a bug (the simulator's
// outputs would change).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <vector>

#include "core/rng.h"
#include "engine/finish_calendar.h"
#include "workload/length_distribution.h"

using namespace servesim;

namespace {
struct RefEntry {
  std::int64_t step, id;
  int slot;
  std::uint32_t version;
  bool operator>(const RefEntry& o) const { return step != o.step ? step > o.step : id > o.id; }
};
}  // namespace

TEST_CASE("FinishCalendar hands out what a (step, id) heap pops, removed entries skipped", "[engine]") {
  // Random joins (finish steps 1..3000 ahead: many past one 1024-bucket lap),
  // early leaves (removed from the calendar; in the heap reference, entries made
  // stale by a version, as the engine's heap did) and advances of 1..40 steps;
  // every step the earliest finish and the drained (step, id, slot) sequence must agree.
  RandomStream rng(11, "calendar");
  FinishCalendar cal;
  std::priority_queue<RefEntry, std::vector<RefEntry>, std::greater<RefEntry>> ref;
  std::vector<std::uint32_t> version(64, 0);
  std::vector<bool> decoding(64, false);
  std::vector<std::int64_t> filed_step(64, -1), filed_id(64, -1);  // what each slot was filed with
  std::int64_t g = 0, id = 0;
  int removed = 0, next_lap = 0;
  auto valid = [&](int slot, std::uint32_t v) { return decoding[static_cast<std::size_t>(slot)] && version[static_cast<std::size_t>(slot)] == v; };
  for (int round = 0; round < 20000; ++round) {
    // Joins: free slots start decoding with a new entry.
    for (int j = 0; j < 3; ++j) {
      const int slot = static_cast<int>(rng.uniform_int(0, 63));
      if (decoding[static_cast<std::size_t>(slot)]) continue;
      decoding[static_cast<std::size_t>(slot)] = true;
      const std::uint32_t v = ++version[static_cast<std::size_t>(slot)];
      const bool far = rng.uniform_int(0, 9) == 0;
      const std::int64_t step = g + 1 + (far ? rng.uniform_int(1000, 3000) : rng.uniform_int(0, 30));
      next_lap += far ? 1 : 0;
      cal.push(slot, step, id);
      filed_step[static_cast<std::size_t>(slot)] = step;
      filed_id[static_cast<std::size_t>(slot)] = id;
      ref.push(RefEntry{step, id, slot, v});
      ++id;
    }
    // An early leave (preemption): out of the calendar, stale in the heap.
    if (rng.uniform_int(0, 3) == 0) {
      const int slot = static_cast<int>(rng.uniform_int(0, 63));
      if (decoding[static_cast<std::size_t>(slot)]) {
        decoding[static_cast<std::size_t>(slot)] = false;
        ++version[static_cast<std::size_t>(slot)];
        cal.remove(slot);
        ++removed;
      }
    }
    // The earliest valid finish: the heap pops stale tops first.
    while (!ref.empty() && !valid(ref.top().slot, ref.top().version)) ref.pop();
    const std::int64_t expect = ref.empty() ? -1 : ref.top().step;
    REQUIRE(cal.earliest() == expect);
    // Advance, then finish everyone due, in order.
    g += rng.uniform_int(1, 40);
    std::vector<RefEntry> want, got;
    while (!ref.empty()) {
      const RefEntry f = ref.top();
      if (!valid(f.slot, f.version)) {
        ref.pop();
        continue;
      }
      if (f.step > g) break;
      ref.pop();
      want.push_back(f);
    }
    cal.drain(g, [&](int slot) {
      const auto i = static_cast<std::size_t>(slot);
      got.push_back(RefEntry{filed_step[i], filed_id[i], slot, 0});
      decoding[static_cast<std::size_t>(slot)] = false;
      ++version[static_cast<std::size_t>(slot)];
      cal.remove(slot);  // as the engine's leave_decode does: a no-op, drain took it out
    });
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      REQUIRE(got[i].step == want[i].step);
      REQUIRE(got[i].step <= g);
      REQUIRE(got[i].id == want[i].id);
      REQUIRE(got[i].slot == want[i].slot);
    }
  }
  CHECK(removed > 1000);
  CHECK(next_lap > 1000);
  // A finish step already drained is refused, never filed a lap late; a slot is filed once.
  REQUIRE_THROWS(cal.push(0, g, id));
  cal.push(0, g + 5, id);
  REQUIRE_THROWS(cal.push(0, g + 6, id + 1));
}

TEST_CASE("uniform_int's kept threshold gives the rejection rule's draws for alternating ranges", "[rng]") {
  // Two ranges in turn (the kept threshold is recomputed at every switch) and one
  // with a large rejection zone (n = 3 * 2^62: 2^64 mod n = 2^62, a quarter rejected).
  RandomStream a(5, "ints"), b(5, "ints");
  const std::int64_t big = std::int64_t{3} << 61;  // 1.5 * 2^62: n = 2 * big = 3 * 2^62
  for (int i = 0; i < 30000; ++i) {
    const std::int64_t lo = i % 3 == 0 ? 64 : i % 3 == 1 ? -big : 0;
    const std::int64_t hi = i % 3 == 0 ? 512 : i % 3 == 1 ? big - 1 : 6;
    const std::uint64_t n = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    const std::uint64_t threshold = (0 - n) % n;
    std::uint64_t x = 0;
    do {
      x = b.next_u64();
    } while (x < threshold);
    REQUIRE(a.uniform_int(lo, hi) == static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + x % n));
  }
}

TEST_CASE("sampled lengths round as std::llround does, halves away from zero", "[workload]") {
  // A normal spec with a fractional mean puts draws on every fraction, halves
  // included when the stddev is 0 (mean 100.5 -> 101, llround's rule).
  LengthSpec spec;
  spec.kind = LengthKind::normal;
  spec.mean = 300.25;
  spec.stddev = 120.0;
  spec.min = 1;
  spec.max = 100000;
  RandomStream a(9, "len"), b(9, "len");
  for (int i = 0; i < 50000; ++i) {
    const double x = std::clamp(b.normal(spec.mean, spec.stddev), 1.0, 100000.0);
    REQUIRE(sample_length(spec, a) == std::clamp<std::int64_t>(std::llround(x), spec.min, spec.max));
  }
  spec.stddev = 0.0;
  spec.mean = 100.5;
  REQUIRE(sample_length(spec, a) == 101);
  spec.mean = 100.49999999999999;  // a double below 100.5: rounds down
  REQUIRE(sample_length(spec, a) == 100);
}

TEST_CASE("LengthSampler draws what sample_length draws, for every kind", "[workload]") {
  // Twin streams, one per route: the same integers draw by draw (the lognormal's
  // mu and sigma kept once are the doubles lognormal() works out per draw).
  std::vector<LengthSpec> specs(5);
  specs[0].kind = LengthKind::fixed;
  specs[0].value = 77;
  specs[1].kind = LengthKind::uniform;
  specs[1].min = 64;
  specs[1].max = 512;
  specs[2].kind = LengthKind::normal;
  specs[2].mean = 512;
  specs[2].stddev = 128;
  specs[3].kind = LengthKind::lognormal;
  specs[3].mean = 1024;
  specs[3].stddev = 512;
  specs[3].max = 8192;
  specs[4].kind = LengthKind::exponential;
  specs[4].mean = 256;
  for (const LengthSpec& spec : specs) {
    INFO(describe_length(spec));
    const LengthSampler sampler(spec);
    RandomStream a(21, "lengths"), b(21, "lengths");
    for (int i = 0; i < 20000; ++i) REQUIRE(sampler(a) == sample_length(spec, b));
  }
}
