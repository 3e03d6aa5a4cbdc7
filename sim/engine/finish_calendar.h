#pragma once
// When each decoder finishes, by decode step: the engine's completion tracking.
//
// A decoder that joins at decode step g with r tokens still to emit finishes at step
// g + r. The engine asks two things every step: the earliest finish step (the end of
// a fused run of decode steps) and, once the decoders have advanced to step g, every
// decoder finishing at or before g, in (step, request id) order. A binary heap did
// both in O(log n) per decoder (a pop sifts through ~8 levels of 256 decoders); the
// steps ahead are few (an output length), so a calendar does them in O(1): bucket
// step % kBuckets, a bitmap of the buckets in use to skip empty ones a word at a time.
//
// Entries are filed by the decoder's slot (BatchState's slot number): a bucket is
// a list linked through the slots' entries, in one array indexed by slot, so a
// decoder that leaves early (preempted) is taken out at once and nothing in the
// calendar is ever stale. Why not a vector per bucket: 1,024 of them are 24 KB of
// headers plus a heap buffer each, visited in turn as the steps advance; with
// many replicas that was a cache miss or two per step, where the bucket heads
// here are 4 KB and an entry is 24 bytes of its slot.
//
// A bucket may also hold entries a lap or more ahead (outputs longer than
// kBuckets tokens): they stay in it until their own step comes round, which costs a
// look at them each lap and is never wrong. Entries of one step are handed out in
// request id order, the heap's tie-break, so the completions come in the same
// order as before.
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace servesim {

class FinishCalendar {
 public:
  FinishCalendar() { heads_.fill(-1); }

  bool empty() const { return size_ == 0; }
  // Files `slot`, whose decoder finishes at decode step `step`, for request `id`.
  // Preconditions: the slot is not filed, and `step` is past every step drained so
  // far (a decoder joins after the step's completions and has a token to emit).
  void push(int slot, std::int64_t step, std::int64_t id) {
    if (step < next_) throw std::logic_error("FinishCalendar::push: a finish step already drained");
    const auto i = static_cast<std::size_t>(slot);
    if (i >= entries_.size()) entries_.resize(i + 1);
    Entry& e = entries_[i];
    if (e.step >= 0) throw std::logic_error("FinishCalendar::push: the slot is filed already");
    const std::size_t b = bucket(step);
    e = Entry{step, id, -1, heads_[b]};
    if (heads_[b] >= 0) entries_[static_cast<std::size_t>(heads_[b])].prev = slot;
    heads_[b] = slot;
    used_[b >> 6] |= std::uint64_t{1} << (b & 63);
    ++size_;
  }
  // Takes `slot` out (its decoder left before finishing); nothing when it is not filed.
  void remove(int slot) {
    const auto i = static_cast<std::size_t>(slot);
    if (i < entries_.size() && entries_[i].step >= 0) unlink(slot);
  }
  // The earliest finish step filed; -1 when there is none.
  std::int64_t earliest() const {
    std::int64_t s = next_;
    while (size_ > 0) {
      s = next_used(s);
      for (int i = heads_[bucket(s)]; i >= 0; i = at(i).next)
        if (at(i).step == s) return s;
      ++s;  // only later laps' entries here
    }
    return -1;
  }
  // Takes out every slot filed with a step <= g and hands it to take(slot), in
  // (step, id) order. take must not push (it may remove: a no-op by then).
  template <class Take>
  void drain(std::int64_t g, Take&& take) {
    std::int64_t s = next_;
    while (size_ > 0 && s <= g) {
      s = next_used(s, g);
      if (s > g) break;
      due_.clear();
      for (int i = heads_[bucket(s)]; i >= 0;) {
        const int next = at(i).next;
        if (at(i).step == s) {
          due_.push_back(Due{at(i).id, i});
          unlink(i);
        }
        i = next;
      }
      // Insertion sort by id: a step's finishers are few.
      for (std::size_t i = 1; i < due_.size(); ++i)
        for (std::size_t j = i; j > 0 && due_[j].id < due_[j - 1].id; --j) std::swap(due_[j], due_[j - 1]);
      for (const Due& d : due_) take(d.slot);
      ++s;
    }
    if (g + 1 > next_) next_ = g + 1;
  }

 private:
  struct Entry {
    std::int64_t step = -1;  // -1: not filed
    std::int64_t id = 0;
    int prev = -1, next = -1;  // neighbours in the bucket's list (slots)
  };
  struct Due {
    std::int64_t id;
    int slot;
  };
  static constexpr std::size_t kBuckets = 1024;  // a power of two
  static constexpr std::size_t kWords = kBuckets / 64;
  static std::size_t bucket(std::int64_t step) { return static_cast<std::size_t>(step) & (kBuckets - 1); }
  const Entry& at(int slot) const { return entries_[static_cast<std::size_t>(slot)]; }
  Entry& at(int slot) { return entries_[static_cast<std::size_t>(slot)]; }
  void unlink(int slot) {
    Entry& e = at(slot);
    const std::size_t b = bucket(e.step);
    if (e.prev >= 0) at(e.prev).next = e.next;
    else heads_[b] = e.next;
    if (e.next >= 0) at(e.next).prev = e.prev;
    if (heads_[b] < 0) used_[b >> 6] &= ~(std::uint64_t{1} << (b & 63));
    e.step = -1;
    --size_;
  }
  // The first step at or after s whose bucket is in use (some entry exists, so
  // one comes within a lap), or a step past `limit` when none is in use up to it.
  std::int64_t next_used(std::int64_t s, std::int64_t limit = std::numeric_limits<std::int64_t>::max()) const {
    for (;;) {
      const std::size_t b = bucket(s);
      const std::uint64_t word = used_[b >> 6] >> (b & 63);
      if (word != 0) return s + std::countr_zero(word);
      // Nothing more in this word: on to the next word's first bucket.
      s += static_cast<std::int64_t>(64 - (b & 63));
      if (s > limit) return s;
    }
  }

  // (The small fields first: they are read at every step, the heads one line at a time.)
  std::int64_t size_ = 0;
  std::int64_t next_ = 0;  // every step before it has been drained
  std::vector<Entry> entries_;  // by slot
  std::vector<Due> due_;        // drain's entries of one step
  std::array<std::uint64_t, kWords> used_{};
  std::array<int, kBuckets> heads_;  // first slot of each bucket's list, -1 when empty
};

}  // namespace servesim
