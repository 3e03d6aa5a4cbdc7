// Pipeline parallelism with micro-batches in flight (vllm engine, pp > 1).
//
// With pp stages a step's latency is the whole pipeline (StepCost::time: every
// stage plus the pp - 1 activation sends), but a stage is free again after its
// own share (StepCost::stage_time, the busiest stage), so vLLM keeps up to pp
// batches in flight. This replica does it as vLLM v0's "virtual engines" do: pp
// independent schedulers (VllmEngine), each with its own waiting and running
// requests and 1/pp of the KV blocks (and of the CPU offload tier), so a request
// belongs to at most one step in flight. An arriving request goes to the virtual
// engine with the fewest unfinished requests (ties: the lowest index), as vLLM v0
// assigns them.
//
// Timing. Let a step have latency t (its wall time: StepCost::time plus the CPU
// overheads and any host transfers) and stage occupancy s (the same with
// stage_time in place of time). A virtual engine with work and no step in flight
// may start one when the first stage is free: at or after the previous step's
// start plus that step's s. A step cannot overtake the one ahead of it in the
// pipeline, so it ends at max(start + t, previous end + s). Hence:
//  - one request alone (concurrency 1) sees steps of latency t exactly, as with
//    pp = 1 but with the slower, send-laden t of a pp-stage pipeline;
//  - with every virtual engine busy, steps enter every s, so the replica runs
//    1/s steps per second (for pp = 2 and equal batches: each engine's step
//    period is max(t, 2 s), and 2 s >= t since t < 2 s for two equal stages).
// Virtual engines never fuse decode steps (their steps interleave), and report
// inter-token gaps between their own step ends; their step records span the
// first-stage occupancy s, so busy time and utilisation count the pipeline's
// issue slots rather than overlapping latencies.
//
// What this leaves out: vLLM v1 instead shares one scheduler and KV cache across
// the in-flight batches (its batch queue); stages are taken as equally loaded
// (every stage runs s); and the CPU overheads are charged to every stage's
// occupancy (the engine core prepares batches one at a time).
#include <deque>

#include "engine/vllm_engine.h"

namespace servesim {
namespace {

class PipelineEngine : public Engine {
 public:
  explicit PipelineEngine(const EngineContext& ctx) : pp_(ctx.cost->parallelism().pp) {
    for (int v = 0; v < pp_; ++v) {
      EngineContext c = ctx;
      c.kv_blocks = ctx.kv_blocks / pp_;
      c.config.cpu_offload_bytes = ctx.config.cpu_offload_bytes / pp_;
      for (KvTierSpec& t : c.config.kv_tiers)
        if (!t.shared) t.capacity_bytes /= pp_;  // each virtual engine holds its share of a per-replica tier
      c.virtual_engine = true;
      ves_.push_back(std::make_unique<VllmEngine>(c));
    }
  }

  bool enqueue(Request r, Nanos now) override {
    int best = 0;
    for (int v = 1; v < pp_; ++v)
      if (ve(v).outstanding() < ve(best).outstanding()) best = v;
    return ve(best).enqueue(std::move(r), now);
  }
  void kv_tier_chains(std::vector<const KvTierChain*>& out) const override {
    for (const auto& e : ves_) e->kv_tier_chains(out);
  }
  bool has_work() const override {
    for (const auto& e : ves_)
      if (e->has_work()) return true;
    return false;
  }
  bool can_start(Nanos now) const override { return now >= entry_free_ && next_ready() >= 0; }
  Nanos next_start() const override { return next_ready() >= 0 ? entry_free_ : kNever; }

  Nanos start_step(Nanos now, Nanos horizon) override {
    const int v = next_ready();
    VllmEngine& e = ve(v);
    const Nanos own_end = e.start_step(now, horizon);
    const Nanos stage = e.step_stage_nanos();
    const Nanos end = std::max(own_end, last_end_ + stage);
    if (end != own_end) e.set_step_end(end);
    entry_free_ = now + stage;
    last_end_ = end;
    in_flight_.push_back(v);
    next_ = (v + 1) % pp_;
    return end;
  }
  void finish_step(Nanos now, std::vector<Request>& done) override {
    const int v = in_flight_.front();
    in_flight_.pop_front();
    ve(v).finish_step(now, done);
  }

  std::int64_t outstanding() const override {
    std::int64_t n = 0;
    for (const auto& e : ves_) n += e->outstanding();
    return n;
  }
  std::int64_t queued() const override {
    std::int64_t n = 0;
    for (const auto& e : ves_) n += e->queued();
    return n;
  }
  std::int64_t queued_bytes() const override {
    std::int64_t n = 0;
    for (const auto& e : ves_) n += e->queued_bytes();
    return n;
  }
  void abort_queued(Nanos now, FailureReason why, const std::function<void(const Request&)>& aborted) override {
    for (auto& e : ves_) e->abort_queued(now, why, aborted);
  }
  void abandon_due(Nanos now, std::vector<Request>& gone) override {
    for (auto& e : ves_) e->abandon_due(now, gone);
  }
  Nanos next_deadline() override {
    Nanos t = kNever;
    for (auto& e : ves_) t = std::min(t, e->next_deadline());
    return t;
  }
  double kv_load() const override {
    std::int64_t used = 0, total = 0;
    for (const auto& e : ves_) {
      used += e->used_blocks();
      total += e->kv_blocks_total();
    }
    return total > 0 ? static_cast<double>(used) / static_cast<double>(total) : 0.0;
  }
  std::int64_t kv_blocks_total() const override {
    std::int64_t n = 0;
    for (const auto& e : ves_) n += e->kv_blocks_total();
    return n;
  }

 private:
  VllmEngine& ve(int v) const { return *ves_[static_cast<std::size_t>(v)]; }
  // The virtual engine to run next: idle with work, in turn from the one after
  // the last started; -1 if none.
  int next_ready() const {
    for (int i = 0; i < pp_; ++i) {
      const int v = (next_ + i) % pp_;
      if (!ve(v).in_step() && ve(v).has_work()) return v;
    }
    return -1;
  }

  int pp_;
  std::vector<std::unique_ptr<VllmEngine>> ves_;
  std::deque<int> in_flight_;  // virtual engines with a step in flight, in pipeline order
  Nanos entry_free_ = 0;       // when the first stage takes the next step
  Nanos last_end_ = 0;         // end of the last step started
  int next_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_pipeline_engine(const EngineContext& ctx) { return std::make_unique<PipelineEngine>(ctx); }

}  // namespace servesim
