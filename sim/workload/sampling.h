#pragma once
// `workload.sampling`: how many sequences each request decodes. Parallel sampling
// (`n` samples of one prompt, as the `n` of vLLM's and OpenAI's completion APIs)
// or beam search (`beam_width` beams). One of the two may exceed 1. The engine's
// model of either is engine/sequence_group.h.
#include <cstdint>

namespace servesim {

struct SamplingSpec {
  std::int64_t n = 1;           // parallel samples per request
  std::int64_t beam_width = 1;  // beams per request

  bool beam() const { return beam_width > 1; }
  // Sequences a request decodes at once (1 = an ordinary request).
  std::int64_t sequences() const { return beam() ? beam_width : n; }
  bool single() const { return sequences() == 1; }
};

}  // namespace servesim
