#include "core/simulation.h"

#include <fmt/format.h>

#include <limits>

#include "core/event_queue.h"
#include "engine/engine.h"
#include "engine/router.h"
#include "scenario/setup.h"
#include "util/error.h"
#include "util/interrupt.h"

namespace servesim {
namespace {

enum EventKind : int { kStepEnd = 0, kArrival = 1, kKick = 2 };
// At equal times a step's end is handled before an arrival, so the freed capacity
// is visible to the request that arrives at that instant. A kick (a pipelined
// replica's first stage frees) only marks the replica for the end of the instant.
constexpr int kStepEndPriority = 0;
constexpr int kArrivalPriority = 1;
constexpr int kKickPriority = 2;

}  // namespace

std::unique_ptr<RequestSource> make_source(const Scenario& scenario) {
  return make_synthetic_source(scenario.workload);
}

SimulationResult simulate(const Scenario& scenario, const SimulationOptions& options) {
  auto source = make_source(scenario);
  return simulate(scenario, *source, options);
}

SimulationResult simulate(const Scenario& sc, RequestSource& source, const SimulationOptions& options) {
  const CostModel cost = make_cost_model(sc);
  SimulationResult result;
  result.memory = plan_memory(cost, sc.engine.memory_config());
  if (!result.memory.fits) throw Error(result.memory.verdict);
  const std::int64_t blocks =
      sc.engine.num_gpu_blocks_override > 0 ? sc.engine.num_gpu_blocks_override : result.memory.kv_blocks;
  result.kv_blocks_per_replica = blocks;

  Collector collector(cost.peak_flops(), sc.gpu.memory_bandwidth, sc.parallelism.gpus_per_replica(),
                      sc.parallelism.replicas, sc.slo);
  collector.set_request_stream(options.requests_csv);
  collector.keep_timeline(options.timeline_rows);

  std::vector<std::unique_ptr<Engine>> replicas;
  for (int r = 0; r < sc.parallelism.replicas; ++r) {
    EngineContext ctx;
    ctx.cost = &cost;
    ctx.config = sc.engine;
    ctx.memory = result.memory;
    ctx.kv_blocks = blocks;
    ctx.replica = r;
    ctx.observer = &collector;
    ctx.fast_forward = options.fast_forward;
    replicas.push_back(make_engine(ctx));
  }
  Router router(sc.router);
  EventQueue queue;
  // The request waiting for its arrival event (sources are streaming: one at a time).
  std::optional<Request> pending;
  const Nanos frontend = to_nanos(sc.engine.frontend_latency);
  auto pull = [&] {
    if (pending) return;
    pending = source.next();
    // The request reaches the engine core after the front-end (HTTP, tokenization).
    if (pending) queue.push(pending->arrival + frontend, kArrivalPriority, kArrival, pending->id);
  };
  auto horizon = [&] { return queue.empty() ? std::numeric_limits<Nanos>::max() : queue.top().time; };
  // Pipelined replicas (pp > 1) may start a step while others are in flight: a
  // kick event wakes them when their first stage frees (at most one queued each).
  std::vector<Nanos> kick_at(replicas.size(), kNever);
  auto kick = [&](int r, Nanos now) {
    Engine& e = *replicas[static_cast<std::size_t>(r)];
    if (e.can_start(now)) queue.push(e.start_step(now, horizon()), kStepEndPriority, kStepEnd, r);
    const Nanos again = e.next_start();
    Nanos& at = kick_at[static_cast<std::size_t>(r)];
    if (again != kNever && again > now && (at == kNever || at <= now || again < at)) {
      at = again;
      queue.push(again, kKickPriority, kKick, r);
    }
  };

  pull();
  std::vector<Request> done;
  // Replicas with new work start their next step only once every event at the
  // current instant is handled, so simultaneous arrivals share one step.
  std::vector<char> to_kick(replicas.size(), 0);
  const std::int64_t expected = source.expected_total();
  std::int64_t next_progress = 0;
  std::uint32_t events = 0;
  while (!queue.empty()) {
    // Ctrl-C stops a long run: one relaxed atomic load per 4096 events.
    if ((++events & 4095u) == 0) throw_if_interrupted();
    const Event ev = queue.pop();
    const Nanos now = ev.time;
    if (ev.kind == kArrival) {
      Request req = std::move(*pending);
      pending.reset();
      const int r = router.pick(replicas, req);
      if (!replicas[static_cast<std::size_t>(r)]->enqueue(req, now)) source.on_complete(req, now);
      pull();
      to_kick[static_cast<std::size_t>(r)] = 1;
    } else if (ev.kind == kKick) {
      const int r = static_cast<int>(ev.data);
      if (kick_at[static_cast<std::size_t>(r)] == now) kick_at[static_cast<std::size_t>(r)] = kNever;
      to_kick[static_cast<std::size_t>(r)] = 1;
    } else {
      const int r = static_cast<int>(ev.data);
      done.clear();
      replicas[static_cast<std::size_t>(r)]->finish_step(now, done);
      for (const auto& d : done) source.on_complete(d, now);
      if (!done.empty()) pull();  // closed loop: a completion may release the next request
      to_kick[static_cast<std::size_t>(r)] = 1;
    }
    if (queue.empty() || queue.top().time > now) {
      for (std::size_t i = 0; i < to_kick.size(); ++i) {
        if (!to_kick[i]) continue;
        to_kick[i] = 0;
        kick(static_cast<int>(i), now);
      }
    }
    if (options.progress && collector.finished() >= next_progress) {
      options.progress(collector.finished(), expected);
      next_progress = collector.finished() + 1000;
    }
  }
  if (pending) throw Error("internal: a request was left without its arrival");
  result.summary = collector.summarize();
  result.timeline = collector.timeline();
  return result;
}

}  // namespace servesim
