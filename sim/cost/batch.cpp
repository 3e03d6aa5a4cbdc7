#include "cost/batch.h"

namespace servesim {

void BatchSummary::add(const SeqWork& s, int sign) {
  const double n = static_cast<double>(s.new_tokens);
  const double c = static_cast<double>(s.context_tokens);
  seqs += sign;
  new_tokens += sign * s.new_tokens;
  if (s.samples) sampled += sign;
  if (s.new_tokens == 1) {
    decode_seqs += sign;
    decode_kv_tokens += sign * (c + 1.0);
  } else if (s.new_tokens > 1) {
    prefill_seqs += sign;
    prefill_tokens += sign * s.new_tokens;
    prefill_pairs += sign * (n * c + n * (n + 1.0) / 2.0);
    prefill_full_pairs += sign * (n * (c + n));
    prefill_kv_tokens += sign * (c + n);
  }
  if (local.kind != LocalAttention::Kind::none) {  // none: the full-attention path, nothing more to sum
    if (s.new_tokens == 1) {
      decode_local_kv_tokens += sign * static_cast<double>(local.keys(s.context_tokens + 1));
    } else if (s.new_tokens > 1) {
      prefill_local_pairs +=
          sign * (local.pairs_through(s.context_tokens + s.new_tokens) - local.pairs_through(s.context_tokens));
      prefill_local_kv_tokens += sign * static_cast<double>(local.keys_read(s.context_tokens, s.new_tokens));
    }
  }
}

BatchSummary summarize(std::span<const SeqWork> seqs, const LocalAttention& local) {
  BatchSummary b;
  b.local = local;
  for (const auto& s : seqs) b.add(s);
  return b;
}

}  // namespace servesim
