#include "engine/step_pricing.h"

#include <algorithm>

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

void StepPricer::record_cost(StepRecord& r, const StepTotals& totals, std::int64_t k, double seconds,
                             double transfer_s) {
  const double scale = static_cast<double>(k);
  r.gpu_time = totals.time * scale;
  r.flops = totals.flops * scale;
  r.bytes = totals.bytes * scale;
  for (int i = 0; i < kBoundCount; ++i)
    r.time_by_bound[static_cast<std::size_t>(i)] = totals.time_by_bound[static_cast<std::size_t>(i)] * scale;
  // CPU-side time; host transfers count as communication.
  r.time_by_bound[static_cast<int>(Bound::overhead)] += seconds - totals.time * scale - transfer_s;
  r.time_by_bound[static_cast<int>(Bound::communication)] += transfer_s;
  r.bound = static_cast<Bound>(std::max_element(r.time_by_bound.begin(), r.time_by_bound.end()) -
                               r.time_by_bound.begin());
}

}  // namespace servesim
