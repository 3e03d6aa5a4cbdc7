// SlotCalendar (core/slot_calendar.h): a fleet's replicas' step ends, one pending per
// replica, interleaved with the event heap through MergedEvents.
#include <catch2/catch.hpp>

#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "core/event_queue.h"
#include "core/rng.h"
#include "core/slot_calendar.h"

using servesim::Event;
using servesim::EventQueue;
using servesim::MergedEvents;
using servesim::Nanos;
using servesim::SlotCalendar;

TEST_CASE("slot calendar: one pending event per slot, set replaces, heap and slots pop in one order",
          "[event_queue][slots]") {
  // Three slots. Slot 1 is set at 40, then replaced by 20 (a run cut short): the
  // replaced event never pops. The heap's arrival at 20 (priority -1) comes before slot
  // 1's at 20 (priority 0); slot 2's at 20 (priority 0) was set after slot 1's
  // replacement, so it comes after it (seq).
  EventQueue heap;
  SlotCalendar slots(3);
  MergedEvents q(heap, slots);
  REQUIRE(q.empty());
  slots.set(heap, 1, 40, 0, 7, 1);
  const auto s1 = slots.set(heap, 1, 20, 0, 7, 1);  // replaces the 40
  heap.push(20, -1, 3, 100);
  const auto s2 = slots.set(heap, 2, 20, 0, 7, 2);
  slots.set(heap, 0, 10, 0, 7, 0);
  REQUIRE(q.size() == 4);  // three slots pending, one heap event
  REQUIRE(slots.pending(1));
  REQUIRE(q.top_time() == 10);
  std::vector<std::int64_t> order;
  std::vector<std::uint64_t> seqs;
  while (!q.empty()) {
    const Event e = q.pop();
    order.push_back(e.data);
    seqs.push_back(e.seq);
    REQUIRE(e.kind == (e.data == 100 ? 3 : 7));
  }
  REQUIRE(order == std::vector<std::int64_t>{0, 100, 1, 2});
  REQUIRE(seqs[2] == s1);
  REQUIRE(seqs[3] == s2);
  REQUIRE_FALSE(slots.pending(1));
  REQUIRE_THROWS(slots.pop());
  REQUIRE_THROWS(slots.set(heap, 3, 5, 0, 0, 0));         // no slot 3
  REQUIRE_THROWS(slots.set(heap, 0, 5, 128, 0, 0));       // priority outside -128..127, as push
  REQUIRE_THROWS(slots.set(heap, 0, servesim::kMaxSimNanos + 1, 0, 0, 0));  // past the clock
}

TEST_CASE("slot calendar pops as push-and-skip-stale would, under random sets, pushes and pops",
          "[event_queue][slots]") {
  // The reference is the scheme the slots replace: every set is a push into a sorted
  // set, remembered as its slot's live event; a replaced one is erased (the stale
  // event that would have been skipped). 37 slots (the tree's 27 padding leaves are
  // exercised), equal times and priorities common (the tie-break by seq decides).
  servesim::RandomStream rng(12, "slot calendar");
  EventQueue heap;
  constexpr int kSlots = 37;
  SlotCalendar slots(kSlots);
  MergedEvents q(heap, slots);
  using Key = std::tuple<Nanos, int, std::uint64_t>;
  std::set<std::pair<Key, std::int64_t>> ref;  // (key, data): data >= 0 a slot, < 0 a heap event
  std::vector<std::optional<Key>> live(kSlots);
  Nanos now = 0;
  for (int op = 0; op < 200000; ++op) {
    const int choice = static_cast<int>(rng.uniform_int(0, 9));
    if (ref.empty() || choice < 4) {
      const int slot = static_cast<int>(rng.uniform_int(0, kSlots - 1));
      const Nanos t = now + rng.uniform_int(0, 40);
      const auto pr = static_cast<int>(rng.uniform_int(-1, 1));
      const std::uint64_t seq = slots.set(heap, static_cast<std::size_t>(slot), t, pr, 1, slot);
      auto& was = live[static_cast<std::size_t>(slot)];
      if (was) ref.erase({*was, slot});
      was = Key{t, pr, seq};
      ref.insert({*was, slot});
    } else if (choice < 6) {
      const Nanos t = now + rng.uniform_int(0, 40);
      const auto pr = static_cast<int>(rng.uniform_int(-1, 1));
      const std::uint64_t seq = heap.push(t, pr, 2, -1 - op);
      ref.insert({Key{t, pr, seq}, -1 - op});
    } else {
      const Event e = q.pop();
      const auto want = *ref.begin();
      REQUIRE(std::make_tuple(e.time, e.priority, e.seq) == want.first);
      REQUIRE(e.data == want.second);
      if (want.second >= 0) live[static_cast<std::size_t>(want.second)].reset();
      ref.erase(ref.begin());
      now = e.time;
    }
    REQUIRE(q.size() == ref.size());
    REQUIRE(q.empty() == ref.empty());
    if (!ref.empty()) REQUIRE(q.top_time() == std::get<0>(ref.begin()->first));
  }
}
