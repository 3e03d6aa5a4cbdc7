#pragma once
// The result of one simulation: what `servesim run --json` prints.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/autoscale_report.h"
#include "metrics/conversations.h"
#include "metrics/disaggregation_report.h"
#include "metrics/failure.h"
#include "metrics/fleet_pool_report.h"
#include "metrics/stage_queue_growth.h"
#include "metrics/stats.h"

namespace servesim {

struct SloResult {
  std::string metric, statistic;
  double limit_ms = 0, value_ms = 0;
  bool met = false;
  bool measured = true;  // false when no completed request gave the metric a value (value_ms means nothing)
};

// Offered load against what was served, and the waiting queue (run and summary.json).
struct LoadReport {
  std::int64_t offered = 0;      // requests that arrived (completed + failed)
  double offered_rps = 0;        // offered / arrival span (first to last arrival); 0 when it is 0
  // The saturation test (queue_growth.h) on completed requests, by arrival.
  double queue_mid_ms = 0, queue_last_ms = 0;
  bool queue_grows = false;
  // A multi_stage arrival process: the test on each stage's requests (stage_queue_growth.h);
  // queue_grows is its verdict when by_stage.tested > 0. stages 0: tested over the whole run.
  int stages = 0;
  StageGrowthVerdict by_stage;
  bool overloaded = false;       // the queue grows or the overload guard tripped
  std::int64_t queued_peak = 0;  // most never-scheduled requests waiting at once, all replicas
  double queued_peak_bytes = 0;  // the memory they held then
  // The queue memory guard (engine.max_queue_memory).
  double guard_bytes = 0;        // the limit
  bool guard_from_machine = false;  // sized from this machine's memory (not set in the scenario)
  bool guard_tripped = false;
  double guard_trip_s = 0;       // simulated time it tripped, from the first arrival
};

// One KV tier over the run (engine/kv_tiers.h counts; blocks of the replica's whole KV).
struct KvTierReport {
  std::string name;
  bool shared = false;
  std::int64_t capacity_blocks = 0;  // per replica, or in all when shared
  std::int64_t stored = 0, reloaded = 0, demoted = 0, expired = 0, transfers = 0;
  double transfer_s = 0;
};

// What replicas' adapters cost over a run (engine/lora_slots.h LoraCounts), summed.
struct LoraTally {
  std::int64_t admissions = 0;   // requests of an adapter joining a running set (a preempted one again)
  std::int64_t gpu_loads = 0;    // adapters copied host -> GPU slot (each an admission that missed the slots)
  std::int64_t disk_loads = 0;   // ... of which read from disk into host memory first
  double gpu_load_s = 0, disk_load_s = 0;  // seconds steps waited for those
  std::int64_t delayed_requests = 0;  // requests passed over at least once for want of a slot
  std::int64_t skips = 0;             // passings-over in all (a request may be passed over at many steps)
  // Admissions that found their adapter in a GPU slot, and loads that found it in host memory.
  double slot_hit_rate() const {
    return admissions > 0 ? 1.0 - static_cast<double>(gpu_loads) / static_cast<double>(admissions) : 0.0;
  }
  double host_hit_rate() const {
    return gpu_loads > 0 ? 1.0 - static_cast<double>(disk_loads) / static_cast<double>(gpu_loads) : 0.0;
  }
};

// One pool of a heterogeneous fleet (`pools:`) serving adapters: its replicas' slots,
// what one load takes on its GPUs, and its replicas' counts.
struct LoraPoolReport : LoraTally {
  std::string name, gpu;
  int replicas = 0, tp = 1;
  std::int64_t max_loras = 0, max_cpu_loras = 0;
  std::int64_t max_lora_rank = 0;    // its slots' rank (the pool's own, else engine.lora's)
  double adapter_bytes_per_gpu = 0;  // one adapter's shard on one GPU (what a host -> GPU copy moves)
  double slot_bytes_per_gpu = 0;     // its max_loras slots at max_lora_rank (out of its KV cache)
  double load_s = 0;                 // one adapter host -> GPU slot on this pool's GPUs
  double disk_read_s = 0;            // ... and before it, read from disk when not in host memory
};

// Multi-LoRA serving over the run (workload.lora with engine.lora; engine/lora_slots.h),
// summed over the replicas. A heterogeneous fleet reports each pool in `pools` (their
// tallies add up to this one's); the slot figures here are then unset (0): they are
// each pool's.
struct LoraReport : LoraTally {
  std::int64_t adapters = 0, rank = 0;
  std::string popularity;        // "zipf" or "uniform"
  double zipf_s = 0, share = 1;
  std::int64_t max_loras = 0, max_cpu_loras = 0, max_lora_rank = 0;
  double adapter_bytes = 0;      // one adapter, all of it (what a host holds and a disk read moves)
  double slot_bytes_per_gpu = 0;  // the GPU slots, max_loras of them at max_lora_rank (out of the KV cache)
  double load_s = 0, disk_read_s = 0;  // one adapter's load host -> GPU slot, and its disk read
  std::int64_t gpu_slots = 0;    // slots over the replicas (each replica's max_loras, summed)
  std::vector<LoraPoolReport> pools;
};

// Beam search run above the engine (engine.beam_search: above_engine; run/beam_loop.h):
// what the loop sent the engine for the run's requests.
struct BeamLoopReport {
  std::int64_t beams = 0;
  std::int64_t requests = 0;        // engine requests (1 + (output - 1) x beams per finished request)
  std::int64_t reprefilled = 0;     // prompt tokens those after each request's first computed again
  std::int64_t cached = 0;          // ... and served from the prefix cache
  double request_cpu_s = 0;         // front-end CPU time per engine request (the loop's own work)
  double frontend_busy_s = 0;       // the front end's CPU time in all (one Python thread)
  double frontend_share = 0;        // ... over the run's duration
  bool prefix_caching = false;
  // Busy this share of the run, the front end is the bottleneck: the load is unservable
  // (an open arrival process) or the run measures the front end's throughput (all at once).
  static constexpr double kSaturatedShare = 0.95;
  bool saturated() const { return frontend_share >= kSaturatedShare; }
};

// What the gateway did to one request class (run/gateway.h): requests it held
// while every replica was saturated, the most it held at once, and how long they waited.
struct GatewayClassReport {
  std::int64_t held = 0, held_peak = 0;
  double held_wait_max_ms = 0, held_wait_total_ms = 0;
};

// One request class over the run (workload.classes; metrics/class_metrics.h).
struct ClassReport {
  std::string name;
  int priority = 0;
  double share = 0;
  bool own_slo = false;  // its own slo; else the scenario's
  std::int64_t completed = 0, failed = 0, output_tokens = 0;
  FailureCounts failures{};
  Distribution ttft_ms, tpot_ms, e2e_ms, queue_ms;
  std::vector<SloResult> slo;
  bool slo_set = false;  // some limit or attainment applies to it
  bool slo_met = false;
  double slo_attainment = 0, goodput_rps = 0;
  GatewayClassReport gateway;
};

struct RunSummary {
  std::int64_t completed = 0;
  std::int64_t failed = 0;
  FailureCounts failures{};  // failed requests by reason (failure.h)
  std::int64_t preemptions = 0;
  std::int64_t preempted_requests = 0;
  double duration_s = 0;  // first arrival to last completion
  double requests_per_s = 0, input_tokens_per_s = 0, output_tokens_per_s = 0, total_tokens_per_s = 0;
  int gpus = 1;
  std::int64_t input_tokens = 0, output_tokens = 0, cached_tokens = 0;  // output: every sample's / beam's
  // The most sequences a completed request decoded (workload.sampling: n or
  // beam_width); above 1 the summary says its output tokens count all of them.
  std::int64_t sequences_max = 1;
  // Per request (completed only), milliseconds.
  Distribution ttft_ms, tpot_ms, itl_ms, e2e_ms, queue_ms;
  // SLOs.
  std::vector<SloResult> slo;
  // Not met when any request failed or none completed: a verdict over the served
  // requests alone would hide the ones that were not.
  bool slo_met = true;
  double slo_attainment = 1.0;  // share of offered requests (completed + failed) meeting every per-request limit
  double goodput_rps = 0;       // such requests per second
  // Engine and GPU utilisation (time-weighted over the busy period).
  double mfu = 0;                   // model FLOP/s over peak, while busy
  double bandwidth_utilization = 0; // HBM bytes/s over peak, while busy
  double busy_fraction = 0;         // share of wall time some step was running (per replica, averaged)
  // Energy (hardware/power_model.h): each step at the board power of its compute and
  // memory-bandwidth utilisation, the time between steps at idle power; all GPUs,
  // over duration_s. Zero when the collector was given no power model.
  double energy_j = 0;
  double power_w_per_gpu = 0;        // average board power per GPU over duration_s
  double busy_power_w_per_gpu = 0;   // average per GPU while a step runs
  double joules_per_output_token = 0;
  double joules_per_request = 0;     // per completed request
  double kv_utilization_mean = 0, kv_utilization_max = 0;
  double batch_size_mean = 0;
  std::int64_t batch_size_max = 0;
  double queue_length_mean = 0;
  std::int64_t queue_length_max = 0;
  std::int64_t steps = 0;
  double bound_share[4] = {0, 0, 0, 0};  // compute, memory, communication, overhead
  double prefix_hit_rate = 0;           // cached prompt tokens / prompt tokens
  // CPU KV offload tier (engine.cpu_offload): prompt tokens reloaded from host
  // memory instead of recomputed, and preemptions swapped out instead of recomputed.
  std::int64_t offload_tokens = 0;
  std::int64_t swapped_preemptions = 0;
  // KV tiers (engine.kv_tiers), in order: what each did over the run, summed over
  // the replicas (a shared tier counted once).
  std::vector<KvTierReport> kv_tiers;
  std::optional<LoraReport> lora;  // set only with workload.lora
  std::optional<BeamLoopReport> beam_loop;  // set only for beam search above the engine
  // Request classes (workload.classes), in their order; empty without.
  std::vector<ClassReport> classes;
  bool gateway = false;  // flow control ran (the scenario's gateway section)
  // An autoscaled fleet (the scenario's autoscale section); unset: a fixed fleet.
  std::optional<AutoscaleReport> autoscale;
  LoadReport load;
  // Users who give up (workload.patience): reported when it is set. Abandoned
  // requests are failures (failures[abandoned]); this is how long they waited.
  bool patience = false;
  Distribution abandoned_wait_ms;
  std::int64_t abandoned_after_start = 0;  // of them, scheduled before giving up: their prefill work was wasted
  ConversationSummary conversations;  // multi_turn.conversation_metrics
  // Carbon (energy.grid_intensity): grams of CO2 for the run's energy; 0 when unset.
  double grid_g_per_kwh = 0;
  double carbon_g = 0, carbon_g_per_output_token = 0, carbon_g_per_request = 0;
  // Prefill/decode disaggregation (the scenario's `disaggregation:`): the pools and transfers; unset when co-located.
  std::optional<DisaggregationReport> disaggregation;
  // A heterogeneous fleet (the scenario's `pools:`), in its order; empty otherwise.
  std::vector<FleetPoolReport> pools;
};

}  // namespace servesim
