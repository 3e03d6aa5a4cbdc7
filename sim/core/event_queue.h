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

// An event's ordering key (see EventQueue::Node): a GCC/Clang 128-bit integer, named
// once under __extension__ so -Wpedantic does not flag each use.
__extension__ typedef unsigned __int128 EventKey;

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
  // Priorities are -128..127 and a run queues fewer than 2^56 events.
  std::uint64_t push(Nanos time, int priority, int kind, std::int64_t data) {
    if (time > kMaxSimNanos || time < -kMaxSimNanos) throw_time_out_of_range(to_seconds(time));
    if (priority < -128 || priority > 127) throw std::logic_error("EventQueue::push: priority outside -128..127");
    const std::uint64_t seq = next_seq_++;
    sift_up(Node{static_cast<std::uint64_t>(time) ^ kSignBit,
                 (static_cast<std::uint64_t>(priority + 128) << kSeqBits) | seq, data, kind});
    return seq;
  }

  // The earliest event. Precondition: !empty().
  Event top() const {
    check_not_empty();
    return event_of(heap_.front());
  }
  // top().time alone (the event loop's horizon, asked every step).
  __attribute__((always_inline)) Nanos top_time() const {
    check_not_empty();
    return static_cast<Nanos>(heap_.front().time ^ kSignBit);
  }

  // Removes and returns the earliest event. Precondition: !empty().
  Event pop() {
    check_not_empty();
    const Event e = event_of(heap_.front());
    const Node last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return e;
  }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

  // For events kept beside the heap (SlotCalendar, core/slot_calendar.h) that must
  // interleave with its own in the one (time, priority, seq) order: a sequence number
  // from the same counter, the key the heap compares, and an event from a key.
  std::uint64_t take_seq() { return next_seq_++; }
  EventKey top_key() const {
    check_not_empty();
    return key(heap_.front());
  }
  // Checks time and priority as push() does.
  static EventKey key_of(Nanos time, int priority, std::uint64_t seq) {
    if (time > kMaxSimNanos || time < -kMaxSimNanos) throw_time_out_of_range(to_seconds(time));
    if (priority < -128 || priority > 127) throw std::logic_error("EventQueue: priority outside -128..127");
    return key(Node{static_cast<std::uint64_t>(time) ^ kSignBit,
                    (static_cast<std::uint64_t>(priority + 128) << kSeqBits) | seq, 0, 0});
  }
  static Event event_of_key(EventKey k, int kind, std::int64_t data) {
    return event_of(Node{static_cast<std::uint64_t>(k >> 64), static_cast<std::uint64_t>(k), data, kind});
  }

 private:
  // An event as the heap keeps it: the three keys in two words, compared as one
  // 128-bit number (time with its sign bit flipped, so unsigned order is signed
  // order; then priority + 128 in the top byte of the second word and the
  // sequence number below it). With many replicas the heap holds one step end
  // each, and the pop's sift picks a child by a comparison that is a coin toss
  // for the branch predictor; one wide compare lets the compiler pick it without
  // a branch, where three fields compared in turn took two or three.
  static constexpr int kSeqBits = 56;
  static constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;
  struct Node {
    std::uint64_t time;   // Nanos ^ kSignBit
    std::uint64_t order;  // (priority + 128) << 56 | seq
    std::int64_t data;
    int kind;
  };
  static EventKey key(const Node& n) {
    return (static_cast<EventKey>(n.time) << 64) | n.order;
  }
  static Event event_of(const Node& n) {
    return Event{static_cast<Nanos>(n.time ^ kSignBit), static_cast<int>(n.order >> kSeqBits) - 128,
                 n.order & ((std::uint64_t{1} << kSeqBits) - 1), n.kind, n.data};
  }
  __attribute__((always_inline)) void check_not_empty() const {
    if (heap_.empty()) throw std::logic_error("EventQueue::top on an empty queue");
  }

  // A binary min-heap written out (std::priority_queue's pop sifts every hole to a
  // leaf and back up; these stop where the moved event belongs). No two events
  // compare equal (seq is unique), so the pop order is the one total order
  // whatever the heap's layout.
  void sift_up(const Node& e) {
    std::size_t i = heap_.size();
    heap_.push_back(e);
    const EventKey k = key(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (k >= key(heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Places `e` (the former last event) from the root down.
  void sift_down(const Node& e) {
    const std::size_t n = heap_.size();
    const EventKey k = key(e);
    std::size_t i = 0;
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n) child += key(heap_[child + 1]) < key(heap_[child]) ? 1 : 0;
      if (key(heap_[child]) >= k) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  std::vector<Node> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace servesim
