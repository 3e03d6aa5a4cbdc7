#include "run/simulation.h"

#include <set>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/event_queue.h"
#include "core/slot_calendar.h"
#include "engine/kv_tiers.h"
#include "engine/data_parallel_ranks.h"
#include "engine/engine.h"
#include "engine/prefix_cache.h"
#include "engine/router.h"
#include "engine/sequence_group.h"
#include "engine/step_cost_cache.h"
#include "metrics/failure.h"
#include "run/disaggregated_simulation.h"
#include "run/lora_report.h"
#include "scenario/setup.h"
#include "run/autoscaler.h"
#include "run/beam_loop.h"
#include "run/class_admission.h"
#include "run/gateway.h"
#include "run/run_totals.h"
#include "run/fleet_pools_run.h"
#include "run/serving_pool.h"
#include "util/error.h"
#include "util/machine.h"
#include "util/interrupt.h"
#include "workload/arrival_process.h"

namespace servesim {
namespace {

enum EventKind : int { kStepEnd = 0, kArrival = 1, kKick = 2, kDeadline = 3, kScale = 4 };
// At equal times a step's end is handled before an arrival, so the freed capacity
// is visible to the request that arrives at that instant. A kick (a pipelined
// replica's first stage frees) only marks the replica for the end of the instant.
// A deadline (workload.patience: the earliest user of a replica to give up) comes
// last: a first token at the very instant of the deadline still counts as in time.
constexpr int kStepEndPriority = 0;
constexpr int kArrivalPriority = 1;
constexpr int kKickPriority = 2;
constexpr int kDeadlinePriority = 3;
// An autoscaled fleet's decision (data -1) or a replica ready to serve (data: its
// index) comes after everything else at its instant: it reads the loads as they
// stand once the instant's arrivals and step ends are in.
constexpr int kScalePriority = 4;

// The shortest length a synthetic length distribution can draw.
std::int64_t min_length(const LengthSpec& l) {
  return l.kind == LengthKind::fixed ? std::clamp(l.value, l.min, l.max) : l.min;
}


}  // namespace

void refuse_unservable_workload(const Scenario& sc, std::int64_t kv_blocks) {
  if (!sc.has_workload || sc.workload.trace) return;
  const WorkloadSpec& w = sc.workload;
  // The smallest request the workload can make: shortest prompt (plus the shared
  // system prompt) and shortest output. Later multi-turn turns are only longer.
  const std::int64_t prefix = w.shared_prefix ? w.shared_prefix->tokens : 0;
  const std::int64_t in = min_length(w.input_tokens) + prefix, out = min_length(w.output_tokens);
  const std::int64_t total = in + out;
  if (total > sc.engine.max_model_len)
    throw Error(fmt::format(
        "every request fails (too_long_for_max_model_len): the shortest the workload can draw is {} prompt + {} "
        "output = {} tokens, above engine.max_model_len = {}{}; raise max_model_len or shorten "
        "workload.input_tokens / output_tokens",
        in, out, total, sc.engine.max_model_len,
        sc.engine.max_model_len < sc.model.max_context ? fmt::format(" (the model allows {})", sc.model.max_context)
                                                        : std::string(" (the model's whole context)")));
  // The engine's admission rule (BatchState::admissible, engine/batch_state.cpp): the KV peaks at total - 1
  // tokens, of every sequence when a request decodes several (engine/sequence_group.h).
  const std::int64_t bs = sc.engine.block_size;
  const std::int64_t blocks = SequenceGroupBlocks(BlockSize(static_cast<int>(bs)), w.sampling).peak(in, out);
  if (kv_blocks >= 0 && blocks > kv_blocks)
    throw Error(fmt::format(
        "every request fails (exceeds_kv_capacity): the shortest request the workload can draw ({} tokens{}) needs "
        "{} KV blocks of {} tokens, and a replica has {}; give the KV cache more memory (more GPUs, a smaller "
        "precision, gpu_memory_utilization) or shorten the requests",
        total,
        w.sampling.single() ? std::string() : fmt::format(", {} sequences each (workload.sampling)", w.sampling.sequences()),
        blocks, bs, kv_blocks));
}

namespace {
// A trace cannot be judged before it is read: when not one of its requests could be
// served for a reason no rate would change (too long, larger than the KV cache),
// there is no result to show, only the reason (as refuse_unservable_workload says
// up front for a synthetic workload).
void refuse_all_failed(const RunSummary& s, const Scenario& sc) {
  if (s.completed > 0 || s.failed == 0) return;
  const auto count = [&](FailureReason r) { return s.failures[static_cast<std::size_t>(r)]; };
  const std::int64_t too_long = count(FailureReason::too_long_for_max_model_len);
  const std::int64_t too_big = count(FailureReason::exceeds_kv_capacity);
  if (too_long + too_big != s.failed) return;  // the overload guard is reported as a result
  throw Error(fmt::format("every request fails: {} of {} are longer than engine.max_model_len = {} "
                          "(too_long_for_max_model_len) and {} need more KV blocks than a replica has "
                          "(exceeds_kv_capacity); nothing could be served",
                          too_long, s.failed, sc.engine.max_model_len, too_big));
}
}  // namespace

namespace {
// Beam search that the framework runs as a loop above the engine (engine.beam_search).
bool beam_search_above_engine(const Scenario& sc) {
  return sc.workload.sampling.beam() && sc.engine.beam_search == BeamSearchImpl::above_engine &&
         sc.engine.kind == "vllm";
}

// What the loop cannot run beside: one front end drives one engine (vLLM's beam
// search calls its own engine client), so one replica; and the per-request draws of
// sessions, patience, LoRA and classes would apply to each round's requests.
void refuse_with_beam_loop(const Scenario& sc) {
  const auto refuse = [&](const char* what, const char* fix) {
    throw Error(fmt::format("workload.sampling.beam_width: beam search above the engine (engine.beam_search: "
                            "above_engine, framework {}) with {} is not modelled; {}",
                            sc.engine.framework, what, fix));
  };
  if (sc.parallelism.replicas > 1 || !sc.pools.empty() || sc.autoscale)
    refuse("several replicas (each request's rounds go to the engine its front end drives)",
           "run one replica, or engine.beam_search: in_engine");
  if (sc.workload.multi_turn) refuse("multi_turn sessions", "leave one out");
  if (sc.workload.patience) refuse("workload.patience", "leave one out");
  if (sc.workload.lora) refuse("workload.lora", "leave one out");
  if (!sc.workload.classes.empty() || sc.gateway) refuse("request classes or a gateway", "leave one out");
}
// The loop when the scenario runs beam search above the engine, else null (out of
// line: the run loop's function stays the size its inlining was tuned at).
__attribute__((noinline)) std::unique_ptr<BeamLoop> make_beam_loop(const Scenario& sc, RequestSource& requests,
                                                                    RunObserver& collector) {
  if (!beam_search_above_engine(sc)) return nullptr;
  refuse_with_beam_loop(sc);
  return std::make_unique<BeamLoop>(requests, collector, sc.workload.sampling.beam_width, kBeamRequestCpuSeconds,
                                    sc.engine.prefix_caching, sc.engine.block_size, to_nanos(sc.engine.frontend_latency));
}
}  // namespace

std::unique_ptr<RequestSource> make_source(const Scenario& scenario) {
  return make_synthetic_source(scenario.workload);
}

SimulationResult simulate(const Scenario& scenario, const SimulationOptions& options) {
  auto source = make_source(scenario);
  SimulationOptions o = options;
  o.check_workload = true;  // the source is the scenario's own workload
  return simulate(scenario, *source, o);
}

namespace {

// The KV tiers' counts over the run: tier i summed over the replicas' chains, a
// shared tier (the same store in every chain) counted once.
std::vector<KvTierReport> kv_tier_reports(const std::vector<std::unique_ptr<Engine>>& replicas) {
  std::vector<const KvTierChain*> chains;
  for (const auto& e : replicas) e->kv_tier_chains(chains);
  std::vector<KvTierReport> out;
  std::set<const KvTierLevel*> seen;
  for (const KvTierChain* c : chains)
    for (std::size_t i = 0; i < c->tiers(); ++i) {
      const KvTierLevel& l = c->level(i);
      if (out.size() <= i) {
        KvTierReport r;
        r.name = l.spec().name;
        r.shared = l.spec().shared;
        r.capacity_blocks = l.capacity();
        out.push_back(r);
      }
      if (!seen.insert(&l).second) continue;
      KvTierReport& r = out[i];
      r.stored += l.counts.stored;
      r.reloaded += l.counts.reloaded;
      r.demoted += l.counts.demoted;
      r.expired += l.counts.expired;
      r.transfers += l.counts.transfers;
      r.transfer_s += l.counts.transfer_s;
    }
  return out;
}

}  // namespace

SimulationResult simulate(const Scenario& sc, RequestSource& requests_in, const SimulationOptions& options) {
  if (sc.disaggregation) return simulate_disaggregated(sc, requests_in, options);  // prefill and decode pools
  // The replicas' pools: the scenario's own setup, or a heterogeneous fleet's pools
  // (each with its own collector, merged into the run's at the end).
  const bool fleet = !sc.pools.empty();
  std::vector<std::unique_ptr<ServingPool>> pools;
  if (fleet)
    for (std::size_t i = 0; i < sc.pools.size(); ++i)
      pools.push_back(std::make_unique<ServingPool>(sc.pools[i].setup,
                                                    fmt::format("pools[{}] ({})", i, sc.pools[i].name), true,
                                                    options.timeline_rows / sc.pools.size(), fmt::format("pools[{}]", i)));
  else
    pools.push_back(std::make_unique<ServingPool>(sc, std::string(), false));
  const ServingPool& first = *pools.front();
  const CostModel& cost = first.cost;
  SimulationResult result;
  result.memory = first.memory;
  result.kv_blocks_per_replica = first.blocks;
  if (options.check_workload)
    for (const auto& p : pools) {
      try {
        refuse_unservable_workload(sc, p->rank_blocks > 0 ? p->rank_blocks : p->blocks);
      } catch (const Error& e) {
        if (!fleet) throw;
        throw Error(fmt::format("{}: {}", p->label, e.what()));
      }
    }

  Collector collector(cost.peak_flops(), first.setup.gpu.memory_bandwidth, first.setup.parallelism.gpus_per_replica(),
                      sc.parallelism.replicas, sc.slo);
  collector.set_power_model(PowerModel::of(first.setup.gpu));
  collector.set_request_results(options.request_results);
  collector.keep_timeline(options.timeline_rows);
  if (sc.workload.patience) collector.report_patience();
  // Rates that change by stage: the saturation test per stage (metrics/stage_queue_growth.h).
  {
    std::vector<double> starts;
    double end_s = 0;
    if (stage_windows(sc.workload.arrival, &starts, &end_s)) collector.test_growth_by_stage(std::move(starts), end_s);
  }
  if (sc.workload.multi_turn && sc.workload.multi_turn->conversation_metrics)
    collector.track_conversations(sc.workload.multi_turn->turns, sc.workload.arrival.kind == ArrivalKind::closed_loop,
                                  sc.workload.multi_turn->closed);
  // Beam search above the engine (run/beam_loop.h): the loop sends the engine each
  // round's requests and makes one record of them for the collector.
  const std::unique_ptr<BeamLoop> beam_loop = make_beam_loop(sc, requests_in, collector);
  RequestSource& source = beam_loop ? static_cast<RequestSource&>(*beam_loop) : requests_in;
  RunObserver& sink = beam_loop ? static_cast<RunObserver&>(*beam_loop) : collector;
  std::vector<std::unique_ptr<PoolTap>> taps;
  if (fleet)
    for (const auto& p : pools) taps.push_back(std::make_unique<PoolTap>(*p->collector, collector, /*steps_to_run=*/true));

  // Users who give up (workload.patience): the static engine has no abort path.
  std::optional<Patience> patience;
  if (sc.workload.patience) {
    if (sc.engine.kind != "vllm")
      throw Error(fmt::format("workload.patience is modelled by the vllm engine only (engine.kind: {} has no way "
                              "to drop a waiting request); remove workload.patience or use engine.kind: vllm",
                              sc.engine.kind));
    patience.emplace(*sc.workload.patience, sc.workload.seed);
  }
  // Each request's LoRA adapter (workload.lora): the engines' slots and the router read it.
  std::optional<LoraAssignment> lora;
  if (sc.workload.lora) lora.emplace(*sc.workload.lora, sc.workload.seed);
  // Request classes (workload.classes; a gateway without them has one, "all") and the
  // gateway in front of the router (run/gateway.h): rate limits and flow control.
  std::optional<ClassAssignment> classes;
  std::optional<Gateway> gateway;
  set_up_classes(sc, collector, classes, gateway);
  if (gateway && patience) gateway->set_patience(&*patience);  // held users give up there too
  collector.set_request_stream(options.requests_csv);  // after the classes: its header names them
  // One memo of prompt block hashes: the replicas see the same system prompts.
  BlockHashChains hash_chains;
  // Shared KV tiers (engine.kv_tiers, shared: true): one store for every replica.
  std::vector<std::shared_ptr<KvTierLevel>> shared_kv_tiers;
  std::vector<std::unique_ptr<Engine>> replicas;
  // What each replica holds (the autoscaler's GPU-hours and loading time).
  std::vector<ReplicaFootprint> footprints;
  for (std::size_t p = 0; p < pools.size(); ++p) {
    // A pool's replicas price with its cost model: one set of step-cost tables for all of them.
    const ServingPool& pool = *pools[p];
    RunObserver* observer = fleet ? static_cast<RunObserver*>(taps[p].get()) : &sink;
    for (int k = 0; k < pool.setup.parallelism.replicas; ++k) {
      EngineContext ctx = pool.context(static_cast<int>(replicas.size()), observer, options.fast_forward);
      // (The gateway's flow control releases held requests at every step's end.)
      ctx.chain_prefill = options.chain_prefill && !gateway;
      ctx.hash_chains = &hash_chains;
      ctx.shared_kv_tiers = &shared_kv_tiers;
      ctx.patience = patience ? &*patience : nullptr;
      ctx.sampling = beam_loop ? SamplingSpec{} : sc.workload.sampling;  // the loop's requests are single
      ctx.lora = lora ? &*lora : nullptr;
      ctx.classes = classes && classes->ranked() ? &*classes : nullptr;
      replicas.push_back(make_engine(ctx));
      footprints.push_back(ReplicaFootprint{pool.setup.parallelism.gpus_per_replica(), pool.memory.weights,
                                            static_cast<int>(p)});
    }
  }
  Router router(sc.router, sc.router_weights);
  router.set_lora(lora ? &*lora : nullptr);
  router.track(replicas);
  EventQueue queue;
  // An autoscaled fleet (run/autoscaler.h): the replicas not serving are kept from the router.
  std::optional<Autoscaler> scaler;
  std::vector<ReplicaSignal> signals;
  std::vector<double> recent_ttft_ms;  // autoscale.target_ttft: the interval's TTFTs
  if (sc.autoscale) {
    scaler.emplace(*sc.autoscale, std::move(footprints));
    if (sc.autoscale->target_ttft_s > 0) collector.watch_ttft(&recent_ttft_ms);
    for (int r = 0; r < sc.parallelism.replicas; ++r)
      if (scaler->state(r) != Autoscaler::State::serving)
        router.set_available(r, false, replicas[static_cast<std::size_t>(r)]->load());
    signals.resize(replicas.size());
    queue.push(scaler->interval(), kScalePriority, kScale, -1);
  }
  Nanos last_event = 0;
  // The request waiting for its arrival event (sources are streaming: one at a time).
  std::optional<Request> pending;
  const Nanos frontend = to_nanos(sc.engine.frontend_latency);
  // Offered load: every request the source hands out, served or not.
  std::int64_t offered = 0;
  Nanos first_arrival = 0, last_arrival = 0;
  BeamLoop* const loop = beam_loop.get();  // one pointer test per arrival
  auto count_offered = [&](const Request& r) __attribute__((always_inline)) {
    Nanos at = r.arrival;
    if (loop) [[unlikely]] {
      if (!loop->first_round(r)) return;  // a later round of an offered request
      at = loop->arrival_of(r);           // when the client sent it (round 0 waits for the front end)
    }
    if (offered++ == 0) first_arrival = at;
    last_arrival = std::max(last_arrival, at);
  };
  // A request is offered when its arrival event comes (a source may withdraw one
  // it handed out before: a later turn of a conversation whose user gave up).
  // A source that may reorder (RequestSource::may_reorder) can be asked to take
  // the pending request back when a completion made an earlier one due; its
  // arrival event then goes stale, which the event's generation tells.
  const bool reorder = source.may_reorder();
  std::int64_t arrival_generation = 0;
  auto pull = [&] {
    if (pending) return;
    pending = source.next();
    // The request reaches the engine core after the front-end (HTTP, tokenization).
    if (pending) queue.push(pending->arrival + frontend, kArrivalPriority, kArrival, ++arrival_generation);
  };
  auto resequence = [&] {
    if (!pending) return;
    const std::optional<Nanos> due = source.earliest();
    if (!due || *due >= pending->arrival) return;
    source.put_back(std::move(*pending));
    pending.reset();
    pull();
  };
  // The overload guard (engine.max_queue_memory): once the never-scheduled
  // requests of all replicas hold more than the limit, they and every later
  // request fail with reason overload_guard; running requests finish.
  LoadReport& load = result.summary.load;  // filled in after summarize()
  LoadReport guard;
  guard.guard_bytes = queue_guard_bytes(sc.engine, options.concurrent_runs, &guard.guard_from_machine);
  auto reject = [&](const Request& r, Nanos at) {
    // Rejected before routing: no replica took it (record replica 0).
    sink.on_request_done(failed_record(r, 0, FailureReason::overload_guard, at));
  };
  // Each replica's queue as last seen and the sums over replicas, so neither the
  // guard nor the router asks every replica per arrival. Both read them only when
  // a request arrives, so a call into replica r just marks it (observe(r)) and the
  // next arrival refreshes the marked ones, one load() call each: a replica called
  // several times between arrivals (a step's end, then its next start) is read
  // once, and the figures at every arrival are what they would be if each call
  // had been followed by a read.
  const std::size_t n_replicas = replicas.size();
  std::vector<std::int64_t> seen_queued(n_replicas, 0), seen_bytes(n_replicas, 0);
  std::int64_t queued_sum = 0, bytes_sum = 0;
  // One replica: the guard reads it directly (no bookkeeping per event on the plain path).
  const bool single = n_replicas == 1;
  auto refresh = [&](int r) __attribute__((always_inline)) {
    const auto i = static_cast<std::size_t>(r);
    const ReplicaLoad l = replicas[i]->load();
    queued_sum += l.queued - seen_queued[i];
    bytes_sum += l.queued_bytes - seen_bytes[i];
    seen_queued[i] = l.queued;
    seen_bytes[i] = l.queued_bytes;
    router.observe(r, l);
  };
  // The replicas called into since the last refresh, each once (a fixed array: no
  // capacity check per mark).
  std::vector<char> stale(n_replicas, 0);
  std::vector<int> stale_list(n_replicas);
  std::size_t stale_count = 0;
  auto observe = [&](int r) __attribute__((always_inline)) {
    if (single || stale[static_cast<std::size_t>(r)]) return;
    stale[static_cast<std::size_t>(r)] = 1;
    stale_list[stale_count++] = r;
  };
  auto refresh_stale = [&] {
    for (std::size_t k = 0; k < stale_count; ++k) {
      stale[static_cast<std::size_t>(stale_list[k])] = 0;
      refresh(stale_list[k]);
    }
    stale_count = 0;
  };
  auto check_guard = [&](Nanos now) __attribute__((always_inline)) {
    const std::int64_t queued = single ? replicas[0]->queued() : queued_sum;
    const std::int64_t bytes = single ? replicas[0]->queued_bytes() : bytes_sum;
    if (queued > guard.queued_peak) {
      guard.queued_peak = queued;
      guard.queued_peak_bytes = static_cast<double>(bytes);
    }
    if (static_cast<double>(bytes) <= guard.guard_bytes) return;
    guard.guard_tripped = true;
    guard.guard_trip_s = to_seconds(now - first_arrival);
    for (std::size_t i = 0; i < replicas.size(); ++i) {
      replicas[i]->abort_queued(now, FailureReason::overload_guard, [&](const Request& r) { source.on_failed(r, now); });
      if (!single) refresh(static_cast<int>(i));
    }
    // Every request still to come is refused now, without simulating its arrival
    // (the one already pulled is refused when its arrival event comes).
    // (A source that may reorder is told of each failure: its sessions end, so it runs dry.)
    while (auto r = source.next()) {
      count_offered(*r);
      reject(*r, r->arrival);
      if (reorder) source.on_failed(*r, r->arrival);
    }
  };
  // (Asked only without replica horizons, when every event is in the heap.)
  auto horizon = [&] { return queue.empty() ? std::numeric_limits<Nanos>::max() : queue.top_time(); };
  // Each replica's own horizon (SimulationOptions::replica_horizon): a replica's fused
  // run goes on past other replicas' events and is cut short when a request is routed
  // to it (dispatch). Only when nothing else of a replica's own comes by events:
  // no deadlines (patience) and no pipeline kicks, every engine able to cut its run.
  bool replica_horizon = options.replica_horizon && options.fast_forward && n_replicas > 1 && !patience;
  for (const auto& e : replicas) replica_horizon = replica_horizon && e->interruptible();
  // With their own horizons, each replica's step end is its slot of the queue: a run
  // cut short by an arrival has its end replaced, not left behind to be skipped.
  SlotCalendar step_ends(replica_horizon ? n_replicas : 0);
  auto queue_step_end = [&](int r, Nanos end) __attribute__((always_inline)) {
    if (replica_horizon)
      step_ends.set(queue, static_cast<std::size_t>(r), end, kStepEndPriority, kStepEnd, r);
    else
      queue.push(end, kStepEndPriority, kStepEnd, r);
  };
  // Patience: one deadline event queued per replica at most, at its earliest
  // pending deadline; the users who gave up are told to the source (closed loop:
  // the user comes back after its think time; multi-turn: the conversation ends).
  std::vector<Nanos> deadline_at(replicas.size(), kNever);
  std::vector<Request> gone;
  auto abandon_due = [&](int r, Nanos now) {
    gone.clear();
    replicas[static_cast<std::size_t>(r)]->abandon_due(now, gone);
    observe(r);
    for (const Request& g : gone) source.on_abandon(g, now);
    if (!gone.empty()) {
      pull();
      if (reorder) resequence();
    }
  };
  auto arm_deadline = [&](int r, Nanos now) {
    const Nanos due = replicas[static_cast<std::size_t>(r)]->next_deadline();
    if (due == kNever) return;
    const Nanos at = std::max(due, now);
    Nanos& queued_at = deadline_at[static_cast<std::size_t>(r)];
    if (queued_at != kNever && queued_at >= now && queued_at <= at) return;  // an event already comes by then
    queued_at = at;
    queue.push(at, kDeadlinePriority, kDeadline, r);
  };
  // Pipelined replicas (pp > 1) may start a step while others are in flight: a
  // kick event wakes them when their first stage frees (at most one queued each).
  std::vector<Nanos> kick_at(replicas.size(), kNever);
  auto kick = [&](int r, Nanos now) __attribute__((always_inline)) {
    Engine& e = *replicas[static_cast<std::size_t>(r)];
    if (patience) abandon_due(r, now);  // before planning: due prefills are aborted now
    if (e.can_start(now))
      queue_step_end(r, e.start_step(now, replica_horizon ? kNever : horizon()));
    const Nanos again = e.next_start();
    Nanos& at = kick_at[static_cast<std::size_t>(r)];
    if (again != kNever && again > now && (at == kNever || at <= now || again < at)) {
      at = again;
      queue.push(again, kKickPriority, kKick, r);
    }
    if (patience) arm_deadline(r, now);
    observe(r);  // the step took requests and blocks; next_deadline() drops answered deadlines
  };

  // A request on its way to a replica: the router picks one, which takes it.
  auto dispatch = [&](Request&& req, Nanos now) __attribute__((always_inline)) {
    if (!single) refresh_stale();  // the router and the guard read current loads
    const int r = single ? 0 : router.pick(replicas, req);  // (one replica: pick says 0)
    // Moved, not copied (its prefix hashes are ~1 KB): on_complete reads only
    // the scalar fields, which a moved-from Request keeps.
    const bool taken = replicas[static_cast<std::size_t>(r)]->enqueue(std::move(req), now);
    if (replica_horizon && taken && replicas[static_cast<std::size_t>(r)]->interrupt(now)) {
      // Its run ends with the step running now: that end replaces the run's.
      queue_step_end(r, replicas[static_cast<std::size_t>(r)]->step_end());
    }
    if (!single) refresh(r);
    if (!taken) source.on_failed(req, now);
    check_guard(now);
    return r;
  };
  // The gateway's flow control: the pool is saturated when every serving replica has
  // its waiting queue or KV cache use at the threshold; an idle replica never is.
  auto pool_saturated = [&] {
    const GatewaySpec& g = gateway->flow();
    for (std::size_t i = 0; i < replicas.size(); ++i) {
      if (scaler && scaler->state(static_cast<int>(i)) != Autoscaler::State::serving) continue;
      const Engine& e = *replicas[i];
      if (e.outstanding() == 0 || (e.queued() < g.queue_threshold && e.kv_load() < g.kv_threshold)) return false;
    }
    return true;
  };

  pull();
  std::vector<Request> done;
  // Replicas with new work start their next step only once every event at the
  // current instant is handled, so simultaneous arrivals share one step.
  // Marked replicas, and their indices in marking order (kicked in index order).
  std::vector<char> to_kick(n_replicas, 0);
  std::vector<int> kick_list(n_replicas);  // the first kick_count (a fixed array: no capacity check per mark)
  std::size_t kick_count = 0;
  auto mark = [&](int r) __attribute__((always_inline)) {
    if (!single && !to_kick[static_cast<std::size_t>(r)]) kick_list[kick_count++] = r;
    to_kick[static_cast<std::size_t>(r)] = 1;
  };
  // Held requests go on while some replica is not saturated, the highest priority first:
  // asked where a replica's load falls (a step's end) or a replica starts serving.
  Gateway* const gate = gateway ? &*gateway : nullptr;  // null: no gateway (one test per step's end)
  // Users who give up while the gateway holds them (workload.patience): the gateway's
  // deadline event (data -1), at its earliest held deadline (Gateway::deadline_event).
  auto arm_gateway_deadline = [&](Nanos now) {
    if (const auto at = gate->deadline_event(now)) queue.push(*at, kDeadlinePriority, kDeadline, -1);
  };
  auto gateway_give_up = [&](Nanos now) __attribute__((noinline, cold)) {
    gone.clear();
    gate->give_up_due(now, gone);
    for (const Request& g : gone) {
      collector.on_request_done(failed_record(g, 0, FailureReason::abandoned, now));
      source.on_abandon(g, now);
    }
    if (!gone.empty()) {
      pull();
      if (reorder) resequence();
    }
    arm_gateway_deadline(now);
  };
  auto release_held = [&](Nanos now) __attribute__((noinline, cold)) {
    while (gate->holding() && !pool_saturated()) mark(dispatch(gate->release(now), now));
    arm_gateway_deadline(now);
  };
  const std::int64_t expected = source.expected_total();
  std::int64_t next_progress = 0;
  std::uint32_t popped = 0;
  // The loop, over the heap alone or (replicas with their own horizons) the heap and
  // the replicas' step-end slots: two copies, so the plain path tests no slots.
  auto event_loop = [&](auto& events) __attribute__((always_inline)) {
    while (!events.empty()) {
      // Ctrl-C stops a long run: one relaxed atomic load per 4096 events.
      if ((++popped & 4095u) == 0) throw_if_interrupted();
      const Event ev = events.pop();
      const Nanos now = ev.time;
      last_event = now;
      if (ev.kind == kArrival && reorder && ev.data != arrival_generation) {
        // A stale arrival: its request was given back to the source (resequence).
      } else if (ev.kind == kArrival) {
        // Handled in place (one move fewer per request); pending is emptied before pull().
        Request& req = *pending;
        if (source.withdrawn(req)) {
          pending.reset();
          pull();  // never sent: not offered
        } else if (count_offered(req); guard.guard_tripped) {
          reject(req, now);
          source.on_failed(req, now);
          pending.reset();
          pull();
        } else if (gateway) [[unlikely]] {
          const Gateway::Decision d =
              gateway->admit(req, now, gateway->flow_control() && pool_saturated());
          if (d.verdict == Gateway::Verdict::fail) {
            collector.on_request_done(failed_record(req, 0, d.why, now));
            source.on_failed(req, now);
          } else if (d.verdict == Gateway::Verdict::hold) {
            gateway->hold(std::move(req), now);
            arm_gateway_deadline(now);
          } else {
            mark(dispatch(std::move(req), now));
          }
          pending.reset();
          pull();
        } else {
          const int r = dispatch(std::move(req), now);
          pending.reset();
          pull();
          mark(r);
        }
      } else if (ev.kind == kDeadline && ev.data < 0) [[unlikely]] {
        gateway_give_up(now);  // held at the gateway
      } else if (ev.kind == kDeadline) {
        const int r = static_cast<int>(ev.data);
        if (deadline_at[static_cast<std::size_t>(r)] == now) deadline_at[static_cast<std::size_t>(r)] = kNever;
        abandon_due(r, now);
        mark(r);  // re-arms the next deadline (and may start a step)
      } else if (ev.kind == kScale) {
        if (ev.data >= 0) {  // a started replica is ready
          const int r = static_cast<int>(ev.data);
          scaler->ready(r, now);
          if (scaler->state(r) == Autoscaler::State::serving)
            router.set_available(r, true, replicas[static_cast<std::size_t>(r)]->load());
          if (gate && gate->holding()) release_held(now);
        } else {
          refresh_stale();
          for (std::size_t i = 0; i < replicas.size(); ++i)
            signals[i] = ReplicaSignal{replicas[i]->queued(), replicas[i]->outstanding(), replicas[i]->kv_load()};
          FleetSignal fleet_signal;
          if (gate) fleet_signal.held = gate->held();
          if (!recent_ttft_ms.empty()) {
            fleet_signal.ttft_s = nearest_rank_quantile(recent_ttft_ms, sc.autoscale->ttft_quantile) / 1e3;
            recent_ttft_ms.clear();
          }
          const Autoscaler::Decision d = scaler->decide(now, signals, fleet_signal);
          for (int r : d.start) queue.push(scaler->ready_at(r), kScalePriority, kScale, r);
          for (int r : d.drain) {
            router.set_available(r, false, replicas[static_cast<std::size_t>(r)]->load());
            if (replicas[static_cast<std::size_t>(r)]->outstanding() == 0) scaler->stopped(r, now);
          }
          // The next decision, while anything else is still to happen.
          if (!events.empty()) queue.push(now + scaler->interval(), kScalePriority, kScale, -1);
        }
      } else if (ev.kind == kKick) {
        const int r = static_cast<int>(ev.data);
        if (kick_at[static_cast<std::size_t>(r)] == now) kick_at[static_cast<std::size_t>(r)] = kNever;
        mark(r);
      } else {
        const int r = static_cast<int>(ev.data);
        done.clear();
        replicas[static_cast<std::size_t>(r)]->finish_step(now, done);
        observe(r);
        if (scaler && scaler->state(r) == Autoscaler::State::draining &&
            replicas[static_cast<std::size_t>(r)]->outstanding() == 0)
          scaler->stopped(r, now);
        for (const auto& d : done) source.on_complete(d, now);
        if (!done.empty()) {
          pull();  // closed loop: a completion may release the next request
          if (reorder) resequence();
        }
        mark(r);
        if (gate && gate->holding()) [[unlikely]] release_held(now);
      }
      if (single && to_kick[0] && (events.empty() || events.top_time() > now)) {
        to_kick[0] = 0;
        kick(0, now);
      } else if (kick_count > 0 && (events.empty() || events.top_time() > now)) {
        // Only the marked replicas, in index order as a scan over all would take them.
        const auto marked = kick_list.begin() + static_cast<std::ptrdiff_t>(kick_count);
        if (kick_count > 1) std::sort(kick_list.begin(), marked);
        for (auto it = kick_list.begin(); it != marked; ++it) {
          to_kick[static_cast<std::size_t>(*it)] = 0;
          kick(*it, now);
        }
        kick_count = 0;
      }
      if (options.progress && collector.finished() >= next_progress) {
        options.progress(collector.finished(), expected);
        next_progress = collector.finished() + 1000;
      }
    }
  };
  if (replica_horizon) {
    MergedEvents merged(queue, step_ends);
    event_loop(merged);
  } else {
    event_loop(queue);
  }
  if (pending) throw Error("internal: a request was left without its arrival");
  if (gateway && gateway->holding()) throw Error("internal: the gateway still holds requests at the run's end");
  result.summary = collector.summarize();
  result.summary.conversations.turns_not_sent = source.turns_not_sent();
  if (const SessionStats* st = source.session_stats()) result.summary.conversations.sessions = *st;
  result.summary.kv_tiers = kv_tier_reports(replicas);
  result.summary.lora = lora_report(sc, pools, replicas);
  if (beam_loop) result.summary.beam_loop = beam_loop->report();
  if (gateway) {
    result.summary.gateway = gateway->flow_control();
    const std::vector<GatewayClassReport> held = gateway->report();
    for (std::size_t c = 0; c < held.size() && c < result.summary.classes.size(); ++c)
      result.summary.classes[c].gateway = held[c];
  }
  if (scaler) {
    RunSummary& s = result.summary;
    s.autoscale = scaler->finish(last_event);
    if (!fleet) {
      // The collector priced every replica idle over the whole run; an autoscaled
      // replica draws idle power only while it holds its GPUs (a heterogeneous fleet's
      // pools are priced so in merge_fleet_pools).
      const double busy_gpu_s = s.busy_fraction * s.duration_s * sc.parallelism.replicas * first.setup.parallelism.gpus_per_replica();
      set_energy(s, held_energy_j(s.busy_power_w_per_gpu * busy_gpu_s, busy_gpu_s, s.autoscale->gpu_seconds,
                                  PowerModel::of(first.setup.gpu).idle_watts));
    }
  }
  if (fleet) merge_fleet_pools(result.summary, pools, sc.pools);
  add_carbon(result.summary, sc.grid_g_per_kwh);
  if (options.check_workload) refuse_all_failed(result.summary, sc);
  const LoadReport measured = load;  // the collector's queue-growth test
  load = guard;
  load.queue_mid_ms = measured.queue_mid_ms;
  load.queue_last_ms = measured.queue_last_ms;
  load.queue_grows = measured.queue_grows;
  load.stages = measured.stages;
  load.by_stage = measured.by_stage;
  load.overloaded = measured.queue_grows || guard.guard_tripped;
  if (result.summary.beam_loop && result.summary.duration_s > 0) {
    // A saturated front end slows every request in flight (its rounds interleave on
    // one thread) more than it queues new ones, so the queue test may not see it.
    BeamLoopReport& b = *result.summary.beam_loop;
    b.frontend_share = b.frontend_busy_s / result.summary.duration_s;
    if (b.frontend_share >= BeamLoopReport::kSaturatedShare) load.overloaded = true;
  }
  load.offered = offered;
  load.offered_rps = last_arrival > first_arrival
                         ? static_cast<double>(offered) / to_seconds(last_arrival - first_arrival)
                         : 0.0;
  if (load.offered != result.summary.completed + result.summary.failed)
    throw Error(fmt::format("internal: {} requests offered but {} completed and {} failed", load.offered,
                            result.summary.completed, result.summary.failed));
  result.timeline = collector.timeline();
  return result;
}

}  // namespace servesim
