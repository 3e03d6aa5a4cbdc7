#pragma once
// A serving engine for one replica. The simulator's event loop calls it; it
// decides what runs in each forward step and prices the step with the (pure)
// step-cost model. Engines never read a clock: `now` is passed in.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/sim_time.h"
#include "cost/memory_plan.h"
#include "cost/step_cost.h"
#include "metrics/run_observer.h"
#include "engine/engine_config.h"
#include "workload/lora_adapters.h"
#include "workload/patience.h"
#include "workload/request_classes.h"
#include "workload/request.h"
#include "workload/sampling.h"

namespace servesim {

class StepCostCache;    // engine/step_cost_cache.h
class BlockHashChains;  // engine/prefix_cache.h
class KvTierChain;      // engine/kv_tiers.h
class KvTierLevel;      // engine/kv_tiers.h
struct LoraCounts;      // engine/lora_slots.h

inline constexpr Nanos kNever = std::numeric_limits<Nanos>::max();

// Memory a Request holds while it waits in a queue of Requests (the decode-only
// engine's): the Request itself and its prefix-block hashes. The vLLM-style and
// static engines queue the compact form instead (queued_request.h).
inline std::int64_t queued_request_bytes(const Request& r) {
  return static_cast<std::int64_t>(sizeof(Request) + r.block_hashes.capacity() * sizeof(std::uint64_t));
}

// What the simulation's router and overload guard read from a replica, in one
// call: with many replicas each one's state is cold when its turn comes, so it is
// visited once for all four figures instead of through four virtual calls.
struct ReplicaLoad {
  std::int64_t outstanding = 0;   // Engine::outstanding()
  std::int64_t queued = 0;        // Engine::queued()
  std::int64_t queued_bytes = 0;  // Engine::queued_bytes()
  double kv_load = 0;             // Engine::kv_load()
};

// Protocol: the simulation calls start_step when can_start(now) holds, queues the
// step's end at the time it returns, and calls finish_step then. Engines run one
// step at a time, except a pipelined replica (pp > 1, pipeline_engine.cpp), which
// may start another step before the last one ends: next_start() tells when.
class Engine {
 public:
  virtual ~Engine() = default;
  // False when the request can never be served (longer than max_model_len or the
  // whole KV cache); it is then already reported to the observer as failed.
  virtual bool enqueue(Request r, Nanos now) = 0;
  virtual bool has_work() const = 0;
  // True when start_step may be called at `now` (work to schedule, room to run it).
  virtual bool can_start(Nanos now) const = 0;
  // The earliest later time at which can_start may turn true without any event
  // (a pipeline's first stage frees); kNever for engines that run one step at a time.
  virtual Nanos next_start() const { return kNever; }
  // Plans and starts the next step, or a fast-forwarded run of identical decode
  // steps whose last one starts before `horizon` (the next external event).
  // Returns the end time.
  virtual Nanos start_step(Nanos now, Nanos horizon) = 0;
  // Completes the oldest step in flight (steps end in the order they started);
  // finished (or failed) requests are appended to `done`.
  virtual void finish_step(Nanos now, std::vector<Request>& done) = 0;
  virtual std::int64_t outstanding() const = 0;  // waiting + running requests
  // Requests waiting that were never scheduled, and the bytes they hold (the
  // overload guard's measure: what grows without bound when arrivals outpace service).
  virtual std::int64_t queued() const = 0;
  virtual std::int64_t queued_bytes() const = 0;
  // Fails every never-scheduled waiting request with `why` (reported to the
  // observer) and hands each to `aborted` (one at a time: the queue may hold
  // millions, and a copy of it is what the guard is there to avoid); running and
  // preempted ones continue.
  virtual void abort_queued(Nanos now, FailureReason why, const std::function<void(const Request&)>& aborted) = 0;
  // Users who give up (workload.patience; engines without it never abandon).
  // abandon_due: every request whose user gave up by `now` without a first token
  // leaves (reported failed, reason abandoned) and is appended to `gone`; the
  // simulation calls it at next_deadline() and before each start_step.
  virtual void abandon_due(Nanos /*now*/, std::vector<Request>& /*gone*/) {}
  virtual Nanos next_deadline() { return kNever; }
  virtual double kv_load() const = 0;            // used / total KV blocks
  // The four figures above (engines whose state is spread override it to read them at once).
  virtual ReplicaLoad load() const { return ReplicaLoad{outstanding(), queued(), queued_bytes(), kv_load()}; }
  virtual std::int64_t kv_blocks_total() const = 0;
  // Its KV tiers (engine.kv_tiers), appended to `out`; shared tiers appear in
  // every replica's chain (kv_tiers.h). None by default.
  virtual void kv_tier_chains(std::vector<const KvTierChain*>& /*out*/) const {}
  // Multi-LoRA (workload.lora, engine/lora_slots.h): the adapters' loads and delays
  // so far (null without LoRA), and when adapter `a` was last used in one of this
  // replica's GPU slots (-1 when it is in none): what the lora_affinity router reads.
  virtual const LoraCounts* lora_counts() const { return nullptr; }
  virtual std::int64_t lora_last_use(std::int32_t /*a*/) const { return -1; }
  // A prompt's leading blocks this replica's GPU prefix cache holds now, and its
  // prompt's full blocks (the precise prefix scorer of the scored router reads it,
  // as llm-d's reads the engines' KV events). {0, 0}: no prefix caching.
  struct PrefixMatch {
    std::int64_t cached = 0, blocks = 0;
  };
  virtual PrefixMatch prefix_match(const Request& /*r*/) const { return {}; }
  // A replica whose fused run of decode steps can be cut short (interruptible()):
  // the simulation may then start its steps with no horizon and, when a request is
  // routed to it at `t`, call interrupt(t), which ends the run with the step that is
  // running at t, exactly as a run started with horizon t would have ended. True
  // when the step's end moved (step_end() says where).
  virtual bool interruptible() const { return false; }
  virtual bool interrupt(Nanos /*t*/) { return false; }
  virtual Nanos step_end() const { return kNever; }
};

struct EngineContext {
  const CostModel* cost = nullptr;
  const CostModel* draft_cost = nullptr;  // the speculative drafter (engine.speculative), else null
  EngineConfig config;
  MemoryPlan memory;
  std::int64_t kv_blocks = 0;  // per replica, after any override
  // The most blocks one request may take: its KV lives on one attention data-parallel
  // rank (parallelism.attention_dp), so a replica of D ranks holds D x this; 0: kv_blocks.
  std::int64_t max_request_blocks = 0;
  int replica = 0;
  RunObserver* observer = nullptr;
  const Patience* patience = nullptr;  // workload.patience: users who give up; null: none do
  // Fuse runs of identical decode steps and price decode-only steps from the
  // memoised cost cache (step_cost_cache.h); off: every step priced by the model.
  bool fast_forward = true;
  // With fast_forward: a step whose every prompt completes (and nothing else changes at
  // its end that the event loop would see) is followed in the same event by the decode
  // step or run after it (VllmEngine's chained head step); off: each is its own event.
  bool chain_prefill = true;
  // Step-cost tables of `cost` shared by the engines that price with it (identical
  // replicas of one run: one warm set instead of a cold set each; the tables are a
  // pure function of the model, so sharing changes no result). Null: each engine
  // tabulates its own.
  StepCostCache* step_costs = nullptr;
  // The memo of prompt block hashes (prefix caching) shared by the engines of one
  // run: every replica sees the same system prompts, so one memo serves them all
  // (its results do not depend on what it remembers). Null: each engine keeps its own.
  BlockHashChains* hash_chains = nullptr;
  // The run's shared KV tiers (engine.kv_tiers with shared: true), filled by the
  // first replica and reused by the others; null: every tier is per replica.
  std::vector<std::shared_ptr<KvTierLevel>>* shared_kv_tiers = nullptr;
  // One of a pipelined replica's virtual engines (pipeline_engine.cpp): never
  // fuses steps, reports inter-token gaps from step ends (other engines' steps
  // interleave with its own) and step records span its first-stage occupancy.
  bool virtual_engine = false;
  // Sequences per request (workload.sampling: parallel samples or beams; engine/sequence_group.h).
  SamplingSpec sampling;
  // Each request's LoRA adapter (workload.lora; workload/lora_adapters.h), with
  // config.lora the engine's slots; null: no adapters.
  const LoraAssignment* lora = nullptr;
  // Request classes whose priorities differ (workload.classes): running out of KV, the
  // engine preempts the lowest priority first (vLLM's priority scheduling); null: the
  // newest admitted, as without classes.
  const ClassAssignment* classes = nullptr;
};

std::unique_ptr<Engine> make_engine(const EngineContext& ctx);

}  // namespace servesim
