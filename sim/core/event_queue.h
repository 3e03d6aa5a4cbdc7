#pragma once
// The engine's event queue. Events leave in (time, priority, seq) order, smallest
// first: equal times are broken by priority (lower value runs first), then by
// insertion order. Every key is an integer, so a run's event order is the same on
// every platform and every rerun; no two events ever compare equal.
#include <cstdint>
#include <queue>
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
    heap_.push(Event{time, priority, seq, kind, data});
    return seq;
  }

  // The earliest event. Precondition: !empty().
  __attribute__((always_inline)) const Event& top() const {
    if (heap_.empty()) throw std::logic_error("EventQueue::top on an empty queue");
    return heap_.top();
  }

  // Removes and returns the earliest event. Precondition: !empty().
  Event pop() {
    Event e = top();
    heap_.pop();
    return e;
  }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

 private:
  // std::priority_queue keeps the *largest* on top, so "later" is "less".
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time != b.time) return a.time > b.time;
      if (a.priority != b.priority) return a.priority > b.priority;
      return a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace servesim
