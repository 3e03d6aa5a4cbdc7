#pragma once
// Events that belong to one of n owners, at most one pending per owner: a fleet's
// replicas' step ends. Setting an owner's event replaces its pending one. In the
// event heap alone, a replica whose run an arrival cut short left its old end event
// behind, to be popped and skipped: at fleet scale nearly every request did, and every
// pop of the heap sifted through all those entries and every replica's live one.
//
// A winner tree: leaves are the slots, each inner node names the slot of its subtree's
// earliest event, so setting a slot replays log2(n) matches on its path and the
// earliest is at the root. Keys and sequence numbers are the EventQueue's own
// (EventQueue::key_of, take_seq), so the two pop in the one (time, priority, seq)
// order that pushing every event into the heap would give, less the skipped ones.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/event_queue.h"

namespace servesim {

class SlotCalendar {
 public:
  explicit SlotCalendar(std::size_t n) : count_(n) {
    while (leaves_ < n) leaves_ *= 2;
    key_.assign(leaves_, kEmpty);
    who_.assign(2 * leaves_, 0);
    for (std::size_t i = 0; i < leaves_; ++i) who_[leaves_ + i] = static_cast<std::uint32_t>(i);
    for (std::size_t i = leaves_ - 1; i >= 1; --i) who_[i] = who_[2 * i];
    payload_.assign(n, Payload{});
  }

  // Sets slot `slot`'s event (its sequence number drawn from `seqs`), replacing a
  // pending one; returns the sequence number.
  std::uint64_t set(EventQueue& seqs, std::size_t slot, Nanos time, int priority, int kind, std::int64_t data) {
    if (slot >= count_) throw std::logic_error("SlotCalendar::set: no such slot");
    const std::uint64_t seq = seqs.take_seq();
    const EventKey k = EventQueue::key_of(time, priority, seq);
    if (key_[slot] == kEmpty) ++pending_;
    payload_[slot] = Payload{data, kind};
    update(slot, k);
    return seq;
  }
  bool pending(std::size_t slot) const { return slot < count_ && key_[slot] != kEmpty; }
  bool any() const { return pending_ != 0; }
  std::size_t size() const { return pending_; }
  // The earliest event's key and time. Precondition: any().
  EventKey top_key() const { return key_[who_[1]]; }
  Nanos top_time() const { return EventQueue::event_of_key(top_key(), 0, 0).time; }
  // Removes and returns the earliest event. Precondition: any().
  Event pop() {
    if (pending_ == 0) throw std::logic_error("SlotCalendar::pop with no event pending");
    const std::uint32_t slot = who_[1];
    const Event e = EventQueue::event_of_key(key_[slot], payload_[slot].kind, payload_[slot].data);
    --pending_;
    update(slot, kEmpty);
    return e;
  }

 private:
  struct Payload {
    std::int64_t data = 0;
    int kind = 0;
  };
  // Larger than any event's key (its time would be past the clock's range).
  static constexpr EventKey kEmpty = ~static_cast<EventKey>(0);

  // Sets a slot's key and replays the matches on its path: at each level the winner so
  // far meets the sibling subtree's (a branch-free pick: which wins is a coin toss for
  // the predictor). Above a node whose winner is another slot, as it was before,
  // nothing changes, since only this slot's key did. No two events' keys tie; two
  // empty slots may, and either may name the empty subtree.
  void update(std::size_t slot, EventKey k) {
    key_[slot] = k;
    std::uint32_t w = static_cast<std::uint32_t>(slot);
    EventKey wk = k;
    for (std::size_t i = leaves_ + slot; i > 1; i >>= 1) {
      const std::uint32_t other = who_[i ^ 1];
      const EventKey ok = key_[other];
      const bool other_wins = ok < wk;
      w = other_wins ? other : w;
      wk = other_wins ? ok : wk;
      std::uint32_t& up = who_[i >> 1];
      if (up == w && w != slot) break;
      up = w;
    }
  }

  std::size_t count_ = 0, leaves_ = 1, pending_ = 0;
  std::vector<EventKey> key_;  // per leaf (padding leaves stay empty)
  std::vector<std::uint32_t> who_;      // per tree node: the slot of its subtree's earliest event
  std::vector<Payload> payload_;        // per slot
};

// The event loop's view of a heap and a slot calendar together, earliest first.
class MergedEvents {
 public:
  MergedEvents(EventQueue& heap, SlotCalendar& slots) : heap_(heap), slots_(slots) {}
  bool empty() const { return heap_.empty() && !slots_.any(); }
  std::size_t size() const { return heap_.size() + slots_.size(); }
  Nanos top_time() const { return slot_first() ? slots_.top_time() : heap_.top_time(); }
  Event pop() { return slot_first() ? slots_.pop() : heap_.pop(); }

 private:
  bool slot_first() const { return slots_.any() && (heap_.empty() || slots_.top_key() < heap_.top_key()); }
  EventQueue& heap_;
  SlotCalendar& slots_;
};

}  // namespace servesim
