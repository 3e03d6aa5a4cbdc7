#pragma once
// The gateway in front of a fleet (request classes, workload/request_classes.h; flow
// control, scenario/gateway_spec.h): what happens to a request between its arrival and
// the router.
//  1. Rate limit: each class with rate_limit has a token bucket of `burst` requests,
//     refilled at rate_limit per second; a request finding it empty fails at once
//     (rate_limited), as an API gateway's 429 does.
//  2. Flow control (the scenario's `gateway:` section): when every serving replica is
//     saturated (queue or KV at its threshold) a request is not sent on. A sheddable
//     one (priority < 0) fails at once (shed); any other waits at the gateway in its
//     priority's band, or fails (gateway_queue_full) when its class already holds
//     max_queue. At each step's end and when a replica starts serving, the held
//     requests go on while some replica is not saturated, the highest priority first
//     and in arrival order within a priority.
// The time a request waits at the gateway is part of its queue time and TTFT (both
// count from its arrival).
#include <cstdint>
#include <deque>
#include <map>
#include <limits>
#include <optional>
#include <queue>
#include <unordered_set>
#include <vector>

#include "core/sim_time.h"
#include "metrics/failure.h"
#include "metrics/run_summary.h"
#include "scenario/gateway_spec.h"
#include "workload/request.h"
#include "workload/patience.h"
#include "workload/request_classes.h"

namespace servesim {

class Gateway {
 public:
  Gateway(const ClassAssignment& classes, std::optional<GatewaySpec> flow);

  // Whether flow control runs (the scenario has a `gateway:` section).
  bool flow_control() const { return flow_.has_value(); }
  const GatewaySpec& flow() const { return *flow_; }

  // What becomes of request `r` arriving at `now` (`saturated`: whether every serving
  // replica is; read only with flow control): none to send it on now, else the
  // reason it fails. Held requests are kept by hold().
  enum class Verdict { send, hold, fail };
  struct Decision {
    Verdict verdict = Verdict::send;
    FailureReason why = FailureReason::none;
  };
  Decision admit(const Request& r, Nanos now, bool saturated);
  void hold(Request&& r, Nanos now);
  bool holding() const { return held_ > 0; }
  std::int64_t held() const { return held_; }
  // The next request to send on: the highest priority band's oldest.
  Request release(Nanos now);

  // Users who give up (workload.patience) while the gateway holds their request: with
  // `patience` set, each held request's deadline (arrival + patience) is kept, and
  // give_up_due() takes out every held request whose deadline has come. Null: none do.
  void set_patience(const Patience* patience) { patience_ = patience; }
  // The earliest deadline of a request still held; the largest Nanos (engine.h's kNever) when none.
  Nanos next_deadline();
  // Takes out the held requests whose deadline is at or before `now` (appended to
  // `gone`, earliest deadline first): they stop counting towards flow control and
  // max_queue at once. The deadline event queued for `now`, if any, has fired.
  void give_up_due(Nanos now, std::vector<Request>& gone);
  // When to queue the gateway's next deadline event (one at a time, at the earliest held
  // deadline): none without patience, with nothing held, or while one already queued
  // comes by then. The loop that queues it calls give_up_due when it fires.
  std::optional<Nanos> deadline_event(Nanos now);

  // Per class: what the gateway did, in the classes' order.
  std::vector<GatewayClassReport> report() const { return counts_; }

 private:
  const ClassAssignment& classes_;
  std::optional<GatewaySpec> flow_;
  struct Bucket {
    double tokens = 0;
    Nanos at = 0;  // when `tokens` was last brought up to date
  };
  std::vector<Bucket> buckets_;
  std::vector<std::int64_t> held_by_class_;
  std::vector<GatewayClassReport> counts_;
  // Held requests by priority, the highest first; each band in arrival order, with
  // the time each started waiting.
  std::map<int, std::deque<std::pair<Request, Nanos>>, std::greater<int>> bands_;
  std::int64_t held_ = 0;
  const Patience* patience_ = nullptr;
  Nanos event_at_ = std::numeric_limits<Nanos>::max();  // the deadline event queued; max: none
  // (deadline, request id) of held requests, earliest first; entries of requests no
  // longer held (released, or already given up) are dropped when they surface.
  std::priority_queue<std::pair<Nanos, std::int64_t>, std::vector<std::pair<Nanos, std::int64_t>>,
                      std::greater<>>
      deadlines_;
  std::unordered_set<std::int64_t> held_ids_;  // with patience: the ids held now
  void drop_stale_deadlines();
  void count_release(const Request& r, Nanos since, Nanos now);
};

}  // namespace servesim
