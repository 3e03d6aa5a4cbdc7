#pragma once
// The decoding sequences of the vLLM-style engine as one aggregate, so that a
// decode step costs O(1) however many sequences decode, and a run of identical
// decode steps can be priced and fast-forwarded at once.
//
// Every decoder's KV grows by one token per decode step, so with a global decode
// step counter G a decoder that joined at step j with KV length L has length
// L + (G - j). Hence the step's total KV is a running sum (sum of L - j, plus n G),
// and the decoders needing a fresh block at a step are one bucket of a count by
// key = (L - j) mod block_size. Which sequence is which, and when each finishes,
// the batch state keeps (batch_state.h); this holds only the arithmetic.
//
// A member may stand for a sequence group (parallel sampling, beam search:
// sequence_group.h): m sequences of one length, which count m times in the batch
// and its KV tokens, take `weight` blocks at each block boundary, and may owe
// copy-on-write blocks at their first decode step (`fork` blocks, due at the
// next step, G + 1). An ordinary request is m = weight = 1, fork = 0.
#include <cstdint>
#include <vector>

#include "engine/kv_blocks.h"

namespace servesim {

class DecodeAggregate {
 public:
  explicit DecodeAggregate(const BlockSize& block)
      : block_(block), bucket_(static_cast<std::size_t>(block.size), 0) {}

  // G counts tokens, not engine steps: a step of speculative decoding advances
  // every decoder by the tokens it emits (set_step_tokens), a plain step by one.
  std::int64_t step() const { return G_; }  // decode steps run so far (G)
  std::int64_t count() const { return n_; }  // decoding sequences (a group counts each)
  // A decoder's key and offset (L - j) when it joins now with `len` KV tokens.
  struct Member {
    std::int64_t offset = 0;  // L - j: its length at decode step g is offset + g
    int key = 0;              // offset mod block_size
  };
  // A decoder, or a group of `seqs` sequences of `len` tokens each taking
  // `weight` blocks per block boundary and owing `fork` blocks at the next step.
  Member join(std::int64_t len, std::int64_t seqs = 1, std::int64_t weight = 1, std::int64_t fork = 0) {
    Member m;
    m.offset = len - G_;
    m.key = block_.mod(m.offset);
    bucket_[static_cast<std::size_t>(m.key)] += weight;
    n_ += seqs;
    weight_ += weight;
    sum_offset_ += seqs * m.offset;
    fork_ += fork;
    return m;
  }
  // `fork`: the blocks it still owes (its join's, when no decode step ran since).
  void leave(const Member& m, std::int64_t seqs = 1, std::int64_t weight = 1, std::int64_t fork = 0) {
    bucket_[static_cast<std::size_t>(m.key)] -= weight;
    n_ -= seqs;
    weight_ -= weight;
    sum_offset_ -= seqs * m.offset;
    fork_ -= fork;
  }
  // A member of offset `offset` takes `delta` more blocks per block boundary from
  // now on (hybrid KV, local_decoders.h: its local layers reached their cap).
  void reweigh(std::int64_t offset, std::int64_t delta) {
    bucket_[static_cast<std::size_t>(block_.mod(offset))] += delta;
    weight_ += delta;
  }
  // Runs decode steps; the first one takes the owed fork blocks.
  void advance(std::int64_t steps) {
    G_ += steps;
    if (steps > 0) fork_ = 0;
  }

  // The decoders' KV tokens in all at decode step g (their lengths after it).
  std::int64_t kv_tokens(std::int64_t g) const { return sum_offset_ + n_ * g; }
  // The bucket whose decoders need a fresh block at decode step g: their new
  // length is 1 past a block boundary, (key + g) mod bs == 1 mod bs.
  int key_for_step(std::int64_t g) const { return block_.mod(1 - g); }
  // Speculative decoding: each decoder emits `emitted` tokens at the next engine
  // step and feeds `queries` tokens to it (k+1); 1 and 1 without speculation.
  void set_step_tokens(std::int64_t emitted, std::int64_t queries) {
    emit_ = emitted;
    queries_ = queries;
  }
  std::int64_t step_tokens() const { return emit_; }
  // Tokens the decoders feed to the next step (the step's token budget).
  std::int64_t batch_tokens() const { return n_ * queries_; }
  // Blocks the decoders need at the next engine step (decode steps G + 1 .. G + emitted).
  std::int64_t next_step_blocks() const {
    if (n_ == 0) return 0;
    return emit_ == 1 ? bucket_[static_cast<std::size_t>(key_for_step(G_ + 1))] + fork_
                      : blocks_needed(G_ + 1, emit_);
  }
  // Blocks the decoders allocate over decode steps from_step .. from_step+steps-1
  // (inline: every step that runs decoders asks).
  std::int64_t blocks_needed(std::int64_t from_step, std::int64_t steps) const;
  // The most decode steps from from_step (at least 1, at most limit) whose new
  // blocks fit in free_blocks.
  std::int64_t max_steps(std::int64_t from_step, std::int64_t limit, std::int64_t free_blocks) const;

 private:
  static constexpr std::int64_t kMaxTabulatedBlockSize = 256;

  BlockSize block_;
  std::int64_t G_ = 0;
  std::int64_t n_ = 0;
  std::int64_t weight_ = 0;      // blocks per block_size steps (n_ without sequence groups)
  std::int64_t fork_ = 0;        // blocks owed at step G_ + 1 (sequence groups' forks)
  std::int64_t sum_offset_ = 0;  // sum over decoders (sequences) of L - j
  std::int64_t emit_ = 1;        // tokens each decoder emits at the next engine step
  std::int64_t queries_ = 1;     // tokens each decoder feeds to it
  std::vector<std::int64_t> bucket_;
};

inline std::int64_t DecodeAggregate::blocks_needed(std::int64_t from_step, std::int64_t steps) const {
  // Every block_size steps each decoder needs exactly one (a group its weight).
  const std::int64_t bs = block_.size;
  std::int64_t need = (steps / bs) * weight_ + (from_step == G_ + 1 && steps > 0 ? fork_ : 0);
  // Step from_step + j needs the bucket key_for_step(from_step) - j (mod bs).
  std::int64_t key = key_for_step(from_step);
  for (std::int64_t j = steps % bs; j > 0; --j) {
    need += bucket_[static_cast<std::size_t>(key)];
    key = key == 0 ? bs - 1 : key - 1;
  }
  return need;
}

}  // namespace servesim
