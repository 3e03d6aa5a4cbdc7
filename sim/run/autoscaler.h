#pragma once
// The fleet's autoscaler (the scenario's `autoscale:` section): how many of the
// parallelism.replicas replicas serve, decided every `interval` from the load the
// serving replicas report, as a Kubernetes HorizontalPodAutoscaler (or KEDA, or
// llm-d's and Dynamo's planners on vLLM's metrics) decides it:
//
//   desired = max over signals of ceil(serving x mean metric / target)
//
// with the metric the mean over serving replicas of waiting requests
// (target_queue; the requests a gateway holds count as waiting, and in the
// concurrency, too: they wait for the fleet, only elsewhere), KV cache use (target_kv) or requests in the replica,
// waiting and running (target_concurrency, Knative's), or the fleet's TTFT quantile
// over the requests finished since the last decision against target_ttft (the HPA
// rule on a latency metric, as a KEDA Prometheus trigger applies it; latency is not
// proportional to replicas, so this scales in steps and is damped by the
// tolerance and the scale-down window like the others); a signal within `tolerance` of its
// target (|metric / target - 1| <= tolerance) asks for no change. desired is
// clamped to [min_replicas, replicas].
//  - Scale up at once: replicas off are started (lowest index first, so a
//    heterogeneous fleet fills its first pool first); each serves provision +
//    weights per GPU / load_bandwidth after the decision (a node starts, then every
//    GPU reads its share of the weights in parallel). Replicas still starting
//    count toward the fleet, so a decision is not repeated while they start.
//  - Scale down on the largest desired count of the trailing scale_down_window
//    (HPA's stabilization window): replicas of the last pool first, and within a
//    pool those with the fewest outstanding requests, stop taking new requests
//    (the router skips them), finish what they hold (draining), then stop.
//  - max_step > 0 caps the replicas a decision starts, or drains, at max_step (an
//    HPA scaleUp / scaleDown policy of type Pods; NVIDIA Dynamo's planner changes its
//    workers "by 1 in one adjustment interval"); the rest waits for later decisions.
//  - hold_while_changing: no decision (and no recommendation for the window) while a
//    replica starts or drains, as Dynamo's planner "blocks the metric pulling and
//    adjustment" while the number of workers is being adjusted.
//  - planner: sla (NVIDIA Dynamo's throughput-based SLA planner; run/sla_planner.h): the
//    desired count is the planner's (FleetSignal::planned), not the HPA rule's; the clamp,
//    max_step, hold_while_changing and the scale-down window apply as above.
// Every replica counts as one, whatever its pool: the signals are per replica, as
// an HPA's are per pod.
// GPU-hours count every replica from its start decision to its stop (starting,
// serving and draining all hold GPUs), so the cost of the delays is in them.
//
// Pure bookkeeping: the simulation asks for decisions at its ticks and tells it
// when replicas become ready and finish draining (run/simulation.cpp).
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>


#include "core/sim_time.h"
#include "metrics/autoscale_report.h"
#include "scenario/autoscale_spec.h"

namespace servesim {

// What one replica holds: its GPUs, the weight bytes each of them loads at a start,
// and its pool (a heterogeneous fleet's index; 0 otherwise).
struct ReplicaFootprint {
  int gpus = 1;
  double weight_bytes_per_gpu = 0;
  int pool = 0;
};

// What the fleet reports at a decision beyond each replica's signal.
struct FleetSignal {
  std::int64_t held = 0;  // requests a gateway holds (run/gateway.h)
  double ttft_s = -1;     // the TTFT quantile of the interval's finished requests; < 0: none finished
  int planned = -1;       // planner: sla, the count run/sla_planner.h planned; < 0: no reading, no change
};

// What one replica reports at a decision.
struct ReplicaSignal {
  std::int64_t waiting = 0;   // requests not yet scheduled
  std::int64_t outstanding = 0;  // waiting + running
  double kv_load = 0;         // used / total KV blocks
};

// The q-quantile (q in (0, 1]) of `values` (reordered), nearest rank as Prometheus'
// histogram_quantile would bound it: the ceil(q n)-th smallest (target_ttft's reading).
double nearest_rank_quantile(std::vector<double>& values, double q);

class Autoscaler {
 public:
  enum class State : std::int8_t { off, starting, serving, draining };
  static constexpr std::size_t kMaxChanges = 10000;

  // `weight_bytes_per_gpu`: what each GPU of a starting replica loads.
  Autoscaler(const AutoscaleSpec& spec, int replicas, int gpus_per_replica, double weight_bytes_per_gpu);
  // A fleet of replicas that differ (a heterogeneous fleet's pools), one entry each.
  Autoscaler(const AutoscaleSpec& spec, std::vector<ReplicaFootprint> replicas);

  State state(int r) const { return state_[static_cast<std::size_t>(r)]; }
  // Seconds from a start decision to serving (replica r's: its pool's).
  double startup_s(int r = 0) const { return startup_s_[static_cast<std::size_t>(r)]; }
  Nanos interval() const { return interval_; }

  // A decision at `now` from every replica's signal (only serving ones are read).
  // Returns the replicas to start (now starting, serving at now + startup) and
  // those to drain (now draining).
  struct Decision {
    std::vector<int> start, drain;
  };
  Decision decide(Nanos now, const std::vector<ReplicaSignal>& signals, const FleetSignal& fleet = {});
  // The desired count from the signals alone (before clamping and the window), for tests.
  int desired(const std::vector<ReplicaSignal>& signals, const FleetSignal& fleet = {}) const;
  // When starting replica r serves (its start decision + startup_s).
  Nanos ready_at(int r) const { return ready_at_[static_cast<std::size_t>(r)]; }
  // Replica r finished starting (when now is its ready_at: a start cancelled and
  // made again has a later one) / draining at `now`.
  void ready(int r, Nanos now);
  void stopped(int r, Nanos now);
  // Closes the accounting at the run's end.
  AutoscaleReport finish(Nanos end);

 private:
  void set_state(int r, State s, Nanos now);
  void hold(int r, double seconds);  // replica r held its GPUs for `seconds`
  int count(State s) const;

  AutoscaleSpec spec_;
  Nanos interval_, window_;
  std::vector<ReplicaFootprint> footprint_;
  std::vector<double> startup_s_;
  std::vector<State> state_;
  std::vector<Nanos> since_;  // when each replica entered its state
  std::vector<Nanos> ready_at_;
  std::deque<std::pair<Nanos, int>> recent_;  // (time, desired) of the window
  AutoscaleReport totals_;
  Nanos last_change_ = 0;
  int serving_ = 0;
  double serving_seconds_ = 0;  // integral of serving replicas over time
};

}  // namespace servesim
