#pragma once
// The engine's event queue. Events leave in (time, priority, seq) order, smallest
// first: equal times are broken by priority (lower value runs first), then by
// insertion order. Every key is an integer, so a run's event order is the same on
// every platform and every rerun; no two events ever compare equal.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/sim_time.h"

namespace servesim {

struct Event {
  Nanos time = 0;          // when the event fires
  int priority = 0;        // among events at the same time, lower runs first
  std::uint64_t seq = 0;   // insertion order, assigned by the queue
  int kind = 0;            // the engine's event type (an enum cast to int)
  std::int64_t data = 0;   // payload: request id, replica index, ... per kind
};

class EventQueue {
 public:
  // Queues an event and returns the sequence number it was given.
  // A time outside the clock's range (a sum that ran past it) throws
  // servesim::Error rather than queue an event the loop could never reach.
  std::uint64_t push(Nanos time, int priority, int kind, std::int64_t data) {
    if (time > kMaxSimNanos || time < -kMaxSimNanos) throw_time_out_of_range(to_seconds(time));
    const std::uint64_t seq = next_seq_++;
    sift_up(Event{time, priority, seq, kind, data});
    return seq;
  }

  // The earliest event. Precondition: !empty().
  __attribute__((always_inline)) const Event& top() const {
    if (heap_.empty()) throw std::logic_error("EventQueue::top on an empty queue");
    return heap_.front();
  }

  // Removes and returns the earliest event. Precondition: !empty().
  Event pop() {
    const Event e = top();
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return e;
  }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

 private:
  // A binary min-heap written out (std::priority_queue's pop sifts every hole to a
  // leaf and back up; these stop where the moved event belongs). No two events
  // compare equal (seq is unique), so the pop order is the one total order
  // whatever the heap's layout.
  static bool earlier(const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.priority != b.priority) return a.priority < b.priority;
    return a.seq < b.seq;
  }
  void sift_up(const Event& e) {
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!earlier(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Places `e` (the former last event) from the root down.
  void sift_down(const Event& e) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && earlier(heap_[child + 1], heap_[child])) ++child;
      if (!earlier(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace servesim
