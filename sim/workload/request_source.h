#pragma once
// What the engine pulls requests from. Sources are streaming: they produce one
// request at a time, so a run's memory does not grow with its request count.
#include <cstdint>
#include <optional>

#include "core/sim_time.h"
#include "workload/request.h"

namespace servesim {

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  // The next request in arrival order if its arrival time is already determined,
  // else nullopt (closed loop: no user is ready until a completion is reported;
  // or the source is exhausted). Arrival times never decrease from one call to
  // the next, provided completions are reported in time order.
  virtual std::optional<Request> next() = 0;
  // Reports a completion (closed loop schedules that user's next request at
  // completion_time + think time). Open-loop sources ignore it.
  virtual void on_complete(const Request& r, Nanos completion_time) {}
  // No more requests will ever come (whatever completions are still reported).
  virtual bool exhausted() const = 0;
  // Total requests the source will produce, or -1 if not known in advance.
  virtual std::int64_t expected_total() const = 0;
};

}  // namespace servesim
