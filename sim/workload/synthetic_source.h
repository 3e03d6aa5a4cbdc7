#pragma once
// Synthetic requests from a WorkloadSpec, generated lazily one at a time.
//
// Request k (ids 0, 1, 2, ... in arrival order) takes its arrival from the
// "arrivals" stream, its prompt length from "input_tokens" and its output length
// from "output_tokens", each a RandomStream of spec.seed. Separate streams mean
// that changing the arrival process leaves the length sequence unchanged.
//
// Requests stop after spec.requests, when the arrival schedule ends, or at the
// first arrival later than spec.duration_s, whichever comes first.
//
// Closed loop: all users send at t = 0 (session = user index, in user order);
// each later request of a user arrives think_time after on_complete reports the
// previous one. Because the think time is constant and completions are reported
// in time order, next() still returns requests in non-decreasing arrival order.
// Memory: O(1) for open loop, O(users) for closed loop.
#include <cstdint>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "workload/arrival_process.h"
#include "workload/request_source.h"
#include "workload/workload_spec.h"

namespace servesim {

class SyntheticSource final : public RequestSource {
 public:
  explicit SyntheticSource(const WorkloadSpec& spec);

  std::optional<Request> next() override;
  void on_complete(const Request& r, Nanos completion_time) override;
  bool exhausted() const override;
  std::int64_t expected_total() const override;

 private:
  bool count_reached() const { return spec_.requests >= 0 && issued_ >= spec_.requests; }
  bool within_duration(Nanos t) const { return !duration_end_ || t <= *duration_end_; }
  std::optional<Nanos> pull_open_arrival();
  Request make_request(Nanos arrival, std::int32_t session);

  WorkloadSpec spec_;
  std::optional<Nanos> duration_end_;
  RandomStream arrivals_rng_;
  RandomStream input_rng_;
  RandomStream output_rng_;
  std::int64_t issued_ = 0;

  // Open loop: the arrival process and a one-arrival lookahead, so that
  // exhausted() is exact as soon as the last request has been handed out.
  std::optional<OpenLoopArrivals> open_;
  std::optional<Nanos> lookahead_;

  // Closed loop: users ready to send, earliest first (ties by user index).
  using Ready = std::pair<Nanos, std::int32_t>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready_;
  Nanos think_ = 0;
  std::int64_t users_alive_ = 0;  // users that may still send (ready or outstanding)
};

}  // namespace servesim
