#include "engine/step_pricing.h"

namespace servesim {

double StepPricer::host_seconds(std::int64_t tokens) const {
  const Link& host = cost_.gpu().host;
  return static_cast<double>(tokens) * kv_bytes_per_token_ / host.bandwidth + host.latency;
}

StepTotals StepPricer::decode_totals(std::int64_t n, std::int64_t kv) {
  if (memo_) return cache_.decode(n, kv);
  BatchSummary b;
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
  b.decode_kv_tokens = static_cast<double>(kv);
  return cost_.totals(b);
}

}  // namespace servesim
