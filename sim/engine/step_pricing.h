#pragma once
// Step pricing: what a planned batch costs in wall time. The engines decide what
// runs (scheduling_policy.h) and keep the sequences' state (batch_state.h); this
// turns the result into seconds and into the cost fields of the step's record:
//  - GPU time from the roofline cost model (cost/step_cost.h), memoised per token
//    and sample count by the step-cost cache (step_cost_cache.h, exact to the bit,
//    so runs with and without it agree to the nanosecond);
//  - the CPU time the GPU waits on every step (cost/step_wall_time.h);
//  - KV moved over the host link (CPU offload: reloads, swap-out, swap-in).
// One place for these, so a new kind of step (speculative verification, a beam
// step) is priced by adding its shape here, not by editing every engine.
//
// Not virtual and allocation-free per call: the event loop prices every step, so
// what it calls every step is inline here.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "cost/step_cost.h"
#include "cost/step_wall_time.h"
#include "engine/step_cost_cache.h"
#include "metrics/run_observer.h"

namespace servesim {

class StepPricer {
 public:
  // memo: price from the step-cost cache (on with fast_forward; off: every step
  // priced by the model, the reference the cache is tested against).
  // shared: tables of the same cost model that other engines use too (identical
  // replicas: one warm set of tables instead of one cold set each); null, or
  // tables of another model: this pricer keeps its own.
  StepPricer(const CostModel& cost, CpuOverheads cpu, double kv_bytes_per_token, bool memo,
             StepCostCache* shared = nullptr)
      : cost_(cost), cpu_(cpu), kv_bytes_per_token_(kv_bytes_per_token), memo_(memo) {
    if (shared && &shared->cost() == &cost) {
      cache_ = shared;
    } else {
      own_ = std::make_unique<StepCostCache>(cost);
      cache_ = own_.get();
    }
  }

  // Wall seconds of one step running b (GPU time plus CPU overheads); its GPU
  // totals go to *totals when asked.
  double seconds(const BatchSummary& b, StepTotals* totals) {
    const StepTotals c = memo_ ? cache_->totals(b) : cost_.totals(b);
    if (totals) *totals = c;
    return step_wall_seconds(c.time, cpu_, b.seqs, b.prefill_seqs, b.sampled, b.prefill_tokens);
  }
  // Speculative decoding (speculative.h). The drafter's cost model (null: none).
  void set_drafter(const CostModel* drafter) { drafter_ = drafter; }
  // Adds to b the verification of n decoders, each feeding `queries` tokens (k+1)
  // over its context (their contexts sum to ctx): SeqWork{queries, ctx_i} each,
  // with the LM head run on every position.
  static void add_verify(BatchSummary& b, std::int64_t n, double ctx, std::int64_t queries) {
    const double nn = static_cast<double>(n), q = static_cast<double>(queries);
    b.seqs += n;
    b.new_tokens += n * queries;
    b.sampled += n * queries;
    b.prefill_seqs += n;
    b.verify_seqs += n;
    b.prefill_tokens += n * queries;
    b.prefill_pairs += q * ctx + nn * q * (q + 1.0) / 2.0;
    b.prefill_full_pairs += q * ctx + nn * q * q;
    b.prefill_kv_tokens += ctx + nn * q;
  }
  // GPU totals of the drafter's k decode steps over n sequences whose contexts sum
  // to ctx: draft step j (1..k) appends one token to each, reading ctx + j n tokens.
  StepTotals draft_totals(std::int64_t n, std::int64_t ctx, std::int64_t k) const;
  // Wall seconds of a step running b after the drafter's `draft` GPU time (the
  // step's totals, draft included, to *totals when asked).
  double speculative_seconds(const BatchSummary& b, const StepTotals& draft, StepTotals* totals) {
    StepTotals c = memo_ ? cache_->totals(b) : cost_.totals(b);
    c.time += draft.time;
    c.stage_time += draft.time;
    c.flops += draft.flops;
    c.bytes += draft.bytes;
    for (std::size_t i = 0; i < c.time_by_bound.size(); ++i) c.time_by_bound[i] += draft.time_by_bound[i];
    if (totals) *totals = c;
    return step_wall_seconds(c.time, cpu_, b.seqs, b.prefill_seqs, b.sampled, b.prefill_tokens);
  }
  // Wall seconds of a decode-only step of n sequences that attend to kv tokens in
  // all (BatchSummary counts each sequence's context plus its new token).
  // local_kv: the keys the local attention layers see (model.local; unused without).
  // lora: the step's LoRA adapters (workload.lora; none by default).
  double decode_seconds(std::int64_t n, std::int64_t kv, std::int64_t local_kv = 0, const LoraLoad& lora = {}) {
    const double gpu =
        memo_ ? cache_->decode_time(n, kv, local_kv, lora) : decode_totals(n, kv, local_kv, lora).time;
    return step_wall_seconds(gpu, cpu_, n, 0, n, 0);  // each decoder samples one token
  }
  // Seconds to move `tokens` of KV over the host link, for one request: each GPU
  // moves its own shard over its own link, in parallel, after the link's latency.
  double host_seconds(std::int64_t tokens) const;

  // The cost fields of a step record covering k identical steps of `totals` that
  // took `seconds` of wall time in all, `transfer_s` of it host-link transfers:
  // GPU time, flops and bytes scaled by k, the CPU overheads as Bound::overhead,
  // the transfers as Bound::communication, and the dominant bound.
  static void record_cost(StepRecord& r, const StepTotals& totals, std::int64_t k, double seconds, double transfer_s);

  const CostModel& cost() const { return cost_; }

 private:
  StepTotals decode_totals(std::int64_t n, std::int64_t kv, std::int64_t local_kv, const LoraLoad& lora);

  const CostModel& cost_;
  const CostModel* drafter_ = nullptr;
  CpuOverheads cpu_;
  double kv_bytes_per_token_;  // per GPU
  bool memo_;
  std::unique_ptr<StepCostCache> own_;  // when no shared tables fit
  StepCostCache* cache_;                // own_ or the shared tables
};

inline void StepPricer::record_cost(StepRecord& r, const StepTotals& totals, std::int64_t k, double seconds,
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
