#pragma once
// Collects what engines report and turns it into a RunSummary. Per-request
// metrics are kept (4 doubles per completed request) so percentiles are exact;
// inter-token gaps are kept per step with a count, never per token. Optional
// streams receive requests.csv rows as requests finish and the timeline rows.
#include <ostream>
#include <vector>

#include "metrics/run_observer.h"
#include "metrics/run_summary.h"
#include "scenario/slo.h"

namespace servesim {

struct TimelineRow {
  double time_s, step_time_ms;
  std::int64_t replica, batch, prefill_tokens, decode_tokens, kv_used, kv_total, queue, steps;
  Bound bound;
};

class Collector : public RunObserver {
 public:
  Collector(double peak_flops_per_gpu, double peak_bandwidth_per_gpu, int gpus_per_replica, int replicas);
  void on_step(const StepRecord& s) override;
  void on_itl(double seconds, std::int64_t count) override;
  void on_request_done(const RequestRecord& r) override;

  void set_request_stream(std::ostream* out);  // writes the CSV header now
  void keep_timeline(std::size_t max_rows) { timeline_limit_ = max_rows; }
  const std::vector<TimelineRow>& timeline() const { return timeline_; }
  std::int64_t finished() const { return completed_ + failed_; }

  RunSummary summarize(const SloSpec& slo);

 private:
  double peak_flops_, peak_bw_;
  int gpus_per_replica_, replicas_;
  std::vector<double> ttft_, tpot_, e2e_, queue_;
  std::vector<std::pair<double, std::int64_t>> itl_;
  std::int64_t completed_ = 0, failed_ = 0, preemptions_ = 0, preempted_requests_ = 0;
  std::int64_t input_tokens_ = 0, output_tokens_ = 0, cached_tokens_ = 0;
  Nanos first_arrival_ = -1, last_finish_ = 0;
  // Step aggregates.
  double busy_s_ = 0, gpu_s_ = 0, flops_ = 0, bytes_ = 0;
  double bound_s_[kBoundCount] = {0, 0, 0, 0};
  double batch_weighted_ = 0, kv_weighted_ = 0, queue_weighted_ = 0, kv_max_ = 0;
  std::int64_t batch_max_ = 0, queue_max_ = 0, steps_ = 0;
  std::ostream* requests_out_ = nullptr;
  std::vector<TimelineRow> timeline_;
  std::size_t timeline_limit_ = 0;
  std::int64_t timeline_stride_ = 1, timeline_counter_ = 0;
};

}  // namespace servesim
