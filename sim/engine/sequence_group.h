#pragma once
// Parallel sampling and beam search (workload.sampling): a request that decodes
// m > 1 sequences at once, as one sequence group. The model follows vLLM's
// PagedAttention design (Kwon et al., "Efficient Memory Management for Large
// Language Model Serving with PagedAttention", SOSP 2023, arXiv:2309.06180,
// sec. 4.4 "Application to Other Decoding Scenarios") and vLLM V0's SequenceGroup
// (vllm/sequence.py, vllm/core/block_manager.py, vllm/core/scheduler.py):
//  - one prefill: the prompt is computed once, as for a single sequence, and its
//    last step samples the first token of every sequence (TTFT: that step's end);
//  - then the m sequences decode in lockstep, one token each per step: the decode
//    batch counts m sequences (batch tokens, max_num_seqs, per-sequence CPU time),
//    and each attends to its whole context. PagedAttention reads a sequence's
//    blocks through its own block table, so a block shared by m sequences is read
//    m times in a step (sec. 4.1-4.2 of the paper: the kernel fetches per sequence):
//    m sequences at context L cost what a batch of m requests at context L costs;
//  - the prompt's full blocks are shared (reference counted); its partially
//    filled last block is copied on write when each sequence appends its first
//    token (the copies are taken at the first decode step, as vLLM's
//    append_slots does);
//  - the whole group is preempted, resumed and finished together (vLLM schedules
//    a SequenceGroup as a unit). A preempted group is recomputed, never swapped to
//    the CPU tier: its distinct tokens (the prompt and every sample's suffix; for
//    beams the shared history and each other beam's last block) are prefilled as
//    one sequence, which takes their blocks once, and the group then decodes on
//    from where it was, owing the rest of its blocks at its next decode step. The
//    approximation: the suffixes' tokens attend to each other in that prefill (a
//    little more attention work than m separate suffixes). vLLM V0 swaps such
//    groups instead (scheduler.py, _preempt: recompute only for groups of one
//    running sequence).
//
// Output lengths: every sequence generates the request's output_tokens. The
// simulator's lengths have ignore_eos semantics (workload/request.h), as vLLM's
// benchmarks run, so no sample stops early; drawing a length per sample would
// need an EOS model the workload does not have. TTFT is to the first token of any
// sequence, E2E to the last token of the last one (they end together).
//
// KV blocks of a group whose sequences forked at length J (the prompt, or the
// prompt plus generated tokens after a recompute) and now hold L tokens each,
// with bs tokens per block and S = floor(J / bs) blocks full at the fork:
//  - parallel sampling (n = m): the S full blocks shared plus every sample's
//    private suffix, S + m (blocks_for(L) - S). Each sample needs a block of its
//    own at every block boundary.
//  - beam search (b = m): vLLM V0 keeps b beams; each step the b best
//    continuations may come from fewer parents, so a pruned beam's blocks are
//    freed and a surviving beam is forked (its blocks shared, its last block
//    copied on write). The deterministic model here: the beams share every full
//    block of their history and each holds its own partially filled last block,
//    blocks_for(L) + (b - 1) blocks. At each block boundary every beam takes a new
//    block and the b - 1 pruned copies of the block just filled are freed: the
//    group grows by one block per boundary, not b. This is the memory lower bound
//    of beam search (beams whose histories diverged for longer hold up to the
//    parallel-sampling count, S + b (blocks_for(L) - S), the upper bound); the
//    attention cost is per beam either way.
// Not modelled: vLLM V1 runs n > 1 as n child requests sharing the prompt only
// through the prefix cache; this is the V0 / paper design, in which n samples cost
// one prefill. Beam search outside the engine core (vLLM v0.6.3+ and V1) is its own
// model (run/beam_loop.h, engine.beam_search: above_engine); this one is
// engine.beam_search: in_engine (vLLM up to v0.6.2, TensorRT-LLM). V0's Python
// sampler and sequence forks, which dominated its beam search, are not priced
// (docs/beam-search.md: 14x too fast on vLLM PR #8726's run).
#include <cstdint>

#include "engine/kv_blocks.h"
#include "workload/sampling.h"

namespace servesim {

class SequenceGroupBlocks {
 public:
  SequenceGroupBlocks(const BlockSize& block, const SamplingSpec& sampling)
      : block_(block), m_(sampling.sequences()), beam_(sampling.beam()) {}

  std::int64_t sequences() const { return m_; }
  bool beam() const { return beam_; }
  bool single() const { return m_ == 1; }

  // The group's blocks when its sequences, forked at fork_len tokens, hold len
  // tokens each (len >= fork_len; copy-on-write copies included).
  std::int64_t held(std::int64_t fork_len, std::int64_t len) const {
    if (m_ == 1) return block_.blocks_for(len);
    if (beam_) return block_.blocks_for(len) + (m_ - 1);
    const std::int64_t shared = fork_len / block_.size;
    return shared + m_ * (block_.blocks_for(len) - shared);
  }
  // Blocks the group takes at its first decode step beyond one block per block
  // boundary per weight() (the decode aggregate's count): the copies of the shared
  // partially filled last block, and for beams the b - 1 last blocks the model
  // keeps over the shared history.
  std::int64_t fork_blocks(std::int64_t fork_len) const {
    if (m_ == 1) return 0;
    if (beam_) return m_ - 1;
    return block_.mod(fork_len) != 0 ? m_ - 1 : 0;
  }
  // Tokens a recompute prefills for the group when each sequence knows len tokens
  // (prompt `input` + its generated ones): what its blocks hold, each once. Samples:
  // the prompt and every sample's suffix; beams: the shared history and every other
  // beam's private last block (a full one on a block boundary).
  std::int64_t distinct_tokens(std::int64_t input, std::int64_t len) const {
    if (m_ == 1) return len;
    if (beam_) {
      const int r = block_.mod(len);
      return len + (m_ - 1) * (r == 0 ? block_.size : r);
    }
    return input + m_ * (len - input);
  }
  // New blocks the group takes at each block boundary its sequences cross.
  std::int64_t weight() const { return beam_ ? 1 : m_; }
  // The most blocks a request of `input` prompt and `output` output tokens holds
  // (its KV peaks at input + output - 1 tokens: the last sampled token is never
  // written back); a fork happens only when there is a decode step.
  std::int64_t peak(std::int64_t input, std::int64_t output) const {
    const std::int64_t last = input + output - 1;
    return output > 1 ? held(input, last) : block_.blocks_for(last);
  }

 private:
  BlockSize block_;
  std::int64_t m_;
  bool beam_;
};

}  // namespace servesim
