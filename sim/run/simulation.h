#pragma once
// The discrete-event loop: arrivals from a request source, a router, one engine
// per replica. It only schedules; engines price their steps with the cost model.
#include <functional>
#include <memory>
#include <ostream>

#include "cost/memory_plan.h"
#include "metrics/collector.h"
#include "metrics/request_result.h"
#include "metrics/run_summary.h"
#include "scenario/scenario.h"
#include "workload/request_source.h"

namespace servesim {

struct SimulationOptions {
  std::ostream* requests_csv = nullptr;  // one row per finished request
  // Filled with every request's typed result as it finishes (plan, validate); kept
  // only when asked for, so a long run without a consumer stores nothing per request.
  RequestResults* request_results = nullptr;
  std::size_t timeline_rows = 0;         // keep at most about this many timeline rows (0 = none)
  bool fast_forward = true;              // fuse identical decode steps between events
  // With several replicas, fuse a replica's decode steps up to its own next event
  // (an arrival routed to it cuts the run short: Engine::interrupt) rather than up
  // to anyone's next event. The results are those of fusing up to anyone's, but for
  // the rounding of a run's time when it is split in pieces (last digits).
  bool replica_horizon = true;
  // A step whose every prompt completes runs on into the decode steps after it in one
  // event (EngineContext::chain_prefill): fewer events, the same schedule. The results
  // are the same but for when a replica's load is seen between the two (several
  // replicas: the KV use the router and the autoscaler read) and the order in which
  // replicas report (sums' last digits).
  bool chain_prefill = true;
  // Refuse (servesim::Error) a synthetic workload whose every request must fail
  // (refuse_unservable_workload); set by simulate(scenario) for the scenario's own source.
  bool check_workload = false;
  // Simulations this process runs at the same time (sweep/plan -j): the guard's
  // machine-sized default (engine.max_queue_memory unset) is split among them.
  int concurrent_runs = 1;
  // Called now and then with (finished, expected total or -1).
  std::function<void(std::int64_t, std::int64_t)> progress;
};

struct SimulationResult {
  RunSummary summary;
  MemoryPlan memory;
  std::int64_t kv_blocks_per_replica = 0;
  std::vector<TimelineRow> timeline;
};

// Runs the scenario's workload (synthetic or, when set, its trace source).
SimulationResult simulate(const Scenario& scenario, const SimulationOptions& options = {});
// Runs any request source through the scenario's hardware, model and engine.
SimulationResult simulate(const Scenario& scenario, RequestSource& source, const SimulationOptions& options = {});

// Throws servesim::Error naming the reason when the scenario's synthetic workload
// cannot draw a single servable request: its shortest request is longer than
// engine.max_model_len, or needs more than `kv_blocks` KV blocks (-1: unchecked).
void refuse_unservable_workload(const Scenario& scenario, std::int64_t kv_blocks);

// The request source a scenario's workload describes.
std::unique_ptr<RequestSource> make_source(const Scenario& scenario);

}  // namespace servesim
