#include "run/disaggregated_simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <unordered_map>

#include "core/event_queue.h"
#include "cost/layout_text.h"
#include "engine/data_parallel_ranks.h"
#include "engine/decode_only_engine.h"
#include "engine/engine.h"
#include "engine/router.h"
#include "engine/step_cost_cache.h"
#include "hardware/power_model.h"
#include "scenario/disaggregation.h"
#include "scenario/setup.h"
#include "run/autoscaler.h"
#include "run/run_totals.h"
#include "run/sla_planner.h"
#include "run/sla_profile.h"
#include "run/fleet_pools_run.h"
#include "run/class_admission.h"
#include "run/gateway.h"
#include "run/serving_pool.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/machine.h"
#include "workload/request_copy.h"
#include "workload/arrival_process.h"

namespace servesim {
namespace {

enum EventKind : int {
  kPrefillEnd = 0,
  kDecodeEnd = 1,
  kTransferDone = 2,
  kArrival = 3,
  kDeadline = 4,
  kLinkFree = 5,
  kScale = 6,  // an autoscaled pool's decision, an instance ready, or a draining one's link freed (data says which)
};
// At equal times: steps end first (freed capacity is seen by what comes at that
// instant), then transfers land (a decode step starting at that instant takes
// them) and links free up for the next, then arrivals, then users give up
// (workload.patience: a first token at the deadline's instant is in time, as in
// co-located serving).
constexpr int kStepEndPriority = 0;
constexpr int kTransferPriority = 1;
constexpr int kArrivalPriority = 2;
constexpr int kDeadlinePriority = 3;
// An autoscaled pool's events come last at their instant, as co-located (run/simulation.cpp):
// a decision reads the loads once the instant's arrivals and step ends are in.
constexpr int kScalePriority = 4;
// kScale's data: a pool's decision, an instance ready to serve (its number: prefill
// instances 0 .. np-1, decode instances np ..), or a draining prefill instance p whose
// link frees (kLinkDrained - p).
constexpr std::int64_t kPrefillDecision = -1, kDecodeDecision = -2, kLinkDrained = -3;

// What disaggregated serving does not model, said before anything runs.
void refuse_unsupported(const Scenario& sc, const DisaggregationSpec& d) {
  const auto refuse = [](const std::string& what) {
    throw Error(fmt::format("disaggregation: {} is not modelled with prefill/decode disaggregation; remove it or "
                            "the disaggregation section",
                            what));
  };
  if (d.prefill.engine.kind != "vllm") refuse(fmt::format("engine.kind: {} (only vllm)", d.prefill.engine.kind));
  if (d.prefill.parallelism.pp > 1 || d.decode.parallelism.pp > 1) refuse("pipeline parallelism (parallelism.pp > 1)");
  if (!sc.workload.sampling.single()) refuse("workload.sampling (parallel samples or beams)");
  if (d.prefill.resolved.kv_cache != d.decode.resolved.kv_cache)
    throw Error(fmt::format("disaggregation: the pools' KV caches differ ({} in prefill, {} in decode); the KV moves "
                            "between them as it is, so give both the same model.kv_cache",
                            dtype_name(d.prefill.resolved.kv_cache), dtype_name(d.decode.resolved.kv_cache)));
}

// The prefill instances' reports: steps to the pool's collector; each request's
// record (done after its first token, or failed) kept for the loop, which
// continues it in the decode pool.
class PrefillTap final : public RunObserver {
 public:
  PrefillTap(Collector& pool, int replicas) : pool_(pool), last_step_s_(static_cast<std::size_t>(replicas), 0.0) {}
  void on_step(const StepRecord& s) override {
    pool_.on_step(s);
    last_step_s_[static_cast<std::size_t>(s.replica)] = to_seconds(s.end - s.start);
  }
  void on_itl(double seconds, std::int64_t count) override { pool_.on_itl(seconds, count); }
  void on_request_done(const RequestRecord& r) override {
    pool_.on_request_done(r);
    records.push_back(r);
  }
  double last_step_seconds(int replica) const { return last_step_s_[static_cast<std::size_t>(replica)]; }
  std::vector<RequestRecord> records;

 private:
  Collector& pool_;
  std::vector<double> last_step_s_;  // the step each instance ran last (the one that just ended)
};



}  // namespace

SimulationResult simulate_disaggregated(const Scenario& sc, RequestSource& source, const SimulationOptions& options) {
  if (!sc.disaggregation) throw Error("internal: simulate_disaggregated on a co-located scenario");
  const DisaggregationSpec& spec = *sc.disaggregation;
  refuse_unsupported(sc, spec);
  ServingPool prefill(spec.prefill, "disaggregation.prefill", true, options.timeline_rows / 2),
      decode(spec.decode, "disaggregation.decode", true, options.timeline_rows / 2);
  if (options.check_workload) {
    // The whole sequence lives in a decode instance: judged as a co-located replica of the decode pool.
    Scenario as_decode = sc;
    static_cast<Setup&>(as_decode) = spec.decode;
    try {
      const std::int64_t rank_blocks = rank_kv_blocks(decode.blocks, spec.decode.parallelism.attention_dp);
      refuse_unservable_workload(as_decode, rank_blocks > 0 ? rank_blocks : decode.blocks);
    } catch (const Error& e) {
      throw Error(fmt::format("disaggregation.decode: {}", e.what()));
    }
  }
  SimulationResult result;
  result.memory = decode.memory;
  result.kv_blocks_per_replica = decode.blocks;

  const int np = spec.prefill.parallelism.replicas, nd = spec.decode.parallelism.replicas;
  Collector run(decode.cost.peak_flops(), spec.decode.gpu.memory_bandwidth, spec.decode.parallelism.gpus_per_replica(),
                nd, sc.slo);
  // Rates that change by stage: the saturation test per stage (metrics/stage_queue_growth.h).
  {
    std::vector<double> starts;
    double end_s = 0;
    if (stage_windows(sc.workload.arrival, &starts, &end_s)) run.test_growth_by_stage(std::move(starts), end_s);
  }
  // Users who give up (workload.patience), request classes (workload.classes; a
  // gateway without them has one, "all") and the gateway, as in co-located serving
  // (run/simulation.cpp): a request's class and patience travel with it to both pools.
  std::optional<Patience> patience;
  if (sc.workload.patience) {
    patience.emplace(*sc.workload.patience, sc.workload.seed);
    run.report_patience();
  }
  std::optional<ClassAssignment> classes;
  std::optional<Gateway> gateway;
  set_up_classes(sc, run, classes, gateway);
  if (gateway && patience) gateway->set_patience(&*patience);  // held users give up there too
  const ClassAssignment* ranks = classes && classes->ranked() ? &*classes : nullptr;
  run.set_request_stream(options.requests_csv);  // after the classes: its header names them
  run.set_request_results(options.request_results);
  if (sc.workload.multi_turn && sc.workload.multi_turn->conversation_metrics)
    run.track_conversations(sc.workload.multi_turn->turns, sc.workload.arrival.kind == ArrivalKind::closed_loop);
  PrefillTap prefill_tap(*prefill.collector, np);
  PoolTap decode_tap(*decode.collector, run, /*steps_to_run=*/false);
  for (int r = 0; r < np; ++r) {
    // The vLLM engine of co-located serving: priority queue (engine.scheduling_policy),
    // preemption by priority and users who give up before the prompt's end, as there.
    EngineContext ctx = prefill.context(r, &prefill_tap, options.fast_forward);
    ctx.patience = patience ? &*patience : nullptr;
    ctx.classes = ranks;
    prefill.engines.push_back(make_engine(ctx));
  }
  std::vector<DecodeOnlyEngine*> decoders;
  for (int r = 0; r < nd; ++r) {
    EngineContext ctx = decode.context(r, &decode_tap, options.fast_forward);
    ctx.patience = patience ? &*patience : nullptr;
    ctx.classes = ranks;
    auto e = std::make_unique<DecodeOnlyEngine>(ctx);
    decoders.push_back(e.get());
    decode.engines.push_back(std::move(e));
  }
  // Each pool's router as a co-located fleet's (parallelism.router_weights too: `scored`
  // with precise_prefix reads the decode instances' prefix caches, Engine::prefix_match).
  Router prefill_router(spec.prefill.router, spec.prefill.router_weights),
      decode_router(spec.decode.router, spec.decode.router_weights);
  // Autoscaled pools (disaggregation.{prefill,decode}.autoscale; run/autoscaler.h): each
  // pool has its own autoscaler deciding from its own instances' signals, as NVIDIA
  // Dynamo's planner sizes prefill and decode workers apart. An instance not serving is
  // kept from its pool's router; a draining one stops once it holds nothing (a prefill
  // instance also once the KV of the prompts it computed has left on its link).
  struct ScaledPool {
    Autoscaler scaler;
    std::vector<ReplicaSignal> signals;
    std::vector<int> draining;
    bool reads_ttft = false;    // target_ttft
    std::size_t ttft_from = 0;  // its next reading starts at this TTFT of ttft_ms
    std::unique_ptr<SlaPlanner> planner;  // planner: sla (run/sla_planner.h), else null
    LoadTotals read;                      // load_totals at its last decision
    Nanos read_at = 0;
    AutoscaleReport::SlaPlanning planning;  // what it planned (the report's)
  };
  std::optional<ScaledPool> scaled_p, scaled_d;
  std::vector<double> ttft_ms;  // finished requests' TTFTs since the pools' last readings
  LoadTotals load_totals;       // what the SLA planners read per interval (arrivals counted below)
  auto set_up_scaling = [&](std::optional<ScaledPool>& sp, const std::optional<AutoscaleSpec>& a,
                            const ServingPool& pool, Router& router) {
    if (!a) return;
    const int n = pool.setup.parallelism.replicas;
    sp.emplace(ScaledPool{Autoscaler(*a, n, pool.setup.parallelism.gpus_per_replica(), pool.memory.weights),
                          std::vector<ReplicaSignal>(static_cast<std::size_t>(n)), {}, a->target_ttft_s > 0, 0,
                          nullptr, {}, 0, {}});
    if (a->planner == AutoscaleSpec::Planner::sla) {
      sp->planner = std::make_unique<SlaPlanner>(sla_profile(pool), a->target_itl_s, a->correction);
      run.watch_load(&load_totals);
    }
    for (int r = 0; r < n; ++r)
      if (sp->scaler.state(r) != Autoscaler::State::serving)
        router.set_available(r, false, pool.engines[static_cast<std::size_t>(r)]->load());
    if (a->target_ttft_s > 0) run.watch_ttft(&ttft_ms);
  };
  set_up_scaling(scaled_p, spec.prefill_autoscale, prefill, prefill_router);
  set_up_scaling(scaled_d, spec.decode_autoscale, decode, decode_router);

  const double kv_per_token = model_kv_bytes_per_token(sc.model, spec.decode.resolved.kv_cache);
  const KvTransferSpec& link = spec.transfer;
  const int layers = std::max(1, sc.model.layers);
  DisaggregationReport report;
  SampleSet transfer_ms(Collector::kExactCap, false), link_wait_ms(Collector::kExactCap, false),
      decode_wait_ms(Collector::kExactCap, false);

  EventQueue queue;
  std::optional<Request> pending;
  const Nanos frontend = to_nanos(sc.engine.frontend_latency);
  const std::int64_t max_len = std::min(spec.prefill.engine.max_model_len, spec.decode.engine.max_model_len);
  std::int64_t offered = 0;
  Nanos first_arrival = 0, last_arrival = 0;
  auto count_offered = [&](const Request& r) {
    ++load_totals.arrived;
    if (offered++ == 0) first_arrival = r.arrival;
    last_arrival = std::max(last_arrival, r.arrival);
  };
  // A source that may reorder (closed-loop sessions: an answer makes the next turn
  // due, possibly before the request pending here) is asked after each event whether
  // an earlier request is due; the pending one is then given back and its arrival
  // event goes stale, which the event's generation tells (as run/simulation.cpp does).
  const bool reorder = source.may_reorder();
  std::int64_t arrival_generation = 0;
  auto pull = [&] {
    if (pending) return;
    pending = source.next();
    if (pending) queue.push(pending->arrival + frontend, kArrivalPriority, kArrival, ++arrival_generation);
  };
  auto resequence = [&] {
    pull();
    if (!pending) return;
    const std::optional<Nanos> due = source.earliest();
    if (!due || *due >= pending->arrival) return;
    source.put_back(std::move(*pending));
    pending.reset();
    pull();
  };

  // Requests between arrival and their decode instance: the original (its full
  // output length) while it is in the prefill pool; its prefill's end while it
  // waits for decode blocks.
  std::unordered_map<std::int64_t, Request> in_prefill;
  struct Prefilled {
    Nanos at;
    int instance;
    double last_step_s;
  };
  std::unordered_map<std::int64_t, Prefilled> prefilled;
  // Per prefill instance, its requests in `prefilled` (their KV still to leave on its link).
  std::vector<std::int64_t> owed_sends(static_cast<std::size_t>(np), 0);
  auto forget_prefilled = [&](std::int64_t id) {
    if (auto it = prefilled.find(id); it != prefilled.end()) {
      --owed_sends[static_cast<std::size_t>(it->second.instance)];
      prefilled.erase(it);
    }
  };
  // The decode instance the P/D decider read, for a request it sent to the prefill
  // pool (llm-d's pd-profile-handler picks the decode endpoint first, then decides):
  // only when decode instances keep a prefix cache and the decider is on.
  const bool decode_caches = decoders.front()->prefix_cache() != nullptr;
  std::unordered_map<std::int64_t, int> decode_of;
  // Transfers in flight, by slot (the event's data).
  struct Transfer {
    int decode;
    std::int64_t id;
  };
  std::vector<Transfer> transfers;
  std::vector<std::size_t> free_transfers;
  // Each prefill instance's link sends one transfer at a time, in the order the decode
  // instances granted them; the others wait in its queue, and a kLinkFree event starts
  // the next when the link frees. A transfer whose user gives up while it waits there
  // is withdrawn (its decode blocks freed at once); one on the wire is not cancelled.
  struct PendingTransfer {
    int decode;
    std::int64_t id;
    Nanos prefilled_at;  // its prefill's end (layer-wise overlap when it leaves then)
    double last_step_s;  // that prefill step
    double bytes;
    Nanos granted_at;
  };
  std::vector<Nanos> link_free(static_cast<std::size_t>(np), 0);
  std::vector<std::deque<PendingTransfer>> link_queue(static_cast<std::size_t>(np));
  std::vector<char> link_event(static_cast<std::size_t>(np), 0);  // a kLinkFree event is queued
  std::unordered_map<std::int64_t, int> on_link_queue;  // with patience: id -> its prefill instance
  std::vector<char> to_kick_p(static_cast<std::size_t>(np), 0), to_kick_d(static_cast<std::size_t>(nd), 0);
  std::vector<char> to_grant(static_cast<std::size_t>(nd), 0);

  auto fail = [&](RequestRecord rec, const Request& orig, Nanos now) {
    rec.output_tokens = orig.output_tokens;
    run.on_request_done(rec);
    source.on_failed(orig, now);
  };
  // The prefill instances' records since the last look: failures end there; a
  // first token goes on to a decode instance (or ends a one-token request).
  auto drain_prefill = [&](Nanos now) {
    for (RequestRecord& rec : prefill_tap.records) {
      auto it = in_prefill.find(rec.id);
      if (it == in_prefill.end()) throw Error("internal: a prefill record for a request not in the prefill pool");
      const Request orig = std::move(it->second);
      in_prefill.erase(it);
      int chosen = -1;  // the decode instance the decider picked, if it did
      if (!decode_of.empty())
        if (auto c = decode_of.find(orig.id); c != decode_of.end()) {
          chosen = c->second;
          decode_of.erase(c);
        }
      if (rec.failed && rec.failure == FailureReason::abandoned) {
        // Its user gave up in the prefill pool: its KV is never sent.
        rec.output_tokens = orig.output_tokens;
        run.on_request_done(rec);
        source.on_abandon(orig, now);
        continue;
      }
      if (rec.failed) {
        fail(rec, orig, now);
        continue;
      }
      rec.output_tokens = orig.output_tokens;
      if (orig.output_tokens <= 1) {
        ++report.finished_at_prefill;
        run.on_request_done(rec);
        source.on_complete(orig, now);
        continue;
      }
      prefilled.emplace(orig.id, Prefilled{now, rec.replica, prefill_tap.last_step_seconds(rec.replica)});
      ++owed_sends[static_cast<std::size_t>(rec.replica)];
      // (The decider's instance, unless it has left the pool since: an autoscaled decode pool.)
      if (chosen >= 0 && scaled_d && scaled_d->scaler.state(chosen) != Autoscaler::State::serving) chosen = -1;
      const int d = chosen >= 0 ? chosen : decode_router.pick(decode.engines, orig);
      if (!decoders[static_cast<std::size_t>(d)]->accept(orig, rec, now)) {
        forget_prefilled(orig.id);
        source.on_failed(orig, now);  // reported failed by the decode instance
        continue;
      }
      to_grant[static_cast<std::size_t>(d)] = 1;
    }
    prefill_tap.records.clear();
  };
  // The transfer leaves prefill instance `p` now: the link is busy until its wire time
  // (less a layer-wise overlap) is over; it lands `latency` after that.
  auto begin_transfer = [&](int p, const PendingTransfer& t, Nanos now) {
    link_wait_ms.add(to_seconds(now - t.granted_at) * 1e3);
    const double wire_s = t.bytes / link.bandwidth;
    double exposed_s = wire_s;
    if (link.layerwise && now == t.prefilled_at) {
      // Layer l's KV leaves as the last prefill step finishes layer l: all but
      // the last layer's share overlaps that step.
      const double overlap = t.last_step_s * static_cast<double>(layers - 1) / layers;
      exposed_s = std::max(wire_s / layers, wire_s - overlap);
    }
    link_free[static_cast<std::size_t>(p)] = now + to_nanos(exposed_s);
    const Nanos end = now + to_nanos(link.latency_s + exposed_s);
    transfer_ms.add(to_seconds(end - now) * 1e3);
    ++report.transfers;
    report.transfer_bytes += t.bytes;
    std::size_t slot;
    if (!free_transfers.empty()) {
      slot = free_transfers.back();
      free_transfers.pop_back();
      transfers[slot] = Transfer{t.decode, t.id};
    } else {
      slot = transfers.size();
      transfers.push_back(Transfer{t.decode, t.id});
    }
    queue.push(end, kTransferPriority, kTransferDone, static_cast<std::int64_t>(slot));
  };
  // The link of instance `p` is free at `now`: the transfers waiting for it go, in order.
  auto next_transfers = [&](int p, Nanos now) {
    auto& waiting = link_queue[static_cast<std::size_t>(p)];
    while (!waiting.empty() && link_free[static_cast<std::size_t>(p)] <= now) {
      const PendingTransfer t = waiting.front();
      waiting.pop_front();
      if (patience) on_link_queue.erase(t.id);
      begin_transfer(p, t, now);
    }
    if (!waiting.empty() && !link_event[static_cast<std::size_t>(p)]) {
      link_event[static_cast<std::size_t>(p)] = 1;
      queue.push(link_free[static_cast<std::size_t>(p)], kTransferPriority, kLinkFree, p);
    }
  };
  std::vector<Request> granted;
  auto start_transfers = [&](int d, Nanos now) {
    granted.clear();
    decoders[static_cast<std::size_t>(d)]->grant(granted);
    for (const Request& g : granted) {
      const Prefilled p = prefilled.at(g.id);
      forget_prefilled(g.id);
      decode_wait_ms.add(to_seconds(now - p.at) * 1e3);
      // Only the prompt's blocks the decode instance has not cached move: vLLM's
      // NixlConnector (vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py)
      // asks for len(prompt) - num_computed_tokens, the local prefix hit
      // (get_num_new_matched_tokens), and reads into the request's unhashed blocks
      // only (update_state_after_alloc: blocks.get_unhashed_block_ids()). The prefill
      // instance still computes the whole prompt (its own prefix cache aside): the
      // decider sent it there. cached_tokens is 0 without prefix caching.
      const std::int64_t sent =
          g.input_tokens - (decode_caches ? decoders[static_cast<std::size_t>(d)]->cached_tokens(g.id) : 0);
      const PendingTransfer t{d, g.id, p.at, p.last_step_s, static_cast<double>(sent) * kv_per_token, now};
      auto& waiting = link_queue[static_cast<std::size_t>(p.instance)];
      if (waiting.empty() && link_free[static_cast<std::size_t>(p.instance)] <= now) {
        begin_transfer(p.instance, t, now);
      } else {
        waiting.push_back(t);
        if (patience) on_link_queue.emplace(g.id, p.instance);
        next_transfers(p.instance, now);  // queues the kLinkFree event
      }
    }
  };

  // The overload guard, as in co-located serving: never-scheduled requests in
  // the prefill queues and requests waiting for decode blocks.
  LoadReport guard;
  guard.guard_bytes = queue_guard_bytes(sc.engine, options.concurrent_runs, &guard.guard_from_machine);
  auto reject = [&](const Request& r, Nanos at) {
    run.on_request_done(failed_record(r, 0, FailureReason::overload_guard, at));
  };
  auto check_guard = [&](Nanos now) {
    std::int64_t queued = 0, bytes = 0;
    for (const auto& e : prefill.engines) {
      queued += e->queued();
      bytes += e->queued_bytes();
    }
    for (const auto& e : decode.engines) {
      queued += e->queued();
      bytes += e->queued_bytes();
    }
    if (queued > guard.queued_peak) {
      guard.queued_peak = queued;
      guard.queued_peak_bytes = static_cast<double>(bytes);
    }
    if (static_cast<double>(bytes) <= guard.guard_bytes) return;
    guard.guard_tripped = true;
    guard.guard_trip_s = to_seconds(now - first_arrival);
    for (auto& e : prefill.engines) e->abort_queued(now, FailureReason::overload_guard, [](const Request&) {});
    drain_prefill(now);  // the aborted requests' records: failures
    for (auto& e : decode.engines)
      e->abort_queued(now, FailureReason::overload_guard, [&](const Request& r) {
        forget_prefilled(r.id);
        source.on_failed(r, now);
      });
    // (A source that may reorder is told of each failure: its sessions end, so it runs dry.)
    while (auto r = source.next()) {
      count_offered(*r);
      reject(*r, r->arrival);
      if (reorder) source.on_failed(*r, r->arrival);
    }
  };
  // The P/D decider with decode-side prefix caches (llm-d's prefix-based decider,
  // pkg/plugins/profile/prefix_based_pd_decider.go in llm-d-inference-scheduler): the
  // decode pool's router picks the instance first; the uncached part is the prompt
  // less what that instance's cache holds of it now; at or below the threshold it
  // is prefilled there. `d`: the instance picked, either way.
  auto decide_local = [&](const Request& req, int& d) {
    d = decode_router.pick(decode.engines, req);
    const std::int64_t cached = decoders[static_cast<std::size_t>(d)]->cached_prompt_tokens(req);
    return req.input_tokens - cached <= spec.decider_threshold;
  };
  auto horizon = [&] { return queue.empty() ? std::numeric_limits<Nanos>::max() : queue.top_time(); };

  // A request past the gateway (or without one): refused when too long, else the P/D
  // decider sends it to a decode instance or to the prefill pool.
  auto send_on = [&](Request&& req, Nanos now) {
    if (req.input_tokens + req.output_tokens > max_len) {
      // Refused before prefill: the prefill instance sees one output token only.
      fail(failed_record(req, 0, FailureReason::too_long_for_max_model_len, now), req, now);
    } else if (int d = -1; decode_caches ? spec.decider_threshold > 0 && decide_local(req, d)
                                         : req.input_tokens <= spec.decider_threshold) {
      // The P/D decider: few enough uncached prompt tokens to prefill on the decode
      // instance (llm-d's decode profile picks it; no prefill instance, no transfer).
      if (d < 0) d = decode_router.pick(decode.engines, req);
      ++report.local_prefills;
      if (!decoders[static_cast<std::size_t>(d)]->accept(req, arrival_record(req, d), now, /*local_prefill=*/true))
        source.on_failed(req, now);  // reported failed by the decode instance
      else
        to_grant[static_cast<std::size_t>(d)] = 1;
      check_guard(now);
    } else {
      if (d >= 0) decode_of.emplace(req.id, d);  // the decider's decode instance takes it after prefill
      const int p = prefill_router.pick(prefill.engines, req);
      Request one = copy_request(req);  // queued there with req's bytes
      one.output_tokens = 1;  // the prefill instance samples the first token
      in_prefill.emplace(req.id, std::move(req));
      prefill.engines[static_cast<std::size_t>(p)]->enqueue(std::move(one), now);
      drain_prefill(now);  // a prompt larger than the instance's KV fails at once
      check_guard(now);
      to_kick_p[static_cast<std::size_t>(p)] = 1;
    }
  };
  // The gateway's flow control (run/gateway.h) in front of both pools: the deployment
  // is saturated when every instance of either pool is (waiting queue or KV use at the
  // gateway's thresholds; an idle instance never is): a prefill pool that cannot take
  // more prompts, or a decode pool that cannot take their KV.
  // (An autoscaled pool's instances that are not serving are not asked.)
  auto pool_saturated = [&](const std::vector<std::unique_ptr<Engine>>& engines, const std::optional<ScaledPool>& sp) {
    const GatewaySpec& g = gateway->flow();
    for (std::size_t i = 0; i < engines.size(); ++i) {
      if (sp && sp->scaler.state(static_cast<int>(i)) != Autoscaler::State::serving) continue;
      const Engine& e = *engines[i];
      if (e.outstanding() == 0 || (e.queued() < g.queue_threshold && e.kv_load() < g.kv_threshold)) return false;
    }
    return true;
  };
  auto saturated = [&] { return pool_saturated(prefill.engines, scaled_p) || pool_saturated(decode.engines, scaled_d); };
  // Users who give up while the gateway holds them: the gateway's deadline event (data
  // -1), at its earliest held deadline (Gateway::deadline_event), as co-located.
  auto arm_gateway_deadline = [&](Nanos now) {
    if (const auto at = gateway->deadline_event(now)) queue.push(*at, kDeadlinePriority, kDeadline, -1);
  };
  std::vector<Request> gave_up_held;
  auto gateway_give_up = [&](Nanos now) {
    gave_up_held.clear();
    gateway->give_up_due(now, gave_up_held);
    for (const Request& g : gave_up_held) {
      run.on_request_done(failed_record(g, 0, FailureReason::abandoned, now));
      source.on_abandon(g, now);
    }
    if (!gave_up_held.empty()) pull();  // closed loop: the user comes back
    arm_gateway_deadline(now);
  };
  // Held requests go on while the deployment is not saturated, the highest priority
  // first: asked after each step's end of either pool (where an instance's load falls),
  // once that instant's events are handled and the decode instances have granted what
  // fits (a prompt just handed to a decode instance is not a waiting request yet).
  auto release_held = [&](Nanos now) {
    while (gateway->holding() && !saturated()) send_on(gateway->release(now), now);
    arm_gateway_deadline(now);
  };

  // Users who give up (workload.patience): one deadline event queued per instance at
  // most (prefill instances 0 .. np-1, decode instances np ..), at its earliest
  // pending deadline, as in co-located serving. A prefill instance's abandonments come
  // back as its records (drain_prefill); a decode instance's as `gone`.
  std::vector<Nanos> deadline_at(static_cast<std::size_t>(np + nd), kNever);
  std::vector<Request> gone;
  auto instance = [&](int k) -> Engine& {
    return k < np ? *prefill.engines[static_cast<std::size_t>(k)] : *decode.engines[static_cast<std::size_t>(k - np)];
  };
  auto abandon_due = [&](int k, Nanos now) {
    gone.clear();
    instance(k).abandon_due(now, gone);
    if (k < np) {
      drain_prefill(now);
    } else {
      for (const Request& g : gone) {
        forget_prefilled(g.id);  // it may have been waiting for blocks
        if (auto q = on_link_queue.find(g.id); q != on_link_queue.end()) {
          // Its transfer had not left: withdrawn, and its decode blocks freed now.
          auto& waiting = link_queue[static_cast<std::size_t>(q->second)];
          waiting.erase(std::find_if(waiting.begin(), waiting.end(),
                                     [&](const PendingTransfer& t) { return t.id == g.id; }));
          on_link_queue.erase(q);
          decoders[static_cast<std::size_t>(k - np)]->kv_arrived(g.id, now);
        }
        source.on_abandon(g, now);
      }
    }
    if (!gone.empty()) pull();  // closed loop: the user comes back
  };
  auto arm_deadline = [&](int k, Nanos now) {
    const Nanos due = instance(k).next_deadline();
    if (due == kNever) return;
    const Nanos at = std::max(due, now);
    Nanos& queued_at = deadline_at[static_cast<std::size_t>(k)];
    if (queued_at != kNever && queued_at >= now && queued_at <= at) return;  // an event already comes by then
    queued_at = at;
    queue.push(at, kDeadlinePriority, kDeadline, k);
  };

  // Decode instances with new requests or freed blocks grant what fits.
  auto grant_marked = [&](Nanos now) {
    for (int d = 0; d < nd; ++d) {
      if (!to_grant[static_cast<std::size_t>(d)]) continue;
      to_grant[static_cast<std::size_t>(d)] = 0;
      if (patience) abandon_due(np + d, now);  // before granting: a user who gave up takes no blocks
      start_transfers(d, now);
      to_kick_d[static_cast<std::size_t>(d)] = 1;  // a prompt granted to prefill there starts at its next step
    }
  };
  bool release_due = false;  // a step ended this instant: the gateway may send held requests on

  // Autoscaled pools: a draining instance stops once it holds nothing; a prefill
  // instance also waits for its last transfer to leave its link (an event then).
  std::vector<Nanos> drain_check_at(static_cast<std::size_t>(np), kNever);
  auto prefill_idle = [&](int p, Nanos now) {
    const auto i = static_cast<std::size_t>(p);
    if (prefill.engines[i]->outstanding() > 0 || owed_sends[i] > 0 || !link_queue[i].empty()) return false;
    if (link_free[i] <= now) return true;
    if (drain_check_at[i] != link_free[i]) {
      drain_check_at[i] = link_free[i];
      queue.push(link_free[i], kScalePriority, kScale, kLinkDrained - p);
    }
    return false;
  };
  auto stop_drained = [&](bool in_prefill, Nanos now) {
    ScaledPool& sp = in_prefill ? *scaled_p : *scaled_d;
    std::erase_if(sp.draining, [&](int r) {
      const bool idle =
          in_prefill ? prefill_idle(r, now) : decode.engines[static_cast<std::size_t>(r)]->outstanding() == 0;
      if (idle) sp.scaler.stopped(r, now);
      return idle;
    });
  };
  std::size_t decisions_queued = 0;
  auto queue_decision = [&](bool in_prefill, Nanos at) {
    queue.push(at, kScalePriority, kScale, in_prefill ? kPrefillDecision : kDecodeDecision);
    ++decisions_queued;
  };
  // A pool's decision from its serving instances' signals (and, with target_ttft, the
  // TTFTs of the requests finished since its last decision).
  auto decide = [&](bool in_prefill, Nanos now) {
    ScaledPool& sp = in_prefill ? *scaled_p : *scaled_d;
    ServingPool& pool = in_prefill ? prefill : decode;
    Router& router = in_prefill ? prefill_router : decode_router;
    for (std::size_t r = 0; r < pool.engines.size(); ++r) {
      const Engine& e = *pool.engines[r];
      sp.signals[r] = ReplicaSignal{e.queued(), e.outstanding(), e.kv_load()};
    }
    FleetSignal fleet;
    if (gateway && in_prefill) fleet.held = gateway->held();  // they wait for the deployment, for a prefill first
    if (sp.reads_ttft) {
      const AutoscaleSpec& a = in_prefill ? *spec.prefill_autoscale : *spec.decode_autoscale;
      if (sp.ttft_from < ttft_ms.size()) {
        std::vector<double> recent(ttft_ms.begin() + static_cast<std::ptrdiff_t>(sp.ttft_from), ttft_ms.end());
        fleet.ttft_s = nearest_rank_quantile(recent, a.ttft_quantile) / 1e3;
      }
      sp.ttft_from = ttft_ms.size();
      // The TTFTs every reader has read are forgotten.
      std::size_t read = ttft_ms.size();
      for (const std::optional<ScaledPool>* q : {&scaled_p, &scaled_d})
        if (*q && (*q)->reads_ttft) read = std::min(read, (*q)->ttft_from);
      ttft_ms.erase(ttft_ms.begin(), ttft_ms.begin() + static_cast<std::ptrdiff_t>(read));
      for (std::optional<ScaledPool>* q : {&scaled_p, &scaled_d})
        if (*q && (*q)->reads_ttft) (*q)->ttft_from -= read;
    }
    if (sp.planner) {
      // The interval's load, the differences of the totals since this pool's last reading.
      const LoadTotals& t = load_totals;
      const LoadTotals& was = sp.read;
      SlaInterval m;
      m.interval_s = to_seconds(now - sp.read_at);
      m.requests = static_cast<double>(t.arrived - was.arrived);
      m.finished = static_cast<int>(t.finished - was.finished);
      if (m.finished > 0) {
        const double n = m.finished;
        m.isl = (t.input_tokens - was.input_tokens) / n;
        m.osl = (t.output_tokens - was.output_tokens) / n;
        m.ttft_s = (t.ttft_s - was.ttft_s) / n;
        m.duration_s = (t.duration_s - was.duration_s) / n;
        const double gaps = t.gaps - was.gaps;
        m.itl_s = gaps > 0 ? (t.decode_s - was.decode_s) / gaps : 0;
      }
      sp.read = t;
      sp.read_at = now;
      int serving = 0;
      for (std::size_t r = 0; r < pool.engines.size(); ++r)
        serving += sp.scaler.state(static_cast<int>(r)) == Autoscaler::State::serving ? 1 : 0;
      const SlaPlan plan = in_prefill ? sp.planner->plan_prefill(m) : sp.planner->plan_decode(m, serving);
      if (plan.instances >= 0) {
        AutoscaleReport::SlaPlanning& pl = sp.planning;
        ++pl.decisions;
        if (plan.itl_unreachable) ++pl.itl_unreachable;
        pl.last_instances = plan.instances;
        pl.last_correction = plan.correction;
        pl.last_per_instance = plan.per_instance;
        pl.last_batch = plan.batch;
      }
      fleet.planned = plan.instances;
    }
    const Autoscaler::Decision d = sp.scaler.decide(now, sp.signals, fleet);
    const int first = in_prefill ? 0 : np;  // the pool's first instance number
    for (int r : d.start) queue.push(sp.scaler.ready_at(r), kScalePriority, kScale, first + r);
    for (int r : d.drain) {
      router.set_available(r, false, pool.engines[static_cast<std::size_t>(r)]->load());
      sp.draining.push_back(r);
    }
    if (!sp.draining.empty()) stop_drained(in_prefill, now);
    // The next decision, while anything but the pools' decisions is still to happen.
    if (queue.size() > decisions_queued) queue_decision(in_prefill, now + sp.scaler.interval());
  };
  if (scaled_p) queue_decision(true, scaled_p->scaler.interval());
  if (scaled_d) queue_decision(false, scaled_d->scaler.interval());
  Nanos last_event = 0;

  pull();
  std::vector<Request> done;
  const std::int64_t expected = source.expected_total();
  std::int64_t next_progress = 0;
  std::uint32_t events = 0;
  while (!queue.empty()) {
    if ((++events & 4095u) == 0) throw_if_interrupted();
    const Event ev = queue.pop();
    const Nanos now = ev.time;
    last_event = now;
    const auto idx = static_cast<std::size_t>(ev.data);
    if (ev.kind == kArrival && ev.data != arrival_generation) {
      // Stale: its request was given back to the source (resequence).
    } else if (ev.kind == kArrival) {
      Request req = std::move(*pending);
      pending.reset();
      if (source.withdrawn(req)) {
        // never sent: not offered
      } else if (count_offered(req); guard.guard_tripped) {
        reject(req, now);
        source.on_failed(req, now);
      } else if (gateway) {
        // The gateway admits to the deployment (rate limits; with flow control, holds
        // or fails what a saturated deployment cannot take), as in co-located serving.
        const Gateway::Decision g = gateway->admit(req, now, gateway->flow_control() && saturated());
        if (g.verdict == Gateway::Verdict::fail) {
          run.on_request_done(failed_record(req, 0, g.why, now));
          source.on_failed(req, now);
        } else if (g.verdict == Gateway::Verdict::hold) {
          gateway->hold(std::move(req), now);
          arm_gateway_deadline(now);
        } else {
          send_on(std::move(req), now);
        }
      } else {
        send_on(std::move(req), now);
      }
      pull();
    } else if (ev.kind == kPrefillEnd) {
      done.clear();
      prefill.engines[idx]->finish_step(now, done);  // done: reported through the tap
      drain_prefill(now);
      to_kick_p[idx] = 1;
      pull();
      release_due = true;
    } else if (ev.kind == kTransferDone) {
      const Transfer t = transfers[idx];
      free_transfers.push_back(idx);
      decoders[static_cast<std::size_t>(t.decode)]->kv_arrived(t.id, now);
      to_kick_d[static_cast<std::size_t>(t.decode)] = 1;
      to_grant[static_cast<std::size_t>(t.decode)] = 1;  // an abandoned request's blocks may be free
    } else if (ev.kind == kLinkFree) {
      link_event[idx] = 0;
      next_transfers(static_cast<int>(ev.data), now);
    } else if (ev.kind == kScale) {
      if (ev.data == kPrefillDecision || ev.data == kDecodeDecision) {
        --decisions_queued;
        decide(ev.data == kPrefillDecision, now);
      } else if (ev.data <= kLinkDrained) {
        const auto p = static_cast<std::size_t>(kLinkDrained - ev.data);  // its last transfer has left
        if (drain_check_at[p] == now) drain_check_at[p] = kNever;
        stop_drained(true, now);
      } else {
        const bool in_prefill = ev.data < np;
        const int r = static_cast<int>(in_prefill ? ev.data : ev.data - np);
        ScaledPool& sp = in_prefill ? *scaled_p : *scaled_d;
        sp.scaler.ready(r, now);
        if (sp.scaler.state(r) == Autoscaler::State::serving) {
          Router& router = in_prefill ? prefill_router : decode_router;
          const ServingPool& pool = in_prefill ? prefill : decode;
          router.set_available(r, true, pool.engines[static_cast<std::size_t>(r)]->load());
          release_due = true;  // the gateway may send held requests to it
        }
      }
    } else if (ev.kind == kDeadline && ev.data < 0) {
      gateway_give_up(now);  // held at the gateway
    } else if (ev.kind == kDeadline) {
      const int k = static_cast<int>(ev.data);
      if (deadline_at[idx] == now) deadline_at[idx] = kNever;
      abandon_due(k, now);
      if (k < np) {
        to_kick_p[idx] = 1;
      } else {
        to_grant[idx - static_cast<std::size_t>(np)] = 1;  // a head that gave up may unblock the queue
        to_kick_d[idx - static_cast<std::size_t>(np)] = 1;
      }
    } else {
      done.clear();
      decode.engines[idx]->finish_step(now, done);
      for (const auto& d : done) source.on_complete(d, now);
      if (!done.empty()) pull();
      to_grant[idx] = 1;
      to_kick_d[idx] = 1;
      release_due = true;
    }
    if (reorder) resequence();
    if (queue.empty() || queue.top_time() > now) {
      grant_marked(now);
      if (release_due && gateway && gateway->holding()) {
        release_held(now);
        grant_marked(now);  // the released requests the decider sent to a decode instance
      }
      release_due = false;
      for (int p = 0; p < np; ++p) {
        if (!to_kick_p[static_cast<std::size_t>(p)]) continue;
        to_kick_p[static_cast<std::size_t>(p)] = 0;
        Engine& e = *prefill.engines[static_cast<std::size_t>(p)];
        if (patience) abandon_due(p, now);  // before planning: due prefills are aborted now
        if (e.can_start(now)) queue.push(e.start_step(now, horizon()), kStepEndPriority, kPrefillEnd, p);
        if (patience) arm_deadline(p, now);
      }
      for (int d = 0; d < nd; ++d) {
        if (!to_kick_d[static_cast<std::size_t>(d)]) continue;
        to_kick_d[static_cast<std::size_t>(d)] = 0;
        Engine& e = *decode.engines[static_cast<std::size_t>(d)];
        if (e.can_start(now)) queue.push(e.start_step(now, horizon()), kStepEndPriority, kDecodeEnd, d);
        if (patience) arm_deadline(np + d, now);
      }
      if (scaled_p && !scaled_p->draining.empty()) stop_drained(true, now);
      if (scaled_d && !scaled_d->draining.empty()) stop_drained(false, now);
    }
    if (options.progress && run.finished() >= next_progress) {
      options.progress(run.finished(), expected);
      next_progress = run.finished() + 1000;
    }
  }
  if (pending) throw Error("internal: a request was left without its arrival");
  if (gateway && gateway->holding()) throw Error("internal: the gateway still holds requests at the run's end");
  for (const auto& waiting : link_queue)
    if (!waiting.empty()) throw Error("internal: transfers were left waiting for a prefill instance's link");
  if (!in_prefill.empty() || !prefilled.empty())
    throw Error(fmt::format("internal: {} requests were left in the prefill pool and {} waiting for decode blocks",
                            in_prefill.size(), prefilled.size()));

  RunSummary& s = result.summary;
  s = run.summarize();
  s.conversations.turns_not_sent = source.turns_not_sent();
  const RunSummary ps = prefill.collector->summarize(), ds = decode.collector->summarize();
  double busy_p = 0, busy_d = 0, step_jp = 0, step_jd = 0;
  report.prefill = pool_report(prefill, ps, s.duration_s, &busy_p, &step_jp);
  report.decode = pool_report(decode, ds, s.duration_s, &busy_d, &step_jd);
  // An autoscaled pool: its GPU-hours held, and idle power only while its GPUs are held.
  auto close_scaling = [&](std::optional<ScaledPool>& sp, const ServingPool& pool, PoolReport& r, double busy_gpu_s,
                           double step_j) {
    if (!sp) return;
    r.autoscale = sp->scaler.finish(last_event);
    if (sp->planner) r.autoscale->sla = sp->planning;
    r.energy_j = held_energy_j(step_j, busy_gpu_s, r.autoscale->gpu_seconds, PowerModel::of(pool.setup.gpu).idle_watts);
  };
  close_scaling(scaled_p, prefill, report.prefill, busy_p, step_jp);
  close_scaling(scaled_d, decode, report.decode, busy_d, step_jd);
  report.decider_threshold = spec.decider_threshold;
  report.link_bandwidth = link.bandwidth;
  report.link_latency_s = link.latency_s;
  report.layerwise = link.layerwise;
  report.kv_bytes_per_token = kv_per_token;
  report.transfer_ms = transfer_ms.summarize();
  report.link_wait_ms = link_wait_ms.summarize();
  report.decode_wait_ms = decode_wait_ms.summarize();
  if (decode_caches) {
    report.decode_prefix_caching = true;
    for (const DecodeOnlyEngine* e : decoders) {
      report.decode_prompt_tokens += e->granted_prompt_tokens();
      report.decode_cached_tokens += e->hit_tokens();
      report.decode_evicted_blocks += e->prefix_cache()->cache().evictions();
    }
  }
  // The run's hardware figures are both pools': GPUs and energy added, per-GPU
  // ratios weighted by each pool's busy GPU-seconds; batch and KV figures are the
  // decode pool's (where sequences batch and KV accumulates), queue figures the
  // prefill pool's (where arrivals wait). Each pool's own are in the report.
  s.gpus = report.prefill.gpus + report.decode.gpus;
  const double busy = busy_p + busy_d;
  if (busy > 0) {
    s.mfu = (ps.mfu * busy_p + ds.mfu * busy_d) / busy;
    s.bandwidth_utilization = (ps.bandwidth_utilization * busy_p + ds.bandwidth_utilization * busy_d) / busy;
    for (int i = 0; i < kBoundCount; ++i) s.bound_share[i] = (ps.bound_share[i] * busy_p + ds.bound_share[i] * busy_d) / busy;
    s.busy_power_w_per_gpu = (step_jp + step_jd) / busy;
  }
  s.busy_fraction = s.duration_s > 0 ? busy / (s.duration_s * s.gpus) : 0.0;
  s.batch_size_mean = ds.batch_size_mean;
  s.batch_size_max = ds.batch_size_max;
  s.kv_utilization_mean = ds.kv_utilization_mean;
  s.kv_utilization_max = ds.kv_utilization_max;
  s.queue_length_mean = ps.queue_length_mean;
  s.queue_length_max = ps.queue_length_max;
  s.steps = ps.steps + ds.steps;
  set_energy(s, report.prefill.energy_j + report.decode.energy_j);
  add_carbon(s, sc.grid_g_per_kwh);
  s.disaggregation = report;
  if (gateway) {
    s.gateway = gateway->flow_control();
    const std::vector<GatewayClassReport> held = gateway->report();
    for (std::size_t c = 0; c < held.size() && c < s.classes.size(); ++c) s.classes[c].gateway = held[c];
  }
  if (options.check_workload && s.completed == 0 && s.failed > 0) {
    const auto count = [&](FailureReason r) { return s.failures[static_cast<std::size_t>(r)]; };
    const std::int64_t too_long = count(FailureReason::too_long_for_max_model_len);
    const std::int64_t too_big = count(FailureReason::exceeds_kv_capacity);
    if (too_long + too_big == s.failed)
      throw Error(fmt::format("every request fails: {} of {} are longer than engine.max_model_len = {} and {} need "
                              "more KV blocks than a prefill or decode instance has; nothing could be served",
                              too_long, s.failed, max_len, too_big));
  }
  const LoadReport measured = s.load;
  s.load = guard;
  s.load.queue_mid_ms = measured.queue_mid_ms;
  s.load.queue_last_ms = measured.queue_last_ms;
  s.load.queue_grows = measured.queue_grows;
  s.load.stages = measured.stages;
  s.load.by_stage = measured.by_stage;
  s.load.overloaded = measured.queue_grows || guard.guard_tripped;
  s.load.offered = offered;
  s.load.offered_rps =
      last_arrival > first_arrival ? static_cast<double>(offered) / to_seconds(last_arrival - first_arrival) : 0.0;
  if (s.load.offered != s.completed + s.failed)
    throw Error(fmt::format("internal: {} requests offered but {} completed and {} failed", s.load.offered,
                            s.completed, s.failed));
  // The timeline: both pools' steps in time order, decode instances numbered after the prefill ones.
  result.timeline = prefill.collector->timeline();
  for (TimelineRow row : decode.collector->timeline()) {
    row.replica += np;
    result.timeline.push_back(row);
  }
  std::stable_sort(result.timeline.begin(), result.timeline.end(),
                   [](const TimelineRow& a, const TimelineRow& b) { return a.time_s < b.time_s; });
  return result;
}

}  // namespace servesim
