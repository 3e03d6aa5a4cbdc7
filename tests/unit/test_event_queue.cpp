#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

#include "core/rng.h"

#include "core/event_queue.h"
#include "core/sim_time.h"
#include "util/error.h"

using servesim::Event;
using servesim::EventQueue;
using servesim::Nanos;
using servesim::to_nanos;
using servesim::kMaxSimNanos;
using servesim::kMaxSimSeconds;

TEST_CASE("event queue orders by time, then priority, then insertion", "[event_queue]") {
  EventQueue q;
  // Pushed deliberately out of order; `data` records the expected pop position.
  q.push(30, 0, 1, 5);
  q.push(10, 1, 1, 2);  // same time as the next two, higher priority value: later
  q.push(10, 0, 1, 0);
  q.push(10, 0, 2, 1);  // same (time, priority) as the previous: insertion order
  q.push(20, -5, 1, 3);
  q.push(20, -5, 1, 4);
  REQUIRE(q.size() == 6);
  REQUIRE(q.top().data == 0);

  std::vector<std::int64_t> order;
  while (!q.empty()) order.push_back(q.pop().data);
  REQUIRE(order == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("event queue assigns increasing sequence numbers and keeps payloads", "[event_queue]") {
  EventQueue q;
  const auto s0 = q.push(5, 0, 7, -42);
  const auto s1 = q.push(5, 0, 8, 99);
  REQUIRE(s1 == s0 + 1);
  const Event a = q.pop();
  REQUIRE(a.time == 5);
  REQUIRE(a.seq == s0);
  REQUIRE(a.kind == 7);
  REQUIRE(a.data == -42);
  REQUIRE(q.pop().kind == 8);
  REQUIRE(q.empty());
  REQUIRE_THROWS(q.top());
  REQUIRE_THROWS(q.top_time());
  REQUIRE_THROWS(q.pop());
  // The heap keeps the priority in one byte (-128..127): others are refused, not wrapped.
  REQUIRE_THROWS(q.push(1, 128, 0, 0));
  REQUIRE_THROWS(q.push(1, -129, 0, 0));
  // Times of either sign and the extremes of the clock keep their order.
  q.push(kMaxSimNanos, 127, 0, 3);
  q.push(-kMaxSimNanos, -128, 0, 0);
  q.push(0, 127, 0, 2);
  q.push(0, -128, 0, 1);
  for (std::int64_t want = 0; want < 4; ++want) {
    REQUIRE(q.top_time() == q.top().time);
    REQUIRE(q.pop().data == want);
  }
}

TEST_CASE("event queue interleaves pushes and pops like a simulation loop", "[event_queue]") {
  // Each popped event at time t schedules two more at t+3 (priority 1) and t+3
  // (priority 0); the priority-0 one, though pushed second, must come out first.
  EventQueue q;
  q.push(0, 0, 0, 0);
  std::vector<std::pair<servesim::Nanos, int>> seen;
  while (!q.empty() && seen.size() < 7) {
    const Event e = q.pop();
    seen.emplace_back(e.time, e.priority);
    if (e.time < 6) {
      q.push(e.time + 3, 1, 0, 0);
      q.push(e.time + 3, 0, 0, 0);
    }
  }
  REQUIRE(seen.front() == std::make_pair<servesim::Nanos, int>(0, 0));
  for (std::size_t i = 1; i < seen.size(); ++i) REQUIRE(seen[i - 1] <= seen[i]);
  REQUIRE(seen[1] == std::make_pair<servesim::Nanos, int>(3, 0));
  REQUIRE(seen[2] == std::make_pair<servesim::Nanos, int>(3, 1));
}

TEST_CASE("event queue pops in the order of a sorted reference under random pushes and pops", "[event_queue]") {
  // Queue sizes from 0 to a few hundred (the heap's levels fill and empty), many
  // equal times and priorities (the tie-break by insertion order decides), pops
  // and pushes interleaved. The reference is a std::set of (time, priority, seq).
  servesim::RandomStream rng(11, "event queue");
  EventQueue q;
  std::set<std::tuple<Nanos, int, std::uint64_t>> ref;
  for (int op = 0; op < 200000; ++op) {
    const bool grow = (op / 5000) % 2 == 0;  // phases that fill and drain the queue
    if (ref.empty() || rng.uniform_int(0, 9) < (grow ? 6 : 3)) {
      const Nanos t = rng.uniform_int(0, 50);
      const auto pr = static_cast<int>(rng.uniform_int(-1, 1));
      const std::uint64_t seq = q.push(t, pr, 0, static_cast<std::int64_t>(op));
      ref.emplace(t, pr, seq);
    } else {
      const Event e = q.pop();
      REQUIRE(std::make_tuple(e.time, e.priority, e.seq) == *ref.begin());
      ref.erase(ref.begin());
    }
    REQUIRE(q.size() == ref.size());
    REQUIRE(q.empty() == ref.empty());
    if (!ref.empty()) {
      // top() and top_time() name the earliest event after every push and pop (the
      // loop reads top_time() as its horizon between them).
      const Event t = q.top();
      REQUIRE(std::make_tuple(t.time, t.priority, t.seq) == *ref.begin());
      REQUIRE(q.top_time() == t.time);
    }
  }
}

TEST_CASE("to_nanos rounds half away from zero exactly as llround", "[core]") {
  // The inline rounding (truncate, then compare the exact remainder with 0.5) must
  // agree with std::llround everywhere, ties and negatives included.
  const double values[] = {0.0,       1e-9,     0.5e-9,   1.5e-9,    2.5e-9,    -0.5e-9,  -2.5e-9,
                           0.4999999999999999e-9, 0.0123456789, 1234.5678901234, 86400.0 * 365, -3.7e-6,
                           9.99999999e8,  -9.99999999e8};
  for (double s : values) {
    INFO(s);
    CHECK(to_nanos(s) == static_cast<Nanos>(std::llround(s * 1e9)));
  }
  // Every tie k + 0.5 ns for small k, both signs.
  for (int k = -50; k <= 50; ++k) {
    const double s = (k + 0.5) * 1e-9;
    CHECK(to_nanos(s) == static_cast<Nanos>(std::llround(s * 1e9)));
  }
}

TEST_CASE("the clock refuses times outside +/-1e9 s instead of wrapping", "[core][limits]") {
  // Old to_nanos sent 1e10 s (1e19 ns, past INT64_MAX = 9.22e18) to llround, which
  // returned INT64_MIN: a think time of 1e10 s put the next turn 292 years *before*
  // t = 0 and the event loop never finished. Now it is an error naming the limit.
  CHECK(to_nanos(kMaxSimSeconds) == kMaxSimNanos);  // 1e9 s * 1e9 ns/s = 1e18 ns, exact
  CHECK(to_nanos(-kMaxSimSeconds) == -kMaxSimNanos);
  for (double s : {1e10, -1e10, 1.000001e9, std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()}) {
    INFO(s);
    CHECK_THROWS_AS(to_nanos(s), servesim::Error);
    CHECK_THROWS_WITH(to_nanos(s), Catch::Contains("outside servesim's clock range of +/-1e+09 s"));
  }
  // An event past the range (a time plus a duration that ran over) is refused too.
  EventQueue q;
  CHECK_NOTHROW(q.push(kMaxSimNanos, 0, 0, 0));
  CHECK_THROWS_AS(q.push(kMaxSimNanos + 1, 0, 0, 0), servesim::Error);
  CHECK(q.size() == 1);
}
