#pragma once
// Collects what engines report and turns it into a RunSummary. Per-request
// metrics are kept exactly (4 doubles per completed request) and inter-token
// gaps per step with a count (never per token) up to a cap of kExactCap samples
// per metric; beyond it a metric folds into a fixed-size log-bucket histogram
// (log_histogram.h: percentiles within 0.1% of exact, count/mean/min/max exact),
// so memory is flat in the trace length. Runs below the cap report exactly what
// they always did. SLO attainment is counted online as requests complete (the
// simulation passes the SloSpec to the constructor), so it stays exact in both modes.
// Optionally, as requests finish, their typed results go to a vector (a consumer
// that asked for them) and their requests.csv rows to a stream; the timeline rows
// are kept on request too. Nothing per request is stored unless asked for.
#include <memory>
#include <ostream>
#include <vector>

#include "hardware/power_model.h"
#include "metrics/class_metrics.h"
#include "metrics/load_totals.h"
#include "metrics/log_histogram.h"
#include "metrics/queue_growth.h"
#include "metrics/request_result.h"
#include "metrics/run_observer.h"
#include "metrics/run_summary.h"
#include "metrics/sample_set.h"
#include "metrics/slo_spec.h"
#include "metrics/stage_queue_growth.h"

namespace servesim {

struct TimelineRow {
  double time_s, step_time_ms;
  std::int64_t replica, batch, prefill_tokens, decode_tokens, kv_used, kv_total, queue, steps;
  Bound bound;
};

class Collector : public RunObserver {
 public:
  static constexpr std::size_t kExactCap = 200000;
  // `slo`: its per-request limits are judged online as requests complete.
  Collector(double peak_flops_per_gpu, double peak_bandwidth_per_gpu, int gpus_per_replica, int replicas,
            SloSpec slo = {});
  void on_step(const StepRecord& s) override;
  void on_itl(double seconds, std::int64_t count) override;
  void on_request_done(const RequestRecord& r) override;

  // Board power per step (RunSummary energy fields); without it they stay 0.
  void set_power_model(const PowerModel& p) {
    power_ = p;
    // Seconds of full activity per FLOP and per byte: a step of dt seconds draws
    // P_idle + (P_tdp - P_idle) * min(1, (F * s_per_flop + B * s_per_byte) / dt), so its
    // energy is dt * P_idle + (P_tdp - P_idle) * min(dt, F * s_per_flop + B * s_per_byte):
    // no division per step (the engine's hot path reports every step here).
    active_s_per_flop_ = peak_flops_ > 0 ? p.compute_weight / peak_flops_ : 0.0;
    active_s_per_byte_ = peak_bw_ > 0 ? p.memory_weight / peak_bw_ : 0.0;
  }
  // Writes the CSV header now: request classes, if any, are set before (set_classes).
  void set_request_stream(std::ostream* out);
  void set_request_results(RequestResults* out) { results_ = out; }  // appended to as requests finish
  // Users who give up (workload.patience): the summary reports abandonments and their waits.
  void report_patience() { patience_ = true; }
  // Per request class (workload.classes): each finished request also counts in its
  // class, judged by its class's SLO (the scenario's when it has none of its own).
  void set_classes(const ClassAssignment& classes, const std::vector<std::optional<SloSpec>>& own_slos) {
    classes_ = std::make_unique<ClassMetrics>(classes, own_slos, slo_, kExactCap);
  }
  // Per-conversation metrics of a multi-turn workload (conversations.h).
  // `sessions`: closed-loop sessions (multi_turn.loop: closed).
  void track_conversations(std::int64_t turns, bool closed_loop, bool sessions = false) {
    conversations_ = std::make_unique<ConversationTracker>(turns, closed_loop, sessions);
  }
  void keep_timeline(std::size_t max_rows) { timeline_limit_ = max_rows; }
  // Each completed request's TTFT (ms) is also appended to `sink` (an autoscaler's
  // latency signal reads and empties it at each decision); null: not kept.
  void watch_ttft(std::vector<double>* sink) { ttft_sink_ = sink; }
  // Each completed request is also added to `totals` (a throughput-based planner reads
  // them per interval; metrics/load_totals.h); null: not kept.
  void watch_load(LoadTotals* totals) { load_sink_ = totals; }
  // The offered rate changes at `starts` (a multi_stage arrival process): the saturation test
  // runs on each stage's own requests (metrics/stage_queue_growth.h), not over the whole run.
  void test_growth_by_stage(std::vector<double> starts, double end_s) {
    stage_growth_ = std::make_unique<StageQueueGrowth>(std::move(starts), end_s);
  }
  // Samples kept exactly per metric before switching to the histogram (tests).
  void set_exact_cap(std::size_t cap);
  const std::vector<TimelineRow>& timeline() const { return timeline_; }
  std::int64_t finished() const { return completed_ + failed_; }

  RunSummary summarize();

 private:
  double peak_flops_, peak_bw_;
  int gpus_per_replica_, replicas_;
  SampleSet ttft_{kExactCap, false}, tpot_{kExactCap, false}, e2e_{kExactCap, false}, queue_{kExactCap, false};
  SampleSet itl_{kExactCap, true};
  bool patience_ = false;
  SampleSet abandoned_wait_{kExactCap, false};  // ms each abandoned request's user waited
  std::int64_t abandoned_after_start_ = 0;      // abandoned after being scheduled
  std::unique_ptr<ConversationTracker> conversations_;
  SloSpec slo_;
  // Per-request limits (ITL is per token, judged on its distribution only):
  // TTFT, TPOT (requests with more than one output token) and E2E, in ms; +inf if none.
  PerRequestLimits slo_limits_;
  std::int64_t slo_good_ = 0;  // completed requests meeting every per-request limit
  std::unique_ptr<ClassMetrics> classes_;  // workload.classes; null without
  std::int64_t offload_tokens_ = 0, swapped_preemptions_ = 0;
  QueueDelayBins queue_bins_;  // completed requests' queue delay by arrival (overload test)
  std::unique_ptr<StageQueueGrowth> stage_growth_;  // the same test per arrival stage; null: whole run
  FailureCounts failures_{};
  std::int64_t completed_ = 0, failed_ = 0, preemptions_ = 0, preempted_requests_ = 0;
  std::int64_t input_tokens_ = 0, output_tokens_ = 0, cached_tokens_ = 0;
  std::int64_t sequences_max_ = 1;
  Nanos first_arrival_ = -1, last_finish_ = 0;
  // Step aggregates.
  double busy_s_ = 0, gpu_s_ = 0, flops_ = 0, bytes_ = 0;
  PowerModel power_;
  double active_s_per_flop_ = 0, active_s_per_byte_ = 0;
  double step_active_s_ = 0;  // sum over steps of min(dt, activity x dt): per GPU, over replicas (as busy_s_)
  double bound_s_[kBoundCount] = {0, 0, 0, 0};
  double batch_weighted_ = 0, kv_weighted_ = 0, queue_weighted_ = 0, kv_max_ = 0;
  std::int64_t batch_max_ = 0, queue_max_ = 0, steps_ = 0;
  std::ostream* requests_out_ = nullptr;
  RequestResults* results_ = nullptr;
  std::vector<double>* ttft_sink_ = nullptr;
  LoadTotals* load_sink_ = nullptr;
  std::vector<TimelineRow> timeline_;
  std::size_t timeline_limit_ = 0;
  std::int64_t timeline_stride_ = 1, timeline_counter_ = 0;
};

}  // namespace servesim
