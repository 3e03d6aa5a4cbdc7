#include "engine/vllm_engine.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace servesim {

VllmEngine::VllmEngine(const EngineContext& ctx)
    : fuse_(ctx.fast_forward && !ctx.virtual_engine),
      local_(ctx.cost->model().local.enabled()),
      lora_(ctx.config.lora.enabled),
      async_(ctx.config.async_scheduling),
      virtual_(ctx.virtual_engine),
      replica_(ctx.replica),
      observer_(ctx.observer),
      policy_(make_scheduling_policy(ctx.config)),
      pricer_(*ctx.cost, ctx.config.cpu_overheads(), ctx.memory.kv_bytes_per_token, ctx.fast_forward, ctx.step_costs),
      state_(ctx, pricer_),
      ctx_(ctx) {
  if (ctx.draft_cost && ctx.config.speculative.enabled()) {
    spec_ = true;
    spec_k_ = ctx.config.speculative.num_speculative_tokens;
    spec_expected_ = ctx.config.speculative.expected_tokens();
    pricer_.set_drafter(ctx.draft_cost);
    fuse_ = false;
  }
  // Chaining needs fused runs to follow the head, and none of what makes a step's end
  // matter beyond the engine: LoRA slots, users' deadlines, local attention's windows.
  chain_ = ctx.chain_prefill && fuse_ && !local_ && !lora_ && ctx.patience == nullptr;
}

std::int64_t VllmEngine::spec_emitted(std::int64_t s) const {
  // floor(s E) - floor((s-1) E); E is an exact integer when alpha is 0 or 1.
  const double e = spec_expected_;
  return static_cast<std::int64_t>(std::floor(static_cast<double>(s) * e)) -
         static_cast<std::int64_t>(std::floor(static_cast<double>(s - 1) * e));
}

std::int64_t VllmEngine::fast_forward_steps(Nanos now, Nanos horizon, double first_step_time, const LoraLoad& lora,
                                            double* total_time, double* last_start) {
  const DecodeAggregate& dec = state_.decoders();
  const std::int64_t g = dec.step();
  // Upper bound: the first completion ends the run of identical steps.
  const std::int64_t finish = state_.next_finish_step();
  std::int64_t k_max = finish < 0 ? 1 : std::max<std::int64_t>(1, finish - g);
  // Local attention: the run ends before a decoder fills its window, starts a new
  // chunk or reaches its block cap (past which its sums change slope).
  const LocalDecoders& local = state_.local_decoders();
  if (local_) k_max = std::min(k_max, local.steps_left(g + 1));
  // KV: blocks allocated over the run must fit in the free blocks.
  k_max = dec.max_steps(g + 1, k_max, state_.kv().free());
  *last_start = 0.0;
  run_ = FusedRun{};
  if (k_max <= 1) {
    *total_time = first_step_time;
    return 1;
  }
  // Step time is affine in the decoders' KV length within a roofline regime, so
  // the sum over k steps is k times the mean of the first and last (trapezoid).
  // One evaluation at the far end gives the slope: step j costs f1 + slope*(j-1).
  const double last_step_time =
      local_ ? pricer_.decode_seconds(dec.count(), dec.kv_tokens(g + k_max), local.kv_tokens(g + k_max, dec.count()),
                                      lora)
             : pricer_.decode_seconds(dec.count(), dec.kv_tokens(g + k_max), 0, lora);
  const double slope = (last_step_time - first_step_time) / static_cast<double>(k_max - 1);
  const std::int64_t k = fused_steps(now, horizon, first_step_time, slope, k_max, total_time, last_start);
  if (k > 1) run_ = FusedRun{now, first_step_time, slope, k};
  return k;
}

std::int64_t VllmEngine::fused_steps(Nanos now, Nanos horizon, double first_step_time, double slope,
                                     std::int64_t k_max, double* total_time, double* last_start) const {
  std::int64_t lo = 1, hi = k_max;
  auto span = [&](std::int64_t k) {
    const double kk = static_cast<double>(k);
    return kk * first_step_time + slope * kk * (kk - 1.0) / 2.0;
  };
  // The last fused step must start before the horizon (the next arrival or event):
  // now + to_nanos(x) < horizon, i.e. llround(x * 1e9) < horizon - now, i.e.
  // x * 1e9 < horizon - now - 0.5 (to_nanos rounds halves away from zero; x >= 0).
  const double room = static_cast<double>(horizon - now) - 0.5;
  // fits(j): a run of j + 1 steps starts its last one before the horizon. span() is
  // nondecreasing in k (f > 0 and slope >= 0: the step time grows with the KV, and
  // every rounding is monotone), so fits() holds for j up to some j* and no further,
  // and any search returns the same j*. The quadratic's root gives it to within a
  // step or two; two checks confirm it, and a binary search over [1, k_max] takes
  // over whenever the estimate is not confirmed that way.
  auto fits = [&](std::int64_t j) { return span(j) * 1e9 < room; };
  // (The binary search alone, as before, for a slope < 0, which the model never gives.)
  bool found = false;
  if (slope >= 0 && first_step_time > 0) {
    // span(j) = budget: (slope / 2) j^2 + (f - slope / 2) j - budget = 0.
    const double budget = room * 1e-9, b = first_step_time - slope / 2.0;
    const double root = slope > 0 ? (std::sqrt(b * b + 2.0 * slope * budget) - b) / slope : budget / first_step_time;
    std::int64_t j = 0;
    if (root >= 1.0) j = root < static_cast<double>(k_max - 1) ? static_cast<std::int64_t>(root) : k_max - 1;
    for (int tries = 0; tries < 2 && j > 0 && !fits(j); ++tries) --j;
    for (int tries = 0; tries < 2 && j + 1 < k_max && fits(j + 1); ++tries) ++j;
    // The search's answer is 1 + the largest j in [1, k_max - 1] with fits(j) (0 if none).
    found = (j == 0 || fits(j)) && (j + 1 >= k_max || !fits(j + 1));
    if (found) lo = j + 1;
  }
  if (!found) {
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (fits(mid - 1)) lo = mid;
      else hi = mid - 1;
    }
  }
  // With async scheduling a step is planned when the one before it starts, so
  // what arrives at the horizon is first seen by the step after the first one
  // starting at or after it: that step is still a plain decode step and joins the
  // run (step by step, it would run alone with the new request not yet eligible).
  if (async_ && lo < k_max && !(span(lo) * 1e9 < room)) ++lo;
  *total_time = span(lo);
  *last_start = lo > 1 ? span(lo - 1) : 0.0;
  return lo;
}

void VllmEngine::PausedDecoders::pause(std::int64_t decoders, double seconds) {
  for (Group& g : groups_) g.seconds += seconds;
  if (decoders > total_) {
    // Those that joined since the last prefill-only step: the youngest group.
    groups_.push_back(Group{decoders - total_, seconds});
    total_ = decoders;
  }
}

void VllmEngine::PausedDecoders::emit(RunObserver& obs, double gap, std::int64_t samples, std::int64_t decoders) {
  // Preemption takes the most recently admitted decoders, the youngest groups' first.
  while (total_ > decoders) {
    Group& g = groups_.back();
    const std::int64_t drop = std::min(g.count, total_ - decoders);
    g.count -= drop;
    total_ -= drop;
    if (g.count == 0) groups_.pop_back();
  }
  if (samples > total_) obs.on_itl(gap, samples - total_);
  for (const Group& g : groups_) obs.on_itl(gap + g.seconds, g.count);
  groups_.clear();
  total_ = 0;
}

LoraLoad VllmEngine::lora_load(std::int64_t n_decode) const {
  // The step's tokens with an adapter (its prefill chunks' and its decoders'), over the
  // distinct adapters running.
  const LoraSlots& lora = *state_.lora();
  LoraLoad l;
  for (int slot : state_.prefilling()) {
    const BatchState::Seq& s = state_.seq(slot);
    if (s.chunk > 0 && lora.adapter(s.req.id, s.req.session) >= 0) l.tokens += s.chunk;
  }
  if (n_decode > 0) l.tokens += state_.lora_decode_seqs();
  if (l.tokens > 0) {
    l.adapters = lora.active();
    l.rank = lora.rank();
  }
  return l;
}

// A chained head. Nearly every request costs a step that prefills its prompt and
// decodes the others' next tokens, after which, at fleet scale, a run of decode steps
// follows until the next arrival or completion. Such a step's end changes nothing
// outside the engine (no request finishes, none waits to be admitted, the router's
// outstanding counts stay), so its end and the start of what follows are done in the
// same event, which the event loop then sees end where the run after it ends. The
// schedule is the one of two events: the same plan at the head's end (its cutoff,
// its horizon: with a shared horizon the chain is made only when no event comes
// before the head ends) and an arrival routed here before the head ends cuts what
// follows to what the step planned at the head's end would have been (interrupt).
bool VllmEngine::head_chainable(bool paused, double transfer_s) {
  if (paused || transfer_s != 0 || !state_.queue_empty()) return false;
  const DecodeAggregate& dec = state_.decoders();
  // No decoder finishes at this step (finish_decoders drains the step after it).
  const std::int64_t finish = state_.next_finish_step();
  if (finish >= 0 && finish <= dec.step() + (dec.count() > 0 ? 1 : 0)) return false;
  for (int slot : state_.prefilling()) {
    const BatchState::Seq& s = state_.seq(slot);
    if (s.chunk <= 0 || s.computed + s.chunk != s.target || s.generated + 1 >= s.req.output_tokens ||
        s.hash_blocks > 0)
      return false;
  }
  return true;
}

Nanos VllmEngine::chain_after_head(Nanos head_end, Nanos horizon) {
  // The head's end, as finish_step does it (no request is done: head_chainable).
  head_start_ = step_start_;
  in_step_ = false;
  run_.steps = 0;
  if (record_.pending) emit_record();
  state_.advance_decoders(step_decode_steps_);
  state_.finish_decoders(head_end, chain_done_);
  state_.complete_chunks(head_end, chain_done_);
  assert(chain_done_.empty());
  head_end_ = head_end;
  if (state_.decoders().next_step_blocks() > state_.kv().free()) {
    // The next plan preempts: it is left to the head's end event (an empty step).
    in_step_ = true;
    step_decode_steps_ = 0;
    return head_end;
  }
  return start_step(head_end, horizon);  // decode only: it chains no further
}

Nanos VllmEngine::start_step(Nanos now, Nanos horizon) {
  assert(!in_step_);
  // 1. The policy plans the step. With async scheduling this step was planned when
  // the previous one started, so only requests that had arrived by then are seen.
  const Nanos cutoff = async_ && step_end_ == now ? step_start_ : now;
  state_.begin_step();
  state_.kv().set_time(now);  // the KV tiers' ttl is read against the step's time
  if (lora_) [[unlikely]] state_.lora()->set_time(now);
  if (spec_) state_.decoders().set_step_tokens(spec_emitted(spec_steps_ + 1), spec_k_ + 1);
  const bool steady = policy_->plan(state_, now, cutoff);
  const double transfer_s = state_.transfer_seconds();
  DecodeAggregate& dec = state_.decoders();
  KvBlocks& kv = state_.kv();
  // A prefill-only step (vllm_v0_prefill_first) leaves the decoders out.
  const bool paused = state_.decoders_paused();
  const std::int64_t n_decode = paused ? 0 : dec.count();

  // 2. The batch: every decoder's next token, then the prefill chunks.
  BatchSummary b;
  if (local_) b.local = ctx_.cost->model().local;
  if (!spec_) {
    b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n_decode;
    b.decode_kv_tokens = paused ? 0.0 : static_cast<double>(dec.kv_tokens(dec.step() + 1));
    if (local_ && n_decode > 0)
      b.decode_local_kv_tokens = static_cast<double>(state_.local_decoders().kv_tokens(dec.step() + 1, n_decode));
  } else if (n_decode > 0) {
    StepPricer::add_verify(b, n_decode, static_cast<double>(dec.kv_tokens(dec.step())), spec_k_ + 1);
  }
  std::int64_t prefill_tokens = 0;
  for (int slot : state_.prefilling()) {
    const BatchState::Seq& s = state_.seq(slot);
    if (s.chunk <= 0) continue;
    b.add(SeqWork{s.chunk, s.computed, s.computed + s.chunk == s.target});
    prefill_tokens += s.chunk;
  }
  if (lora_) [[unlikely]] b.lora = lora_load(n_decode);
  in_step_ = true;
  step_start_ = now;
  step_decoders_ = n_decode;
  step_paused_ = paused ? dec.count() : 0;
  step_decode_steps_ = n_decode > 0 ? 1 : 0;
  if (b.empty()) {
    // Nothing could be scheduled (cannot happen with admissible requests, kept as a guard).
    step_stage_nanos_ = 1;
    step_end_ = now + 1;
    return now + 1;
  }

  // 3. Price it, fusing a run of identical decode-only steps when nothing would
  // change before the next event.
  StepTotals totals;
  double seconds = 0;
  std::int64_t emitted = 1;  // tokens each decoder emits per decode step
  if (spec_ && n_decode > 0) {
    emitted = dec.step_tokens();
    ++spec_steps_;
    seconds = pricer_.speculative_seconds(b, pricer_.draft_totals(n_decode, dec.kv_tokens(dec.step()), spec_k_),
                                          &totals);
  } else {
    seconds = pricer_.seconds(b, &totals);
  }
  std::int64_t k = 1;
  if (fuse_ && prefill_tokens == 0 && n_decode > 0 && transfer_s == 0 && steady) {
    double span = seconds, last_start = 0;
    k = fast_forward_steps(now, horizon, seconds, b.lora, &span, &last_start);
    // Async scheduling plans the step after the run when the run's last step starts.
    step_start_ = now + to_nanos(last_start);
    seconds = span;
  }
  // Host-link transfers (reloads, swaps) hold the step up; fused runs carry none.
  seconds += transfer_s;
  step_decode_steps_ = n_decode > 0 ? k * emitted : 0;
  kv.allocate(n_decode > 0 ? dec.blocks_needed(dec.step() + 1, k * emitted) : 0);

  const Nanos end = now + std::max<Nanos>(1, to_nanos(seconds));
  step_end_ = end;
  // A pipeline's next step may enter once the busiest stage has taken this one.
  step_stage_nanos_ = virtual_ ? std::max<Nanos>(1, to_nanos(seconds - totals.time + totals.stage_time))
                                          : end - now;
  if (observer_) {
    StepRecord& r = record_.r;
    r.replica = replica_;
    r.start = now;
    r.end = virtual_ ? now + step_stage_nanos_ : end;
    r.steps = k;
    r.batch_seqs = b.seqs;
    r.prefill_tokens = prefill_tokens;
    r.decode_tokens = n_decode * k * emitted;
    r.kv_blocks_used = kv.used();
    r.kv_blocks_total = kv.total();
    r.queue_length = state_.queue_length();
    record_.totals = totals;
    record_.seconds = seconds;
    record_.transfer_s = transfer_s;
    record_.emitted = emitted;
    record_.n_decode = n_decode;
    // A virtual engine reports at once (its gaps are timed at its step ends); the
    // others when the step ends, so that an interrupted run reports what it ran.
    if (virtual_) emit_record();
    else record_.pending = true;
  }
  // A head ending before the horizon (a shared one: no event comes before it ends)
  // whose end changes nothing outside the engine runs on into what follows it.
  if (chain_ && prefill_tokens > 0 && end < horizon && head_chainable(paused, transfer_s))
    return chain_after_head(end, horizon);
  return end;
}

void VllmEngine::emit_record() {
  StepRecord& r = record_.r;
  StepPricer::record_cost(r, record_.totals, r.steps, record_.seconds, record_.transfer_s);
  observer_->on_step(r);
  record_.pending = false;
  if (virtual_) return;
  if (step_paused_ > 0) pauses_.pause(step_paused_, record_.seconds);
  if (record_.n_decode > 0) {
    // A speculating step emits `emitted` tokens per decoder (1 otherwise).
    const std::int64_t tokens = r.steps * record_.emitted;
    const double gap = record_.seconds / static_cast<double>(tokens);
    if (pauses_.empty()) observer_->on_itl(gap, record_.n_decode * tokens);
    else pauses_.emit(*observer_, gap, record_.n_decode * tokens, record_.n_decode);
  }
}

bool VllmEngine::interrupt(Nanos t) {
  if (!in_step_ || t >= step_end_) return false;
  // The decode steps in flight (a fused run never speculates: one token each).
  const std::int64_t steps = step_decode_steps_;
  double total = 0, last_start = 0;
  std::int64_t j = 0;
  Nanos start = run_.start;
  if (head_end_ >= 0 && t <= head_end_) {
    // Routed here before a chained head ended: the step planned at the head's end
    // would have taken it (none of what follows runs) or, with async scheduling,
    // was planned when the head started and runs alone (its record: with the
    // request waiting, as that step's plan would have found it).
    if (record_.pending) record_.r.queue_length = state_.queue_length();
    j = async_ ? 1 : 0;
    if (j >= steps) return false;
    start = head_end_;
    total = run_.first_step_s;  // j == 1 < steps: what follows is a fused run
  } else {
    if (run_.steps <= 1) return false;
    // The run as fast_forward_steps would have cut it had `t` been its horizon (its
    // search is a function of the horizon, the first step's time and the slope alone).
    j = fused_steps(run_.start, t, run_.first_step_s, run_.slope, run_.steps, &total, &last_start);
    if (j >= run_.steps) return false;
  }
  DecodeAggregate& dec = state_.decoders();
  // The KV blocks of the steps that will not run go back.
  const std::int64_t freed =
      dec.blocks_needed(dec.step() + 1, steps) - (j > 0 ? dec.blocks_needed(dec.step() + 1, j) : 0);
  state_.kv().release(freed);
  run_.steps = j;
  step_decode_steps_ = j;
  if (j == 0) {
    // Nothing after the head runs: the state is the head's end's, its record gone.
    step_end_ = start;
    step_start_ = head_start_;
    step_stage_nanos_ = step_end_ - start;
    record_.pending = false;
    return true;
  }
  step_end_ = start + std::max<Nanos>(1, to_nanos(total));
  step_start_ = start + to_nanos(last_start);
  step_stage_nanos_ = step_end_ - start;
  if (record_.pending) {
    StepRecord& r = record_.r;
    r.steps = j;
    r.end = step_end_;
    r.decode_tokens = record_.n_decode * j;
    r.kv_blocks_used -= freed;
    record_.seconds = total;
  }
  return true;
}

void VllmEngine::finish_step(Nanos now, std::vector<Request>& done) {
  assert(in_step_);
  in_step_ = false;
  head_end_ = -1;
  run_.steps = 0;
  if (record_.pending) emit_record();
  state_.advance_decoders(step_decode_steps_);
  if (virtual_) {
    // Other virtual engines' steps interleave with this one's: a decoder's gap is
    // from this engine's previous step end (its previous token) to now.
    if (observer_ && last_finish_ >= 0) {
      const double gap = to_seconds(now - last_finish_);
      if (step_paused_ > 0) pauses_.pause(step_paused_, gap);
      if (step_decoders_ > 0) {
        if (pauses_.empty()) observer_->on_itl(gap, step_decoders_);
        else pauses_.emit(*observer_, gap, step_decoders_, step_decoders_);
      }
    }
    last_finish_ = now;
  }
  state_.finish_decoders(now, done);  // decoders whose last token came at this step
  state_.complete_chunks(now, done);  // prefill chunks: a completed prompt samples a token
}

}  // namespace servesim
