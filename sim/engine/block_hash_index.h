#pragma once
// A flat open-addressing map from 64-bit block hashes to small integer handles,
// for the prefix cache's hot path (prefix_cache.h). One array of {hash, handle}
// slots, linear probing, deletion by backward shift (no tombstones, so lookups
// never slow down as entries come and go), and no allocation except when the
// table doubles. The prefix cache looks up every prompt block of every request
// several times (match, pin, release); node-based std::unordered_map spent most
// of that time on pointer chasing and malloc.
//
// Hash 0 is a legal key: emptiness is marked by handle -1, not by the key.
#include <cstdint>
#include <vector>

namespace servesim {

class BlockHashIndex {
 public:
  BlockHashIndex() { rehash(16); }

  // The handle stored for `hash`, or -1.
  std::int32_t find(std::uint64_t hash) const {
    for (std::size_t i = home(hash);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.handle < 0) return -1;
      if (s.hash == hash) return s.handle;
    }
  }
  // The stored handle of `hash`, to read or change in place; null when absent
  // (valid until the next insert or erase).
  std::int32_t* find_handle(std::uint64_t hash) {
    for (std::size_t i = home(hash);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.handle < 0) return nullptr;
      if (s.hash == hash) return &s.handle;
    }
  }
  // Stores hash -> handle; the hash must not be present.
  void insert(std::uint64_t hash, std::int32_t handle) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);  // load factor <= 1/2
    place(hash, handle);
    ++size_;
  }
  // Removes `hash` (which must be present).
  void erase(std::uint64_t hash) {
    std::size_t i = home(hash);
    while (slots_[i].hash != hash || slots_[i].handle < 0) i = (i + 1) & mask_;
    // Backward shift: pull later entries of the probe run into the hole when
    // their home position does not lie (cyclically) between the hole and them.
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      const Slot& s = slots_[j];
      if (s.handle < 0) break;
      const std::size_t h = home(s.hash);
      if (((j - h) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = s;
        i = j;
      }
    }
    slots_[i].handle = -1;
    --size_;
  }
  std::size_t size() const { return size_; }
  // Starts loading the slot where `hash` would be found: the prefix cache walks
  // a prompt's hashes in order, so it asks for a few blocks ahead while it works
  // on the current one (the table is larger than the caches; each probe would
  // otherwise wait for memory in turn).
  void prefetch(std::uint64_t hash) const { __builtin_prefetch(&slots_[home(hash)]); }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::int32_t handle = -1;
  };
  // Fibonacci hashing: block hashes from traces may be small sequential ids, so
  // the top bits of a multiply spread them over the table.
  std::size_t home(std::uint64_t hash) const {
    return static_cast<std::size_t>((hash * 0x9e3779b97f4a7c15ULL) >> shift_);
  }
  void place(std::uint64_t hash, std::int32_t handle) {
    std::size_t i = home(hash);
    while (slots_[i].handle >= 0) i = (i + 1) & mask_;
    slots_[i] = Slot{hash, handle};
  }
  void rehash(std::size_t capacity) {  // capacity: a power of two >= 16
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Slot& s : old)
      if (s.handle >= 0) place(s.hash, s.handle);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace servesim
