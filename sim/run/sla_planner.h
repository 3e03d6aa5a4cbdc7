#pragma once
// NVIDIA Dynamo's throughput-based SLA planner (autoscale.planner: sla on the pools of a
// disaggregated deployment), as its planner_core.py computes it (ai-dynamo/dynamo,
// examples/common/utils/planner_core.py, make_adjustments; docs "Planner Design", steps 1-4):
//
//   every adjustment interval, from the requests of that interval (the constant predictor:
//   next = last):
//     prefill correction = mean TTFT / expected TTFT at the mean ISL
//     decode correction  = mean ITL / expected ITL at the concurrency per decode instance
//                          (requests / instances x mean request duration / interval) and
//                          context ISL + OSL / 2
//     prefill instances  = ceil(requests x ISL / interval x min(1, prefill correction)
//                               / one instance's prefill tokens/s at ISL)
//     decode instances   = ceil(requests x OSL / interval / one instance's best tokens/s
//                               whose ITL stays within target_itl / decode correction at
//                               context ISL + OSL / 2)
//
// Dynamo reads both "expected" figures and the throughputs from a profile measured before
// deployment (TTFT of one prompt alone by ISL; ITL by concurrency and context). servesim's
// profile is its own step times on the pool's GPU and layout (SlaProfile), so the planner
// sees the engine as servesim models it, as Dynamo's sees the engine its profiler measured.
// Not modelled: the ARIMA, Kalman and Prophet predictors; the joint GPU budget over both
// pools (each pool is clamped to its own replicas).
#include <functional>

namespace servesim {

// What the pool's instance does alone, priced by servesim's cost model (the simulation
// builds it from the pool's setup).
struct SlaProfile {
  // Seconds from a prompt of `isl` tokens arriving alone to its first token (one prefill).
  std::function<double(double isl)> prefill_s;
  // Seconds of one decode step of `batch` sequences at `context` tokens each.
  std::function<double(int batch, double context)> decode_step_s;
  // The most sequences one instance decodes at once at `context` tokens each (its
  // max_num_seqs and its KV cache).
  std::function<int(double context)> max_batch;
};

// What the interval measured at the deployment's front end (Dynamo's Prometheus queries).
struct SlaInterval {
  double interval_s = 0;
  double requests = 0;    // requests that arrived in the interval
  int finished = 0;       // requests that finished in it (the means below are theirs)
  double isl = 0, osl = 0;
  double ttft_s = 0;      // mean time to first token
  double itl_s = 0;       // mean inter-token latency (every gap of every request)
  double duration_s = 0;  // mean request duration (arrival to last token)
};

struct SlaPlan {
  int instances = 0;
  double correction = 1;     // the factor applied (prefill: min(1, TTFT factor); decode: ITL factor)
  double per_instance = 0;   // tokens/s one instance is planned at
  int batch = 0;             // decode: the concurrency per instance planned at
  bool itl_unreachable = false;  // decode: even one sequence's step exceeds the corrected ITL
};

// The planner's state: the last correction factors and load (an interval with no finished
// request keeps them, as Dynamo's averages over an empty window give no new reading).
class SlaPlanner {
 public:
  SlaPlanner(SlaProfile profile, double target_itl_s, bool correction)
      : profile_(std::move(profile)), target_itl_s_(target_itl_s), correction_(correction) {}

  SlaPlan plan_prefill(const SlaInterval& m);
  // `decode_instances`: the decode instances serving (the concurrency's denominator).
  SlaPlan plan_decode(const SlaInterval& m, int decode_instances);

 private:
  // Reads the interval into last_: its request count always, its means when it finished any.
  void observe(const SlaInterval& m);
  SlaProfile profile_;
  double target_itl_s_;
  bool correction_;
  SlaInterval last_;
  bool seen_ = false;  // a finished request has been read
  double prefill_factor_ = 1, decode_factor_ = 1;
};

}  // namespace servesim
