#include "metrics/collector.h"

#include <algorithm>
#include <limits>

#include "metrics/requests_csv.h"

namespace servesim {

Collector::Collector(double peak_flops_per_gpu, double peak_bandwidth_per_gpu, int gpus_per_replica, int replicas,
                     SloSpec slo)
    : peak_flops_(peak_flops_per_gpu),
      peak_bw_(peak_bandwidth_per_gpu),
      gpus_per_replica_(gpus_per_replica),
      replicas_(replicas),
      slo_(std::move(slo)),
      slo_limits_(slo_) {}

void Collector::set_exact_cap(std::size_t cap) {
  for (SampleSet* s : {&ttft_, &tpot_, &e2e_, &queue_, &itl_, &abandoned_wait_}) s->set_cap(cap);
}

void Collector::set_request_stream(std::ostream* out) {
  requests_out_ = out;
  if (out) write_requests_csv_header(*out, classes_ != nullptr);
}

void Collector::on_step(const StepRecord& s) {
  const double dt = to_seconds(s.end - s.start);
  busy_s_ += dt;
  gpu_s_ += s.gpu_time;
  flops_ += s.flops;
  bytes_ += s.bytes;
  step_active_s_ += std::min(dt, s.flops * active_s_per_flop_ + s.bytes * active_s_per_byte_);
  for (int i = 0; i < kBoundCount; ++i) bound_s_[i] += s.time_by_bound[static_cast<std::size_t>(i)];
  steps_ += s.steps;
  batch_weighted_ += dt * static_cast<double>(s.batch_seqs);
  const double kv = s.kv_blocks_total > 0 ? static_cast<double>(s.kv_blocks_used) / s.kv_blocks_total : 0.0;
  kv_weighted_ += dt * kv;
  kv_max_ = std::max(kv_max_, kv);
  queue_weighted_ += dt * static_cast<double>(s.queue_length);
  batch_max_ = std::max(batch_max_, s.batch_seqs);
  queue_max_ = std::max(queue_max_, s.queue_length);
  if (timeline_limit_ > 0 && (timeline_counter_++ % timeline_stride_) == 0) {
    timeline_.push_back(TimelineRow{to_seconds(s.start), dt * 1e3 / static_cast<double>(s.steps), s.replica, s.batch_seqs,
                                    s.prefill_tokens, s.decode_tokens, s.kv_blocks_used, s.kv_blocks_total,
                                    s.queue_length, s.steps, s.bound});
    if (timeline_.size() >= timeline_limit_) {
      // Keep memory bounded on long runs: drop every other row, halve the rate.
      std::vector<TimelineRow> kept;
      kept.reserve(timeline_.size() / 2 + 1);
      for (std::size_t i = 0; i < timeline_.size(); i += 2) kept.push_back(timeline_[i]);
      timeline_.swap(kept);
      timeline_stride_ *= 2;
    }
  }
}

void Collector::on_itl(double seconds, std::int64_t count) {
  if (count > 0) itl_.add(seconds * 1e3, count);
}

void Collector::on_request_done(const RequestRecord& r) {
  if (first_arrival_ < 0 || r.arrival < first_arrival_) first_arrival_ = r.arrival;
  const RequestResult res = request_result(r);
  if (r.failed) {
    ++failed_;
    // Slot 0 counts failures an engine reported without a reason (shown as "unspecified").
    ++failures_[static_cast<std::size_t>(r.failure)];
    if (r.failure == FailureReason::abandoned) {
      abandoned_wait_.add(res.e2e_ms);
      if (r.first_scheduled >= 0) ++abandoned_after_start_;
    }
  } else {
    // The run's duration ends at the last completion: a failure is decided at
    // once (at, or for the overload guard even before, its arrival) and serves nothing.
    last_finish_ = std::max(last_finish_, r.finish);
    ++completed_;
    input_tokens_ += r.input_tokens;
    // Every sequence of a parallel-sampling or beam-search request generates its output.
    output_tokens_ += r.output_tokens * r.sequences;
    sequences_max_ = std::max(sequences_max_, r.sequences);
    cached_tokens_ += r.cached_tokens;
    offload_tokens_ += r.offload_tokens;
    preemptions_ += r.preemptions;
    swapped_preemptions_ += r.swaps;
    if (r.preemptions > 0) ++preempted_requests_;
    ttft_.add(res.ttft_ms);
    if (ttft_sink_) [[unlikely]] ttft_sink_->push_back(res.ttft_ms);
    if (load_sink_) [[unlikely]] {
      LoadTotals& t = *load_sink_;
      ++t.finished;
      t.input_tokens += static_cast<double>(r.input_tokens);
      t.output_tokens += static_cast<double>(r.output_tokens);
      t.ttft_s += res.ttft_ms / 1e3;
      t.duration_s += res.e2e_ms / 1e3;
      if (r.output_tokens > 1) {
        t.decode_s += (res.e2e_ms - res.ttft_ms) / 1e3;
        t.gaps += static_cast<double>(r.output_tokens - 1);
      }
    }
    e2e_.add(res.e2e_ms);
    queue_.add(res.queue_ms);
    queue_bins_.add(res.arrival_s, res.queue_ms);
    if (stage_growth_) [[unlikely]] stage_growth_->add(res.arrival_s, res.queue_ms);
    if (res.has_tpot()) tpot_.add(res.tpot_ms);  // undefined for single-token outputs
    // SLO attainment: every per-request limit (the tightest per metric).
    slo_good_ += slo_limits_.met(res.ttft_ms, res.tpot_ms, res.has_tpot(), res.e2e_ms) ? 1 : 0;
  }
  // (The class computes its own result: `res` passed on would be computed whole here.)
  if (classes_) [[unlikely]] classes_->add(r);
  if (conversations_) conversations_->on_turn(r);
  if (requests_out_ || results_) {
    // Built again only for them: `res` above never leaves this function, so the
    // compiler computes just the fields the sums read (the common run asks for neither).
    const RequestResult full = request_result(r);
    if (requests_out_) write_requests_csv_row(*requests_out_, full, classes_ ? classes_->name_of(r) : std::string());
    if (results_) results_->push_back(full);
  }
}

RunSummary Collector::summarize() {
  const SloSpec& slo = slo_;
  RunSummary s;
  s.completed = completed_;
  s.failed = failed_;
  s.failures = failures_;
  s.preemptions = preemptions_;
  s.preempted_requests = preempted_requests_;
  s.gpus = gpus_per_replica_ * replicas_;
  s.duration_s = first_arrival_ >= 0 ? to_seconds(last_finish_ - first_arrival_) : 0.0;
  s.input_tokens = input_tokens_;
  s.output_tokens = output_tokens_;
  s.sequences_max = sequences_max_;
  s.cached_tokens = cached_tokens_;
  if (s.duration_s > 0) {
    s.requests_per_s = static_cast<double>(completed_) / s.duration_s;
    s.input_tokens_per_s = static_cast<double>(input_tokens_) / s.duration_s;
    s.output_tokens_per_s = static_cast<double>(output_tokens_) / s.duration_s;
    s.total_tokens_per_s = s.input_tokens_per_s + s.output_tokens_per_s;
  }
  s.prefix_hit_rate = input_tokens_ > 0 ? static_cast<double>(cached_tokens_) / input_tokens_ : 0.0;

  s.offload_tokens = offload_tokens_;
  s.swapped_preemptions = swapped_preemptions_;

  const std::int64_t good = slo_good_;
  // Failed requests are offered requests that missed: attainment is over both.
  const std::int64_t offered = completed_ + failed_;
  s.slo_attainment = offered == 0 ? 0.0 : static_cast<double>(good) / static_cast<double>(offered);
  s.goodput_rps = s.duration_s > 0 ? static_cast<double>(good) / s.duration_s : 0.0;

  s.ttft_ms = ttft_.summarize();
  s.e2e_ms = e2e_.summarize();
  s.queue_ms = queue_.summarize();
  s.tpot_ms = tpot_.summarize();
  s.itl_ms = itl_.summarize();
  s.patience = patience_;
  if (patience_) s.abandoned_wait_ms = abandoned_wait_.summarize();
  s.abandoned_after_start = abandoned_after_start_;
  if (conversations_) s.conversations = conversations_->summarize();

  s.slo = slo_results(slo, s.ttft_ms, s.tpot_ms, &s.itl_ms, s.e2e_ms);
  s.slo_met = slo_verdict(slo, s.slo, s.slo_attainment, completed_, failed_);
  if (classes_) s.classes = classes_->summarize(s.duration_s);

  // flops and bytes are per GPU and busy time is summed over replicas: the ratio is per GPU.
  if (busy_s_ > 0) {
    s.mfu = flops_ / (busy_s_ * peak_flops_);
    s.bandwidth_utilization = bytes_ / (busy_s_ * peak_bw_);
    s.batch_size_mean = batch_weighted_ / busy_s_;
    s.kv_utilization_mean = kv_weighted_ / busy_s_;
    s.queue_length_mean = queue_weighted_ / busy_s_;
    double total = 0;
    for (double b : bound_s_) total += b;
    for (int i = 0; i < kBoundCount; ++i) s.bound_share[i] = total > 0 ? bound_s_[i] / total : 0.0;
  }
  if (s.duration_s > 0) s.busy_fraction = busy_s_ / (s.duration_s * replicas_);
  // Energy: steps at their own power, the rest of each replica's wall time at idle.
  const double idle_s = std::max(s.duration_s * replicas_ - busy_s_, 0.0);
  const double floor = power_.floor_watts();
  const double step_joules = busy_s_ * floor + (power_.tdp_watts - floor) * step_active_s_;
  s.energy_j = (step_joules + idle_s * power_.idle_watts) * gpus_per_replica_;
  if (s.duration_s > 0) s.power_w_per_gpu = s.energy_j / (s.duration_s * s.gpus);
  if (busy_s_ > 0) s.busy_power_w_per_gpu = step_joules / busy_s_;
  if (output_tokens_ > 0) s.joules_per_output_token = s.energy_j / static_cast<double>(output_tokens_);
  if (completed_ > 0) s.joules_per_request = s.energy_j / static_cast<double>(completed_);
  s.kv_utilization_max = kv_max_;
  s.batch_size_max = batch_max_;
  s.queue_length_max = queue_max_;
  s.steps = steps_;
  queue_bins_.window_means(&s.load.queue_mid_ms, &s.load.queue_last_ms);
  s.load.queue_grows = queue_bins_.count() > 0 && queue_delay_grows(s.load.queue_mid_ms, s.load.queue_last_ms);
  // With stages of different rates the verdict is the stages' own (stage_queue_growth.h), when
  // any stage has requests enough to test; the whole-run means stay in the report.
  if (stage_growth_) {
    s.load.stages = stage_growth_->stages();
    s.load.by_stage = stage_growth_->verdict();
    if (s.load.by_stage.tested > 0) s.load.queue_grows = s.load.by_stage.growing > 0;
  }
  s.load.overloaded = s.load.queue_grows;
  s.load.offered = completed_ + failed_;
  return s;
}

}  // namespace servesim
