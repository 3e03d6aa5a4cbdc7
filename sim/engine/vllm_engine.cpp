#include "engine/vllm_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

#include "util/error.h"

namespace servesim {

VllmEngine::VllmEngine(const EngineContext& ctx)
    : ctx_(ctx),
      cpu_overheads_(ctx.config.cpu_overheads()),
      cost_(*ctx.cost),
      block_size_(ctx.config.block_size),
      total_blocks_(ctx.kv_blocks),
      kv_bytes_per_token_(ctx.memory.kv_bytes_per_token),
      cost_cache_(*ctx.cost),
      frontend_ns_(to_nanos(ctx.config.frontend_latency)),
      fuse_(ctx.fast_forward && !ctx.virtual_engine),
      memo_(ctx.fast_forward),
      bucket_(static_cast<std::size_t>(ctx.config.block_size), 0) {
  if (block_size_ > 0 && (block_size_ & (block_size_ - 1)) == 0) {
    block_mask_ = block_size_ - 1;
    block_shift_ = std::countr_zero(static_cast<unsigned>(block_size_));
  }
  if (ctx.config.cpu_offload_bytes > 0) {
    // Host bytes per block on the whole replica: each GPU holds its shard of every block.
    const double block_bytes = kv_bytes_per_token_ * cost_.parallelism().gpus_per_replica() * block_size_;
    if (block_bytes <= 0) throw Error("engine.cpu_offload: the model's KV bytes per token are unknown");
    if (cost_.gpu().host.bandwidth <= 0)
      throw Error(fmt::format("engine.cpu_offload: GPU '{}' has no host link bandwidth (hardware host.bandwidth)",
                              cost_.gpu().name));
    cpu_ = CpuKvTier(static_cast<std::int64_t>(std::floor(ctx.config.cpu_offload_bytes / block_bytes)));
    if (cpu_.enabled()) cache_.set_spill(&cpu_);
  }
}

double VllmEngine::host_seconds(std::int64_t tokens) const {
  // Each GPU moves its own shard over its own host link, in parallel.
  const Link& host = cost_.gpu().host;
  return static_cast<double>(tokens) * kv_bytes_per_token_ / host.bandwidth + host.latency;
}

void VllmEngine::running_push_back(int slot) {
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  s.prev = run_tail_;
  s.next = -1;
  if (run_tail_ >= 0) slots_[static_cast<std::size_t>(run_tail_)].next = slot;
  else run_head_ = slot;
  run_tail_ = slot;
  ++running_count_;
}

void VllmEngine::running_erase(int slot) {
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  if (s.prev >= 0) slots_[static_cast<std::size_t>(s.prev)].next = s.next;
  else run_head_ = s.next;
  if (s.next >= 0) slots_[static_cast<std::size_t>(s.next)].prev = s.prev;
  else run_tail_ = s.prev;
  s.prev = s.next = -1;
  --running_count_;
}

int VllmEngine::new_slot() {
  if (!free_slots_.empty()) {
    const int s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  slots_.emplace_back();
  return static_cast<int>(slots_.size()) - 1;
}

int VllmEngine::key_for_step(std::int64_t g) const {
  // A decoder needs a fresh block at step g when its new length is 1 past a block
  // boundary: (key + g) mod bs == 1 mod bs.
  return mod_block(1 - g);
}

int VllmEngine::mod_block(std::int64_t x) const {
  // Block sizes are powers of two in practice (vLLM requires it for CUDA): a mask
  // is exact for negative x too in two's complement.
  if (block_mask_ >= 0) return static_cast<int>(x & block_mask_);
  const std::int64_t bs = block_size_;
  return static_cast<int>(((x % bs) + bs) % bs);
}

std::int64_t VllmEngine::decode_blocks_needed(std::int64_t from_step, std::int64_t steps) const {
  // Blocks the decoders allocate over decode steps from_step .. from_step+steps-1:
  // every block_size steps each decoder needs exactly one.
  const std::int64_t bs = block_size_;
  std::int64_t need = (steps / bs) * n_decode_;
  // Step from_step + j needs the bucket key_for_step(from_step) - j (mod bs).
  std::int64_t key = key_for_step(from_step);
  for (std::int64_t j = steps % bs; j > 0; --j) {
    need += bucket_[static_cast<std::size_t>(key)];
    key = key == 0 ? bs - 1 : key - 1;
  }
  return need;
}

std::int64_t VllmEngine::max_decode_steps(std::int64_t from_step, std::int64_t limit, std::int64_t free_blocks) const {
  // The largest k in [1, limit] with decode_blocks_needed(from_step, k) <= free_blocks
  // (1 if none): need(k) = (k / bs) * n + partial[k % bs], with partial[r] the blocks
  // of the first r steps of a cycle, so whole cycles are counted at once.
  const std::int64_t bs = block_size_;
  const std::int64_t n = n_decode_;
  if (free_blocks < 0) return 1;
  // Common case, plenty of free blocks: whole cycles past `limit` fit.
  if (n == 0 || free_blocks / n >= limit / bs + 1) return std::max<std::int64_t>(1, limit);
  std::int64_t partial[kMaxTabulatedBlockSize + 1];
  if (bs > kMaxTabulatedBlockSize) {
    std::int64_t lo = 1, hi = limit;  // unusual block size: binary search
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (decode_blocks_needed(from_step, mid) <= free_blocks) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  partial[0] = 0;
  std::int64_t key = key_for_step(from_step);
  for (std::int64_t r = 1; r <= bs; ++r) {
    partial[r] = partial[r - 1] + bucket_[static_cast<std::size_t>(key)];
    key = key == 0 ? bs - 1 : key - 1;
  }
  // need() is nondecreasing and need(cycles * bs) = cycles * n (n == partial[bs]), so
  // with cycles the whole cycles that fit, the answer is cycles * bs + r for the
  // largest r with partial[r] within what is left.
  const std::int64_t cycles = free_blocks / n;
  const std::int64_t left = free_blocks - cycles * n;
  std::int64_t r = bs - 1;
  while (partial[r] > left) --r;  // partial[0] = 0 <= left
  return std::clamp<std::int64_t>(cycles * bs + r, 1, std::max<std::int64_t>(1, limit));
}

FailureReason VllmEngine::admissible(const Request& r) const {
  const std::int64_t total = r.input_tokens + r.output_tokens;
  if (total > ctx_.config.max_model_len) return FailureReason::too_long_for_max_model_len;
  // The last sampled token is never written back, so the KV peaks at total - 1 tokens.
  if (blocks_for(total - 1) > total_blocks_) return FailureReason::exceeds_kv_capacity;
  return FailureReason::none;
}

bool VllmEngine::enqueue(Request r, Nanos now) {
  if (const FailureReason why = admissible(r); why != FailureReason::none) {
    if (ctx_.observer) ctx_.observer->on_request_done(failed_record(r, ctx_.replica, why, now));
    return false;
  }
  fresh_bytes_ += queued_request_bytes(r);
  fresh_.push_back(std::move(r));
  return true;
}

void VllmEngine::materialize_front() {
  const int slot = new_slot();
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  s = Seq{};
  fresh_bytes_ -= queued_request_bytes(fresh_.front());
  s.req = std::move(fresh_.front());
  fresh_.pop_front();
  s.rec = arrival_record(s.req, ctx_.replica);
  s.target = s.req.input_tokens;
  if (ctx_.config.prefix_caching && !s.req.block_hashes.empty())
    s.hashes = engine_block_hashes(s.req.block_hashes, s.req.hash_block_tokens, s.req.input_tokens, block_size_);
  s.phase = Phase::waiting;
  waiting_.push_back(slot);
}

void VllmEngine::abort_queued(Nanos now, FailureReason why, const std::function<void(const Request&)>& aborted) {
  while (!fresh_.empty()) {  // popping as it goes frees the queue's memory as it goes
    const Request& r = fresh_.front();
    if (ctx_.observer) ctx_.observer->on_request_done(failed_record(r, ctx_.replica, why, now));
    aborted(r);
    fresh_.pop_front();
  }
  std::deque<Request>().swap(fresh_);
  fresh_bytes_ = 0;
}

void VllmEngine::join_decode(int slot, Nanos now) {
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  s.phase = Phase::decode;
  s.join_step = G_;
  s.len_join = s.computed;
  s.gen_join = s.generated;
  s.key = mod_block(s.len_join - s.join_step);
  s.last_token = now;
  ++bucket_[static_cast<std::size_t>(s.key)];
  ++n_decode_;
  sum_len_minus_join_ += s.len_join - s.join_step;
  ++s.version;
  finishes_.push(Finish{G_ + (s.req.output_tokens - s.generated), s.req.id, slot, s.version});
}

void VllmEngine::leave_decode(int slot) {
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  const std::int64_t len = decode_len(s, G_);
  s.generated = s.gen_join + (G_ - s.join_step);
  s.computed = len;
  used_blocks_ -= blocks_for(len) - s.cached_blocks;
  --bucket_[static_cast<std::size_t>(s.key)];
  --n_decode_;
  sum_len_minus_join_ -= s.len_join - s.join_step;
  ++s.version;  // its completion-heap entry is now stale
}

void VllmEngine::release_cached(Seq& s) {
  used_blocks_ -= cache_.release(s.hashes, s.cached_blocks);
  s.cached_blocks = 0;
}

void VllmEngine::preempt(int slot, Nanos now) {
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  if (s.phase == Phase::decode) {
    leave_decode(slot);
    s.last_token = now;
  } else {
    used_blocks_ -= s.blocks;
    prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), slot));
  }
  release_cached(s);
  s.blocks = 0;
  s.chunk = 0;
  running_erase(slot);
  s.target = s.req.input_tokens + s.generated;
  const std::int64_t kv_blocks = blocks_for(s.computed);
  if (s.computed > 0 && cpu_.enabled() && cpu_.reserve(kv_blocks)) {
    // Swap: the KV (s.computed tokens) moves to host memory during this step.
    s.swapped_blocks = kv_blocks;
    step_transfer_s_ += host_seconds(s.computed);
    ++s.rec.swaps;
  } else {
    // Recompute: everything known so far (prompt and sampled tokens) is prefilled again.
    s.computed = 0;
  }
  s.phase = Phase::waiting;
  ++s.rec.preemptions;
  waiting_.push_front(slot);
}

bool VllmEngine::preempt_tail(Nanos now, int protect_slot) {
  if (running_count_ == 0) return false;
  const int victim = run_tail_;
  if (victim == protect_slot) return false;
  preempt(victim, now);
  return true;
}

void VllmEngine::finish_request(int slot, Nanos now, std::vector<Request>& done, bool failed) {
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  if (s.phase == Phase::decode) leave_decode(slot);
  else if (s.phase == Phase::prefill) used_blocks_ -= s.blocks;
  release_cached(s);
  running_erase(slot);
  s.rec.finish = now;
  s.rec.failed = failed;
  if (ctx_.observer) ctx_.observer->on_request_done(s.rec);
  done.push_back(std::move(s.req));
  s.phase = Phase::free;
  free_slots_.push_back(slot);
}

double VllmEngine::step_seconds(const BatchSummary& b, StepTotals* totals) {
  const StepTotals c = memo_ ? cost_cache_.totals(b) : cost_.totals(b);
  if (totals) *totals = c;
  return step_wall_seconds(c.time, cpu_overheads_, b.seqs);
}

StepTotals VllmEngine::decode_totals(std::int64_t n, std::int64_t kv) {
  if (memo_) return cost_cache_.decode(n, kv);
  BatchSummary b;
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
  b.decode_kv_tokens = static_cast<double>(kv);
  return cost_.totals(b);
}

double VllmEngine::decode_only_step_time(std::int64_t g) {
  // BatchSummary counts ctx + 1 per decoder: the KV length after step g.
  const StepTotals c = decode_totals(n_decode_, sum_len_minus_join_ + n_decode_ * g);
  return step_wall_seconds(c.time, cpu_overheads_, n_decode_);
}

std::int64_t VllmEngine::fast_forward_steps(Nanos now, Nanos horizon, double first_step_time, double* total_time,
                                            double* last_start) {
  // Upper bound: the first completion ends the run of identical steps.
  while (!finishes_.empty()) {
    const Finish& f = finishes_.top();
    if (slots_[static_cast<std::size_t>(f.slot)].version == f.version) break;
    finishes_.pop();
  }
  std::int64_t k_max = finishes_.empty() ? 1 : std::max<std::int64_t>(1, finishes_.top().step - G_);
  // KV: blocks allocated over the run must fit in the free blocks.
  k_max = max_decode_steps(G_ + 1, k_max, total_blocks_ - used_blocks_);
  std::int64_t lo = 1, hi = k_max;
  *last_start = 0.0;
  if (k_max <= 1) {
    *total_time = first_step_time;
    return 1;
  }
  // Step time is affine in the decoders' KV length within a roofline regime, so
  // the sum over k steps is k times the mean of the first and last (trapezoid).
  // One evaluation at the far end gives the slope: step j costs f1 + slope*(j-1).
  const double slope = (decode_only_step_time(G_ + k_max) - first_step_time) / static_cast<double>(k_max - 1);
  auto span = [&](std::int64_t k) {
    const double kk = static_cast<double>(k);
    return kk * first_step_time + slope * kk * (kk - 1.0) / 2.0;
  };
  // The last fused step must start before the horizon (the next arrival or event):
  // now + to_nanos(x) < horizon, i.e. llround(x * 1e9) < horizon - now, i.e.
  // x * 1e9 < horizon - now - 0.5 (to_nanos rounds halves away from zero; x >= 0).
  const double room = static_cast<double>(horizon - now) - 0.5;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (span(mid - 1) * 1e9 < room) lo = mid;
    else hi = mid - 1;
  }
  // With async scheduling a step is planned when the one before it starts, so
  // what arrives at the horizon is first seen by the step after the first one
  // starting at or after it: that step is still a plain decode step and joins the
  // run (step by step, it would run alone with the new request not yet eligible).
  if (ctx_.config.async_scheduling && lo < k_max && !(span(lo) * 1e9 < room)) ++lo;
  *total_time = span(lo);
  *last_start = lo > 1 ? span(lo - 1) : 0.0;
  return lo;
}

Nanos VllmEngine::start_step(Nanos now, Nanos horizon) {
  assert(!in_step_);
  const EngineConfig& cfg = ctx_.config;
  bool preempted = false;
  step_transfer_s_ = 0;

  // 1. Decoders each take one token; make room for their new blocks.
  std::int64_t need = n_decode_ > 0 ? bucket_[static_cast<std::size_t>(key_for_step(G_ + 1))] : 0;
  while (need > total_blocks_ - used_blocks_ && n_decode_ > 0) {
    const int victim = run_tail_;
    const Seq& v = slots_[static_cast<std::size_t>(victim)];
    if (v.phase == Phase::decode && v.key == key_for_step(G_ + 1)) --need;
    preempt(victim, now);
    preempted = true;
    need = n_decode_ > 0 ? bucket_[static_cast<std::size_t>(key_for_step(G_ + 1))] : 0;
  }
  std::int64_t budget = cfg.max_num_batched_tokens - n_decode_;

  // 2. Running prefills continue in admission order.
  for (std::size_t i = 0; i < prefilling_.size() && budget > 0;) {
    const int slot = prefilling_[i];
    Seq& s = slots_[static_cast<std::size_t>(slot)];
    const std::int64_t chunk = std::min(s.target - s.computed, budget);
    const std::int64_t extra = blocks_for(s.computed + chunk) - s.cached_blocks - s.blocks;
    if (extra > total_blocks_ - used_blocks_ - need) {
      if (preempt_tail(now, -1)) {
        preempted = true;
        need = n_decode_ > 0 ? bucket_[static_cast<std::size_t>(key_for_step(G_ + 1))] : 0;
        continue;  // prefilling_ may have changed; retry this index
      }
      break;
    }
    s.chunk = chunk;
    s.blocks += extra;
    used_blocks_ += extra;
    evict_to_fit();
    budget -= chunk;
    ++i;
  }

  // 3. Admit waiting requests (none after a preemption this step, as vLLM does).
  // With async scheduling this step was planned when the previous one started, so
  // only requests that had arrived by then are eligible.
  const Nanos cutoff = cfg.async_scheduling && step_end_ == now ? step_start_ : now;
  std::int64_t queue_len = static_cast<std::int64_t>(waiting_.size() + fresh_.size());
  // Whether admission stopped for a reason that lasts through a run of pure decode
  // steps (no free slot, no token budget, not enough free KV blocks: free blocks
  // only shrink while decoders grow), so such a run may be fused.
  bool admission_settled = true;
  if (preempted) admission_settled = false;
  while (!preempted && budget > 0 && (!waiting_.empty() || !fresh_.empty()) && running_count_ < cfg.max_num_seqs) {
    if (waiting_.empty()) {
      // The next fresh request takes a slot only once it is eligible.
      if (fresh_.front().arrival + frontend_ns_ > cutoff) {
        admission_settled = false;
        break;
      }
      materialize_front();
    }
    const int slot = waiting_.front();
    Seq& s = slots_[static_cast<std::size_t>(slot)];
    if (s.rec.first_scheduled < 0 && s.req.arrival + frontend_ns_ > cutoff) {
      admission_settled = false;
      break;
    }
    // Prefix cache: reuse the longest cached run of leading blocks; at least one
    // prompt token is always computed (it produces the first output's logits).
    // Blocks past the GPU hit that the CPU tier holds are reloaded. A request
    // swapped out at preemption resumes from its swapped KV instead.
    std::int64_t hit = 0, reload = 0;
    if (s.swapped_blocks == 0 && !s.hashes.empty()) {
      const std::int64_t limit = (s.target - 1) / block_size_;
      hit = cache_.match(s.hashes, limit);
      if (cpu_.enabled()) reload = cpu_.match(s.hashes, hit, limit);
      used_blocks_ += cache_.acquire(s.hashes, hit);
      s.cached_blocks = hit;
      s.computed = (hit + reload) * block_size_;
    }
    const std::int64_t remaining = s.target - s.computed;
    const std::int64_t chunk = std::min(remaining, budget);
    const std::int64_t blocks = blocks_for(s.computed + chunk) - s.cached_blocks;
    if ((!cfg.chunked_prefill && remaining > budget) || blocks > total_blocks_ - used_blocks_ - need) {
      if (s.swapped_blocks == 0) {
        release_cached(s);  // undo the hit; it will be looked up again next step
        s.computed = 0;
      }
      break;
    }
    if (s.swapped_blocks > 0) {
      step_transfer_s_ += host_seconds(s.computed);  // swap-in
      cpu_.unreserve(s.swapped_blocks);
      s.swapped_blocks = 0;
    } else if (reload > 0) {
      step_transfer_s_ += host_seconds(reload * block_size_);
      cpu_.touch(s.hashes, hit, reload);
    }
    if (s.rec.first_scheduled < 0) {
      s.rec.cached_tokens = hit * block_size_;
      s.rec.offload_tokens = reload * block_size_;
    }
    waiting_.pop_front();
    --queue_len;
    s.phase = Phase::prefill;
    s.chunk = chunk;
    s.blocks = blocks;
    used_blocks_ += blocks;
    evict_to_fit();
    budget -= chunk;
    if (s.rec.first_scheduled < 0) s.rec.first_scheduled = now;
    running_push_back(slot);
    prefilling_.push_back(slot);
  }

  // 4. Price the batch.
  BatchSummary b;
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n_decode_;
  b.decode_kv_tokens = static_cast<double>(sum_len_minus_join_ + n_decode_ * (G_ + 1));
  std::int64_t prefill_tokens = 0;
  for (int slot : prefilling_) {
    const Seq& s = slots_[static_cast<std::size_t>(slot)];
    if (s.chunk <= 0) continue;
    b.add(SeqWork{s.chunk, s.computed, s.computed + s.chunk == s.target});
    prefill_tokens += s.chunk;
  }
  in_step_ = true;
  step_start_ = now;
  step_decoders_ = n_decode_;
  step_decode_steps_ = n_decode_ > 0 ? 1 : 0;
  if (b.empty()) {
    // Nothing could be scheduled (cannot happen with admissible requests, kept as a guard).
    step_decode_blocks_ = 0;
    step_stage_nanos_ = 1;
    step_end_ = now + 1;
    return now + 1;
  }
  StepTotals totals;
  double seconds = step_seconds(b, &totals);
  std::int64_t k = 1;
  if (fuse_ && prefill_tokens == 0 && n_decode_ > 0 && step_transfer_s_ == 0 &&
      ((waiting_.empty() && fresh_.empty()) || running_count_ >= cfg.max_num_seqs || admission_settled)) {
    double span = seconds, last_start = 0;
    k = fast_forward_steps(now, horizon, seconds, &span, &last_start);
    // Async scheduling plans the step after the run when the run's last step starts.
    step_start_ = now + to_nanos(last_start);
    seconds = span;
  }
  // Host-link transfers (reloads, swaps) hold the step up; fused runs carry none.
  seconds += step_transfer_s_;
  step_decode_steps_ = n_decode_ > 0 ? k : 0;
  step_decode_blocks_ = n_decode_ > 0 ? decode_blocks_needed(G_ + 1, k) : 0;
  used_blocks_ += step_decode_blocks_;
  evict_to_fit();

  const Nanos end = now + std::max<Nanos>(1, to_nanos(seconds));
  step_end_ = end;
  // A pipeline's next step may enter once the busiest stage has taken this one.
  step_stage_nanos_ = ctx_.virtual_engine ? std::max<Nanos>(1, to_nanos(seconds - totals.time + totals.stage_time))
                                          : end - now;
  if (ctx_.observer) {
    // Every field is written below: reusing one record spares zeroing it per step.
    StepRecord& r = step_record_;
    r.replica = ctx_.replica;
    r.start = now;
    r.end = ctx_.virtual_engine ? now + step_stage_nanos_ : end;
    r.steps = k;
    r.batch_seqs = b.seqs;
    r.prefill_tokens = prefill_tokens;
    r.decode_tokens = n_decode_ * k;
    r.kv_blocks_used = used_blocks_;
    r.kv_blocks_total = total_blocks_;
    r.queue_length = queue_len;
    const double scale = static_cast<double>(k);
    r.gpu_time = totals.time * scale;
    r.flops = totals.flops * scale;
    r.bytes = totals.bytes * scale;
    for (int i = 0; i < kBoundCount; ++i) r.time_by_bound[static_cast<std::size_t>(i)] = totals.time_by_bound[static_cast<std::size_t>(i)] * scale;
    // CPU-side time; host transfers count as communication.
    r.time_by_bound[static_cast<int>(Bound::overhead)] += seconds - totals.time * scale - step_transfer_s_;
    r.time_by_bound[static_cast<int>(Bound::communication)] += step_transfer_s_;
    r.bound = static_cast<Bound>(std::max_element(r.time_by_bound.begin(), r.time_by_bound.end()) - r.time_by_bound.begin());
    ctx_.observer->on_step(r);
    if (n_decode_ > 0 && !ctx_.virtual_engine) ctx_.observer->on_itl(seconds / scale, n_decode_ * k);
  }
  return end;
}

void VllmEngine::finish_step(Nanos now, std::vector<Request>& done) {
  assert(in_step_);
  in_step_ = false;
  G_ += step_decode_steps_;
  if (ctx_.virtual_engine) {
    // Other virtual engines' steps interleave with this one's: a decoder's gap is
    // from this engine's previous step end (its previous token) to now.
    if (ctx_.observer && step_decoders_ > 0 && last_finish_ >= 0)
      ctx_.observer->on_itl(to_seconds(now - last_finish_), step_decoders_);
    last_finish_ = now;
  }
  // Decoders whose last token came at this step.
  while (!finishes_.empty()) {
    const Finish f = finishes_.top();
    Seq& s = slots_[static_cast<std::size_t>(f.slot)];
    if (s.version != f.version || s.phase != Phase::decode) {
      finishes_.pop();
      continue;
    }
    if (f.step > G_) break;
    finishes_.pop();
    finish_request(f.slot, now, done, false);
  }
  // Prefill chunks: a completed prompt samples a token.
  scratch_.swap(prefilling_);
  prefilling_.clear();
  for (int slot : scratch_) {
    Seq& s = slots_[static_cast<std::size_t>(slot)];
    s.computed += s.chunk;
    s.chunk = 0;
    if (s.computed < s.target) {
      prefilling_.push_back(slot);
      continue;
    }
    if (!s.hashes.empty()) {
      // The prompt's full blocks become cached for later requests.
      const std::int64_t full = std::min<std::int64_t>(static_cast<std::int64_t>(s.hashes.size()), s.computed / block_size_);
      if (full > s.cached_blocks) {
        const PrefixCache::Registered r = cache_.add(s.hashes, s.cached_blocks, full);
        s.blocks -= r.fresh + r.duplicate + r.revived;
        used_blocks_ -= r.duplicate;
        s.cached_blocks = full;
      }
    }
    ++s.generated;
    if (s.rec.first_token < 0) {
      s.rec.first_token = now;
    } else if (ctx_.observer) {
      ctx_.observer->on_itl(to_seconds(now - s.last_token), 1);  // first token after a recompute or swap-in
    }
    if (s.generated >= s.req.output_tokens) {
      finish_request(slot, now, done, false);
      continue;
    }
    used_blocks_ -= s.blocks;  // the decode aggregate accounts for them from now on
    s.blocks = 0;
    used_blocks_ += blocks_for(s.computed) - s.cached_blocks;
    join_decode(slot, now);
  }
  scratch_.clear();
}

std::unique_ptr<Engine> make_static_engine(const EngineContext& ctx);
std::unique_ptr<Engine> make_pipeline_engine(const EngineContext& ctx);

std::unique_ptr<Engine> make_engine(const EngineContext& ctx) {
  if (ctx.config.kind == "static") return make_static_engine(ctx);
  if (ctx.cost->parallelism().pp > 1 && !ctx.virtual_engine) return make_pipeline_engine(ctx);
  return std::make_unique<VllmEngine>(ctx);
}

}  // namespace servesim
