#include "engine/step_pricing.h"

namespace servesim {

double StepPricer::host_seconds(std::int64_t tokens) const {
  const Link& host = cost_.gpu().host;
  return static_cast<double>(tokens) * kv_bytes_per_token_ / host.bandwidth + host.latency;
}

StepTotals StepPricer::draft_totals(std::int64_t n, std::int64_t ctx, std::int64_t k) const {
  StepTotals sum;
  if (!drafter_ || n <= 0) return sum;
  BatchSummary b;
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
  for (std::int64_t j = 1; j <= k; ++j) {
    b.decode_kv_tokens = static_cast<double>(ctx + j * n);
    const StepTotals t = drafter_->totals(b);
    sum.time += t.time;
    sum.stage_time += t.stage_time;
    sum.flops += t.flops;
    sum.bytes += t.bytes;
    for (std::size_t i = 0; i < sum.time_by_bound.size(); ++i) sum.time_by_bound[i] += t.time_by_bound[i];
  }
  return sum;
}

StepTotals StepPricer::decode_totals(std::int64_t n, std::int64_t kv, std::int64_t local_kv, const LoraLoad& lora) {
  if (memo_) return cache_->decode(n, kv, local_kv, lora);
  BatchSummary b = cost_.batch();
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
  b.decode_kv_tokens = static_cast<double>(kv);
  b.decode_local_kv_tokens = static_cast<double>(local_kv);
  b.lora = lora;
  return cost_.totals(b);
}

}  // namespace servesim
