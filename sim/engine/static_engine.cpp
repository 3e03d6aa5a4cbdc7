// Static batching (FasterTransformer / early TensorRT-LLM benchmarks): up to
// max_num_seqs waiting requests form a batch whose KV for prompt + output is
// reserved up front; the batch prefills in one step, then decodes until its
// longest request is done. Finished sequences keep their slot (padding) until the
// batch ends, so the batch runs at its full size throughout.
// As Transformers' generate() runs it (EngineConfig::pad_to_longest, release_at_batch_end):
// every prompt is padded to the batch's longest, so the prefill and every decode step work
// on max-prompt tokens of KV per sequence, the KV reserved is the padded length plus the
// longest output for each, and all requests are returned together when the batch ends.
#include <algorithm>
#include <deque>

#include "engine/engine.h"
#include "engine/queued_request.h"
#include "engine/step_pricing.h"

namespace servesim {
namespace {

class StaticEngine : public Engine {
 public:
  // Steps are priced by the model itself (no step-cost cache: a static batch's
  // shapes rarely repeat), with the same CPU overheads as the vLLM-style engine.
  explicit StaticEngine(const EngineContext& ctx)
      : ctx_(ctx), pricer_(*ctx.cost, ctx.config.cpu_overheads(), ctx.memory.kv_bytes_per_token, false) {}

  bool enqueue(Request r, Nanos now) override {
    const std::int64_t total = r.input_tokens + r.output_tokens;
    const std::int64_t cap = ctx_.max_request_blocks > 0 ? ctx_.max_request_blocks : ctx_.kv_blocks;
    if (total > ctx_.config.max_model_len || blocks_for(total) > cap) {
      const FailureReason why = total > ctx_.config.max_model_len ? FailureReason::too_long_for_max_model_len
                                                                  : FailureReason::exceeds_kv_capacity;
      if (ctx_.observer) ctx_.observer->on_request_done(failed_record(r, ctx_.replica, why, now));
      return false;
    }
    waiting_.emplace_back(std::move(r));
    queued_bytes_ += waiting_.back().bytes();
    return true;
  }
  std::int64_t queued() const override { return static_cast<std::int64_t>(waiting_.size()); }
  std::int64_t queued_bytes() const override { return queued_bytes_; }
  void abort_queued(Nanos now, FailureReason why, const std::function<void(const Request&)>& aborted) override {
    while (!waiting_.empty()) {
      const Request r = waiting_.front().take();
      if (ctx_.observer) ctx_.observer->on_request_done(failed_record(r, ctx_.replica, why, now));
      aborted(r);
      waiting_.pop_front();
    }
    queued_bytes_ = 0;
  }
  bool has_work() const override { return !waiting_.empty() || !batch_.empty(); }
  bool can_start(Nanos /*now*/) const override { return !in_step_ && has_work(); }
  std::int64_t outstanding() const override { return static_cast<std::int64_t>(waiting_.size() + batch_.size()); }
  double kv_load() const override { return ctx_.kv_blocks > 0 ? static_cast<double>(used_) / ctx_.kv_blocks : 0.0; }
  std::int64_t kv_blocks_total() const override { return ctx_.kv_blocks; }

  Nanos start_step(Nanos now, Nanos /*horizon*/) override {
    in_step_ = true;
    BatchSummary b = ctx_.cost->batch();
    std::int64_t prefill_tokens = 0;
    if (batch_.empty()) {
      // Form a batch: FCFS while slots and reserved KV allow.
      pad_input_ = 0;
      std::int64_t pad_output = 0;
      while (!waiting_.empty() && static_cast<std::int64_t>(batch_.size()) < ctx_.config.max_num_seqs) {
        const QueuedRequest& q = waiting_.front();
        std::int64_t blocks = blocks_for(q.input_tokens() + q.output_tokens());
        if (ctx_.config.pad_to_longest) {
          // Every member holds the padded prompt and the longest output: the whole batch's
          // reservation grows with a longer newcomer.
          const std::int64_t in = std::max(pad_input_, q.input_tokens()), out = std::max(pad_output, q.output_tokens());
          const std::int64_t total = (static_cast<std::int64_t>(batch_.size()) + 1) * blocks_for(in + out);
          if (total > ctx_.kv_blocks) break;
          pad_input_ = in;
          pad_output = out;
          blocks = total - used_;
        } else if (used_ + blocks > ctx_.kv_blocks) {
          break;
        }
        used_ += blocks;
        queued_bytes_ -= q.bytes();
        Member m{waiting_.front().take(), {}, 0};
        waiting_.pop_front();
        m.rec = arrival_record(m.req, ctx_.replica);
        m.rec.first_scheduled = now;
        batch_.push_back(std::move(m));
      }
      prefill_ = true;
      decode_steps_ = 0;
      for (const auto& m : batch_) {
        const std::int64_t in = ctx_.config.pad_to_longest ? pad_input_ : m.req.input_tokens;
        b.add(SeqWork{in, 0, true});
        prefill_tokens += in;
      }
    } else {
      prefill_ = false;
      for (const auto& m : batch_)
        b.add(SeqWork{1, (ctx_.config.pad_to_longest ? pad_input_ : m.req.input_tokens) + decode_steps_, true});
    }
    StepTotals c;
    const double seconds = pricer_.seconds(b, &c);
    const Nanos end = now + std::max<Nanos>(1, to_nanos(seconds));
    if (ctx_.observer) {
      StepRecord r;
      r.replica = ctx_.replica;
      r.start = now;
      r.end = end;
      r.batch_seqs = b.seqs;
      r.prefill_tokens = prefill_tokens;
      r.decode_tokens = prefill_ ? 0 : b.seqs;
      r.kv_blocks_used = used_;
      r.kv_blocks_total = ctx_.kv_blocks;
      r.queue_length = static_cast<std::int64_t>(waiting_.size());
      StepPricer::record_cost(r, c, 1, seconds, 0.0);
      ctx_.observer->on_step(r);
      if (!prefill_) {
        std::int64_t live = 0;
        for (const auto& m : batch_) live += m.generated < m.req.output_tokens ? 1 : 0;
        if (live > 0) ctx_.observer->on_itl(seconds, live);
      }
    }
    return end;
  }

  void finish_step(Nanos now, std::vector<Request>& done) override {
    in_step_ = false;
    if (!prefill_) ++decode_steps_;
    bool all_done = true;
    const bool hold = ctx_.config.release_at_batch_end;
    for (auto& m : batch_) {
      if (m.generated >= m.req.output_tokens) continue;
      ++m.generated;
      if (m.generated == 1) m.rec.first_token = now;
      if (m.generated == m.req.output_tokens) {
        m.rec.finish = now;
        if (!hold) {
          if (ctx_.observer) ctx_.observer->on_request_done(m.rec);
          done.push_back(m.req);
        }
      } else {
        all_done = false;
      }
    }
    if (all_done && hold) {
      // generate() returns the whole batch when its longest sequence is done.
      for (auto& m : batch_) {
        m.rec.finish = now;
        if (ctx_.observer) ctx_.observer->on_request_done(m.rec);
        done.push_back(m.req);
      }
    }
    if (all_done) {
      batch_.clear();
      used_ = 0;
    }
  }

 private:
  struct Member {
    Request req;
    RequestRecord rec;
    std::int64_t generated = 0;
  };
  std::int64_t blocks_for(std::int64_t tokens) const {
    return (tokens + ctx_.config.block_size - 1) / ctx_.config.block_size;
  }

  EngineContext ctx_;
  StepPricer pricer_;
  std::deque<QueuedRequest> waiting_;  // the compact form (queued_request.h)
  std::int64_t queued_bytes_ = 0;      // QueuedRequest::bytes over waiting_
  std::vector<Member> batch_;
  std::int64_t used_ = 0;
  std::int64_t decode_steps_ = 0;
  std::int64_t pad_input_ = 0;  // the batch's longest prompt (pad_to_longest)
  bool prefill_ = true;
  bool in_step_ = false;
};

}  // namespace

std::unique_ptr<Engine> make_static_engine(const EngineContext& ctx) { return std::make_unique<StaticEngine>(ctx); }

}  // namespace servesim
