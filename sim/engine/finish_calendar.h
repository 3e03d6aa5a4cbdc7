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
// A bucket may also hold entries a lap or more ahead (outputs longer than
// kBuckets tokens): they stay in it until their own step comes round, which costs a
// look at them each lap and is never wrong. Entries go stale when their decoder
// leaves early (preempted): the caller's `valid` says which, and stale ones are
// dropped where they are met. Entries of one step are handed out in request id
// order, the heap's tie-break, so the completions come in the same order as before.
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
  struct Entry {
    std::int64_t step;
    std::int64_t id;
    int slot;
    std::uint32_t version;
  };

  bool empty() const { return size_ == 0; }

  // Precondition: e.step is past every step drained so far (a decoder joins after
  // the step's completions and has at least one token to emit).
  void push(const Entry& e) {
    if (e.step < next_) throw std::logic_error("FinishCalendar::push: a finish step already drained");
    const std::size_t b = bucket(e.step);
    buckets_[b].push_back(e);
    used_[b >> 6] |= std::uint64_t{1} << (b & 63);
    ++size_;
  }

  // The earliest step of a valid entry; -1 when there is none. valid(entry) says
  // whether its decoder is still the one that pushed it.
  template <class Valid>
  std::int64_t earliest(Valid&& valid) {
    std::int64_t s = next_;
    while (size_ > 0) {
      s = next_used(s);
      std::vector<Entry>& in = buckets_[bucket(s)];
      bool found = false;
      for (std::size_t i = 0; i < in.size();) {
        if (!valid(in[i])) {
          drop(in, i);
          continue;
        }
        if (in[i].step == s) found = true;
        ++i;
      }
      if (in.empty()) clear_used(bucket(s));
      if (found) return s;
      ++s;  // only later laps' entries here
    }
    return -1;
  }

  // Hands every valid entry with step <= g to take(entry), in (step, id) order, and
  // forgets them (and the stale ones among them). take must not push.
  template <class Valid, class Take>
  void drain(std::int64_t g, Valid&& valid, Take&& take) {
    std::int64_t s = next_;
    while (size_ > 0 && s <= g) {
      s = next_used(s, g);
      if (s > g) break;
      std::vector<Entry>& in = buckets_[bucket(s)];
      due_.clear();
      for (std::size_t i = 0; i < in.size();) {
        if (in[i].step != s) {
          ++i;  // a later lap's
          continue;
        }
        if (valid(in[i])) due_.push_back(in[i]);
        drop(in, i);
      }
      if (in.empty()) clear_used(bucket(s));
      // Insertion sort by id: a step's finishers are few.
      for (std::size_t i = 1; i < due_.size(); ++i)
        for (std::size_t j = i; j > 0 && due_[j].id < due_[j - 1].id; --j) std::swap(due_[j], due_[j - 1]);
      for (const Entry& e : due_) take(e);
      ++s;
    }
    if (g + 1 > next_) next_ = g + 1;
  }

 private:
  static constexpr std::size_t kBuckets = 1024;  // a power of two
  static constexpr std::size_t kWords = kBuckets / 64;
  static std::size_t bucket(std::int64_t step) { return static_cast<std::size_t>(step) & (kBuckets - 1); }
  void drop(std::vector<Entry>& in, std::size_t i) {
    in[i] = in.back();
    in.pop_back();
    --size_;
  }
  void clear_used(std::size_t b) { used_[b >> 6] &= ~(std::uint64_t{1} << (b & 63)); }
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

  std::array<std::vector<Entry>, kBuckets> buckets_;
  std::array<std::uint64_t, kWords> used_{};
  std::int64_t size_ = 0;
  std::int64_t next_ = 0;   // every step before it has been drained
  std::vector<Entry> due_;  // drain's entries of one step
};

}  // namespace servesim
