#pragma once
// What an engine reports while it runs. The engine never computes statistics;
// the collector behind this interface does.
#include <cstdint>

#include "core/sim_time.h"
#include "cost/step_cost.h"
#include "metrics/failure.h"
#include "workload/request.h"

namespace servesim {

struct RequestRecord {
  std::int64_t id = 0;
  int replica = 0;
  std::int32_t session = -1;       // Request::session: the multi-turn conversation or closed-loop user
  Nanos arrival = 0;
  Nanos first_scheduled = -1;
  Nanos first_token = -1;
  Nanos finish = -1;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;  // per sequence (each of a request's samples or beams generates them)
  std::int64_t sequences = 1;      // parallel samples or beams decoded (workload.sampling)
  std::int64_t cached_tokens = 0;  // prompt tokens served from the prefix cache
  std::int64_t offload_tokens = 0;  // prompt tokens reloaded from the CPU offload tier (not in cached_tokens)
  int preemptions = 0;
  int swaps = 0;                   // preemptions whose KV was swapped to CPU instead of recomputed
  bool failed = false;
  FailureReason failure = FailureReason::none;  // set with failed
  bool last_turn = false;          // Request::last_turn: its answer ends its session
  bool lora_delayed = false;       // passed over at least once for want of a LoRA slot (engine/lora_slots.h)
};

struct StepRecord {
  int replica = 0;
  Nanos start = 0;
  Nanos end = 0;
  std::int64_t steps = 1;            // >1 when identical decode steps were fast-forwarded
  std::int64_t batch_seqs = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t decode_tokens = 0;
  std::int64_t kv_blocks_used = 0;
  std::int64_t kv_blocks_total = 0;
  std::int64_t queue_length = 0;
  double gpu_time = 0;               // seconds of model execution (excluding CPU overhead)
  double flops = 0;                  // per GPU, all steps of the record
  double bytes = 0;
  std::array<double, kBoundCount> time_by_bound{};
  Bound bound = Bound::memory;       // dominant bound of the step
};

// The record of a request as it arrived (nothing served yet).
inline RequestRecord arrival_record(const Request& r, int replica) {
  RequestRecord rec;
  rec.id = r.id;
  rec.replica = replica;
  rec.arrival = r.arrival;
  rec.session = r.session;
  rec.input_tokens = r.input_tokens;
  rec.output_tokens = r.output_tokens;
  rec.last_turn = r.last_turn;
  return rec;
}

// The record of a request that failed at `now` without being served.
inline RequestRecord failed_record(const Request& r, int replica, FailureReason why, Nanos now) {
  RequestRecord rec = arrival_record(r, replica);
  rec.failed = true;
  rec.failure = why;
  rec.finish = now;
  return rec;
}

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_step(const StepRecord& s) = 0;
  // `count` inter-token gaps of `seconds` each (a decode step reports one gap per sequence).
  virtual void on_itl(double seconds, std::int64_t count) = 0;
  virtual void on_request_done(const RequestRecord& r) = 0;
};

}  // namespace servesim
