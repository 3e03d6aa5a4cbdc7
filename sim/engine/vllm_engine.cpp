#include "engine/vllm_engine.h"

#include <algorithm>
#include <cassert>

namespace servesim {

VllmEngine::VllmEngine(const EngineContext& ctx)
    : ctx_(ctx),
      cost_(*ctx.cost),
      block_size_(ctx.config.block_size),
      total_blocks_(ctx.kv_blocks),
      bucket_(static_cast<std::size_t>(ctx.config.block_size), 0) {}

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
  const std::int64_t bs = block_size_;
  return static_cast<int>((((1 - g) % bs) + bs) % bs);
}

std::int64_t VllmEngine::decode_blocks_needed(std::int64_t from_step, std::int64_t steps) const {
  // Blocks the decoders allocate over decode steps from_step .. from_step+steps-1:
  // every block_size steps each decoder needs exactly one.
  const std::int64_t bs = block_size_;
  const std::int64_t cycles = steps / bs;
  std::int64_t need = cycles * n_decode_;
  for (std::int64_t j = 0; j < steps % bs; ++j) need += bucket_[static_cast<std::size_t>(key_for_step(from_step + j))];
  return need;
}

bool VllmEngine::admissible(const Seq& s) const {
  const std::int64_t total = s.req.input_tokens + s.req.output_tokens;
  // The last sampled token is never written back, so the KV peaks at total - 1 tokens.
  return total <= ctx_.config.max_model_len && blocks_for(total - 1) <= total_blocks_;
}

bool VllmEngine::enqueue(Request r, Nanos now) {
  const int slot = new_slot();
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  s = Seq{};
  s.req = std::move(r);
  s.rec.id = s.req.id;
  s.rec.replica = ctx_.replica;
  s.rec.arrival = s.req.arrival;
  s.rec.input_tokens = s.req.input_tokens;
  s.rec.output_tokens = s.req.output_tokens;
  s.target = s.req.input_tokens;
  if (ctx_.config.prefix_caching && !s.req.block_hashes.empty())
    s.hashes = engine_block_hashes(s.req.block_hashes, s.req.hash_block_tokens, s.req.input_tokens, block_size_);
  if (!admissible(s)) {
    s.rec.failed = true;
    s.rec.finish = now;
    if (ctx_.observer) ctx_.observer->on_request_done(s.rec);
    s.phase = Phase::free;
    free_slots_.push_back(slot);
    return false;
  }
  s.phase = Phase::waiting;
  waiting_.push_back(slot);
  return true;
}

void VllmEngine::join_decode(int slot, Nanos now) {
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  s.phase = Phase::decode;
  s.join_step = G_;
  s.len_join = s.computed;
  s.gen_join = s.generated;
  const std::int64_t bs = block_size_;
  s.key = static_cast<int>((((s.len_join - s.join_step) % bs) + bs) % bs);
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
  running_.erase(s.pos);
  // Recompute: everything known so far (prompt and sampled tokens) is prefilled again.
  s.computed = 0;
  s.target = s.req.input_tokens + s.generated;
  s.phase = Phase::waiting;
  ++s.rec.preemptions;
  waiting_.push_front(slot);
}

bool VllmEngine::preempt_tail(Nanos now, int protect_slot) {
  if (running_.empty()) return false;
  const int victim = running_.back();
  if (victim == protect_slot) return false;
  preempt(victim, now);
  return true;
}

void VllmEngine::finish_request(int slot, Nanos now, std::vector<Request>& done, bool failed) {
  Seq& s = slots_[static_cast<std::size_t>(slot)];
  if (s.phase == Phase::decode) leave_decode(slot);
  else if (s.phase == Phase::prefill) used_blocks_ -= s.blocks;
  release_cached(s);
  running_.erase(s.pos);
  s.rec.finish = now;
  s.rec.failed = failed;
  if (ctx_.observer) ctx_.observer->on_request_done(s.rec);
  done.push_back(std::move(s.req));
  s.phase = Phase::free;
  free_slots_.push_back(slot);
}

double VllmEngine::step_seconds(const BatchSummary& b, StepCost* totals) const {
  const StepCost c = cost_.totals(b);
  if (totals) *totals = c;
  return c.time + ctx_.config.step_cpu_overhead + ctx_.config.per_seq_cpu_overhead * static_cast<double>(b.seqs);
}

double VllmEngine::decode_only_step_time(std::int64_t g) const {
  BatchSummary b;
  b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n_decode_;
  b.decode_kv_tokens = static_cast<double>(sum_len_minus_join_ + n_decode_ * g);
  return step_seconds(b, nullptr);
}

std::int64_t VllmEngine::fast_forward_steps(Nanos now, Nanos horizon, double first_step_time, double* total_time) {
  // Upper bound: the first completion ends the run of identical steps.
  while (!finishes_.empty()) {
    const Finish& f = finishes_.top();
    if (slots_[static_cast<std::size_t>(f.slot)].version == f.version) break;
    finishes_.pop();
  }
  std::int64_t k_max = finishes_.empty() ? 1 : std::max<std::int64_t>(1, finishes_.top().step - G_);
  // KV: blocks allocated over the run must fit in the free blocks.
  const std::int64_t free_blocks = total_blocks_ - used_blocks_;
  std::int64_t lo = 1, hi = k_max;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (decode_blocks_needed(G_ + 1, mid) <= free_blocks) lo = mid;
    else hi = mid - 1;
  }
  k_max = lo;
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
  // The last fused step must start before the horizon (the next arrival or event).
  lo = 1;
  hi = k_max;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (now + to_nanos(span(mid - 1)) < horizon) lo = mid;
    else hi = mid - 1;
  }
  *total_time = span(lo);
  return lo;
}

Nanos VllmEngine::start_step(Nanos now, Nanos horizon) {
  assert(!in_step_);
  const EngineConfig& cfg = ctx_.config;
  bool preempted = false;

  // 1. Decoders each take one token; make room for their new blocks.
  std::int64_t need = n_decode_ > 0 ? bucket_[static_cast<std::size_t>(key_for_step(G_ + 1))] : 0;
  while (need > total_blocks_ - used_blocks_ && n_decode_ > 0) {
    const int victim = running_.back();
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
  std::int64_t queue_len = static_cast<std::int64_t>(waiting_.size());
  while (!preempted && budget > 0 && !waiting_.empty() &&
         static_cast<std::int64_t>(running_.size()) < cfg.max_num_seqs) {
    const int slot = waiting_.front();
    Seq& s = slots_[static_cast<std::size_t>(slot)];
    if (s.rec.first_scheduled < 0 && s.req.arrival + to_nanos(cfg.frontend_latency) > cutoff) break;
    // Prefix cache: reuse the longest cached run of leading blocks; at least one
    // prompt token is always computed (it produces the first output's logits).
    std::int64_t hit = 0;
    if (!s.hashes.empty()) {
      hit = cache_.match(s.hashes, (s.target - 1) / block_size_);
      used_blocks_ += cache_.acquire(s.hashes, hit);
      s.cached_blocks = hit;
      s.computed = hit * block_size_;
    }
    const std::int64_t remaining = s.target - s.computed;
    const std::int64_t chunk = std::min(remaining, budget);
    const std::int64_t blocks = blocks_for(s.computed + chunk) - s.cached_blocks;
    if ((!cfg.chunked_prefill && remaining > budget) || blocks > total_blocks_ - used_blocks_ - need) {
      release_cached(s);  // undo the hit; it will be looked up again next step
      s.computed = 0;
      break;
    }
    if (s.rec.first_scheduled < 0) s.rec.cached_tokens = hit * block_size_;
    waiting_.pop_front();
    --queue_len;
    s.phase = Phase::prefill;
    s.chunk = chunk;
    s.blocks = blocks;
    used_blocks_ += blocks;
    evict_to_fit();
    budget -= chunk;
    if (s.rec.first_scheduled < 0) s.rec.first_scheduled = now;
    running_.push_back(slot);
    s.pos = std::prev(running_.end());
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
    return now + 1;
  }
  StepCost totals;
  double seconds = step_seconds(b, &totals);
  std::int64_t k = 1;
  if (ctx_.fast_forward && prefill_tokens == 0 && n_decode_ > 0 &&
      (waiting_.empty() || static_cast<std::int64_t>(running_.size()) >= cfg.max_num_seqs)) {
    double span = seconds;
    k = fast_forward_steps(now, horizon, seconds, &span);
    seconds = span;
  }
  step_decode_steps_ = n_decode_ > 0 ? k : 0;
  step_decode_blocks_ = n_decode_ > 0 ? decode_blocks_needed(G_ + 1, k) : 0;
  used_blocks_ += step_decode_blocks_;
  evict_to_fit();

  const Nanos end = now + std::max<Nanos>(1, to_nanos(seconds));
  step_end_ = end;
  if (ctx_.observer) {
    StepRecord r;
    r.replica = ctx_.replica;
    r.start = now;
    r.end = end;
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
    r.time_by_bound[static_cast<int>(Bound::overhead)] += seconds - totals.time * scale;  // CPU-side time
    r.bound = static_cast<Bound>(std::max_element(r.time_by_bound.begin(), r.time_by_bound.end()) - r.time_by_bound.begin());
    ctx_.observer->on_step(r);
    if (n_decode_ > 0) ctx_.observer->on_itl(seconds / scale, n_decode_ * k);
  }
  return end;
}

void VllmEngine::finish_step(Nanos now, std::vector<Request>& done) {
  assert(in_step_);
  in_step_ = false;
  G_ += step_decode_steps_;
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
  std::vector<int> still;
  still.reserve(prefilling_.size());
  const std::vector<int> chunks = prefilling_;
  prefilling_.clear();
  for (int slot : chunks) {
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
      ctx_.observer->on_itl(to_seconds(now - s.last_token), 1);  // first token after a recompute
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
}

std::unique_ptr<Engine> make_static_engine(const EngineContext& ctx);

std::unique_ptr<Engine> make_engine(const EngineContext& ctx) {
  if (ctx.config.kind == "static") return make_static_engine(ctx);
  return std::make_unique<VllmEngine>(ctx);
}

}  // namespace servesim
