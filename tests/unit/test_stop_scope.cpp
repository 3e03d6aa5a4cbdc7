// A caller's own stop request (util/interrupt.h StopScope): the Python module sets
// it when Ctrl-C reaches the thread that made a call, and only that call stops;
// another thread's work, with no scope or a scope of its own, goes on. parallel_for
// carries the caller's flag into its worker threads (a sweep's points stop too).
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "planning/sweep.h"
#include "util/interrupt.h"

using namespace servesim;

TEST_CASE("a StopScope's flag interrupts its own thread only", "[interrupt]") {
  std::atomic<bool> stop{false};
  REQUIRE(current_stop_flag() == nullptr);
  {
    const StopScope scope(&stop);
    CHECK(current_stop_flag() == &stop);
    CHECK_FALSE(interrupt_requested());
    stop = true;
    CHECK(interrupt_requested());
    CHECK_THROWS_AS(throw_if_interrupted(), Interrupted);
    // Another thread, without a scope, is not stopped by this caller's flag.
    bool other_sees_it = true;
    std::thread([&] { other_sees_it = interrupt_requested(); }).join();
    CHECK_FALSE(other_sees_it);
  }
  // The scope ended: the flag no longer counts here either.
  CHECK(current_stop_flag() == nullptr);
  CHECK_FALSE(interrupt_requested());
}

TEST_CASE("StopScopes nest and restore the outer flag", "[interrupt]") {
  std::atomic<bool> outer{false}, inner{true};
  const StopScope a(&outer);
  {
    const StopScope b(&inner);
    CHECK(interrupt_requested());
    const StopScope none(nullptr);  // a null flag adds nothing
    CHECK_FALSE(interrupt_requested());
  }
  CHECK(current_stop_flag() == &outer);
  CHECK_FALSE(interrupt_requested());
}

TEST_CASE("parallel_for's workers see the caller's stop flag", "[interrupt]") {
  std::atomic<bool> stop{true};
  const StopScope scope(&stop);
  std::atomic<int> seen{0};
  // 4 threads, 8 items: every item runs on a worker thread (not the caller) and sees
  // the flag; none throws, so all 8 run.
  planning::parallel_for(8, 4, [&](std::size_t) {
    if (interrupt_requested()) ++seen;
  });
  CHECK(seen == 8);
  // And a worker that polls stops the loop with Interrupted, rethrown to the caller.
  CHECK_THROWS_AS(planning::parallel_for(8, 4, [](std::size_t) { throw_if_interrupted(); }), Interrupted);
}
