#pragma once
// A serving engine for one replica. The simulator's event loop calls it; it
// decides what runs in each forward step and prices the step with the (pure)
// step-cost model. Engines never read a clock: `now` is passed in.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/sim_time.h"
#include "cost/memory_plan.h"
#include "cost/step_cost.h"
#include "metrics/run_observer.h"
#include "scenario/engine_config.h"
#include "workload/request.h"

namespace servesim {

class Engine {
 public:
  virtual ~Engine() = default;
  // False when the request can never be served (longer than max_model_len or the
  // whole KV cache); it is then already reported to the observer as failed.
  virtual bool enqueue(Request r, Nanos now) = 0;
  virtual bool has_work() const = 0;
  // Plans and starts the next step, or a fast-forwarded run of identical decode
  // steps whose last one starts before `horizon` (the next external event).
  // Returns the end time.
  virtual Nanos start_step(Nanos now, Nanos horizon) = 0;
  // Completes the step started last; finished (or failed) requests are appended to `done`.
  virtual void finish_step(Nanos now, std::vector<Request>& done) = 0;
  virtual std::int64_t outstanding() const = 0;  // waiting + running requests
  virtual double kv_load() const = 0;            // used / total KV blocks
  virtual std::int64_t kv_blocks_total() const = 0;
};

struct EngineContext {
  const CostModel* cost = nullptr;
  EngineConfig config;
  MemoryPlan memory;
  std::int64_t kv_blocks = 0;  // per replica, after any override
  int replica = 0;
  RunObserver* observer = nullptr;
  bool fast_forward = true;
};

std::unique_ptr<Engine> make_engine(const EngineContext& ctx);

}  // namespace servesim
