#pragma once
// The decoders of a local-attention model (model.local: sliding window, chunked
// attention) beside the decode aggregate (decode_aggregate.h), for two sums the
// aggregate's running total of KV lengths cannot give:
//  - the keys the local layers attend to at a decode step, sum over decoders of
//    keys(len): min(len, window), or the position within the chunk;
//  - with hybrid KV (kv_blocks.h: local layers' blocks freed past the span), how many
//    blocks each decoder takes at a block boundary: every layer's while its local
//    layers are still below their cap, only the global layers' after.
// Both are affine in the decode step for as long as no decoder crosses a threshold
// (a window filled, a chunk boundary, the block cap), and a decoder of offset o (its
// length at step g is o + g, decode_aggregate.h) crosses at a step fixed by o. So
// each is a set of "growing" decoders keyed by offset, with their count and offset
// sum; advance() moves the ones whose threshold comes at the next step, and
// steps_left() bounds a fused run of decode steps so that none crosses inside it.
// Members are counted by offset only, so joining and leaving are O(log n) and a
// fused run is priced exactly as the affine run it is.
//
// Not used (enabled() false) for full-attention models: their path is untouched.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "engine/decode_aggregate.h"
#include "engine/kv_blocks.h"
#include "model/model_spec.h"

namespace servesim {

// Decoders keyed by offset o, "growing" at step g while o <= threshold - g.
class GrowingDecoders {
 public:
  explicit GrowingDecoders(std::int64_t threshold = 0) : threshold_(threshold) {}
  std::int64_t threshold() const { return threshold_; }
  // Whether a decoder of offset o still grows at step g.
  bool growing(std::int64_t o, std::int64_t g) const { return o <= threshold_ - g; }
  void add(std::int64_t o, std::int64_t n = 1) {
    by_offset_[o] += n;
    n_ += n;
    sum_ += n * o;
  }
  void remove(std::int64_t o, std::int64_t n = 1) {
    auto it = by_offset_.find(o);
    if (it == by_offset_.end()) return;
    it->second -= n;
    if (it->second <= 0) by_offset_.erase(it);
    n_ -= n;
    sum_ -= n * o;
  }
  // Removes the decoders that no longer grow at step g, calling stop(o, count) for each.
  template <class Stop>
  void stop_before(std::int64_t g, Stop stop) {
    while (!by_offset_.empty() && !growing(by_offset_.rbegin()->first, g)) {
      const auto last = std::prev(by_offset_.end());
      const std::int64_t o = last->first, n = last->second;
      by_offset_.erase(last);
      n_ -= n;
      sum_ -= n * o;
      stop(o, n);
    }
  }
  // Steps from g on (g, g+1, ...) that every member still grows: at least 1 after stop_before(g).
  std::int64_t steps_left(std::int64_t g) const {
    if (by_offset_.empty()) return std::numeric_limits<std::int64_t>::max();
    return threshold_ - g - by_offset_.rbegin()->first + 1;
  }
  std::int64_t count() const { return n_; }
  std::int64_t sum_at(std::int64_t g) const { return sum_ + n_ * g; }  // sum of o + g

 private:
  std::int64_t threshold_;
  std::map<std::int64_t, std::int64_t> by_offset_;
  std::int64_t n_ = 0, sum_ = 0;
};

class LocalDecoders {
 public:
  LocalDecoders(const LocalAttention& local, const BlockSize& block)
      : local_(local),
        chunked_(local.kind == LocalAttention::Kind::chunked),
        spans_(local.span),
        hybrid_(block.local_layers > 0),
        global_weight_(block.global_layers),
        local_weight_(block.local_layers),
        blocks_(block.local_cap * block.size) {}

  bool enabled() const { return local_.enabled(); }

  // Blocks a decoder of offset o takes at each boundary from step g on (hybrid KV;
  // 1 otherwise), and whether it will take fewer later.
  std::int64_t weight(std::int64_t o, std::int64_t g) const {
    if (!hybrid_) return 1;
    return global_weight_ + (blocks_.growing(o, g) ? local_weight_ : 0);
  }

  // A decoder joins (or leaves) when the aggregate is at step G (its next step is G + 1).
  void join(std::int64_t o, std::int64_t G) {
    const std::int64_t g = G + 1;
    if (chunked_) spans_.add(chunk_offset(o, g));
    else if (spans_.growing(o, g)) spans_.add(o);
    if (hybrid_ && blocks_.growing(o, g)) blocks_.add(o);
  }
  void leave(std::int64_t o, std::int64_t G) {
    const std::int64_t g = G + 1;
    if (chunked_) spans_.remove(chunk_offset(o, g));
    else if (spans_.growing(o, g)) spans_.remove(o);
    if (hybrid_ && blocks_.growing(o, g)) blocks_.remove(o);
  }
  // After dec advanced to step G: the decoders whose threshold comes at step G + 1
  // stop growing (a chunk starts over; a window is full; the block cap is reached,
  // from when on they take only the global layers' blocks).
  void advance(DecodeAggregate& dec) {
    const std::int64_t g = dec.step() + 1;
    if (chunked_) {
      // A chunk ends: the decoder's span restarts at 1, offset o - span.
      spans_.stop_before(g, [&](std::int64_t o, std::int64_t n) { restarted_.push_back({o - local_.span, n}); });
      for (const auto& [o, n] : restarted_) spans_.add(o, n);
      restarted_.clear();
    } else {
      spans_.stop_before(g, [](std::int64_t, std::int64_t) {});
    }
    if (hybrid_) blocks_.stop_before(g, [&](std::int64_t o, std::int64_t n) { dec.reweigh(o, -local_weight_ * n); });
  }
  // The local layers' keys at decode step g (G < g < G + 1 + steps_left(G + 1)), with
  // `decoders` decoding in all.
  std::int64_t kv_tokens(std::int64_t g, std::int64_t decoders) const {
    if (chunked_) return spans_.sum_at(g);
    return spans_.sum_at(g) + local_.span * (decoders - spans_.count());
  }
  // Decode steps from g on over which both sums stay affine (no decoder crosses).
  std::int64_t steps_left(std::int64_t g) const {
    return std::min(spans_.steps_left(g), hybrid_ ? blocks_.steps_left(g) : std::numeric_limits<std::int64_t>::max());
  }

 private:
  // Chunked: the offset e with keys = e + g at step g, 1 <= e + g <= span.
  std::int64_t chunk_offset(std::int64_t o, std::int64_t g) const {
    const std::int64_t s = local_.span;
    const std::int64_t pos = ((o + g - 1) % s + s) % s + 1;  // keys at step g
    return pos - g;
  }

  LocalAttention local_;
  bool chunked_;
  GrowingDecoders spans_;  // sliding: those below the window; chunked: all, by offset within the chunk
  bool hybrid_;
  std::int64_t global_weight_, local_weight_;
  GrowingDecoders blocks_;  // hybrid KV: those whose local layers still take blocks
  std::vector<std::pair<std::int64_t, std::int64_t>> restarted_;
};

}  // namespace servesim
