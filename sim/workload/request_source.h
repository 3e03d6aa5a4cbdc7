#pragma once
// What the engine pulls requests from. Sources are streaming: they produce one
// request at a time, so a run's memory does not grow with its request count.
#include <cstdint>
#include <optional>

#include "core/sim_time.h"
#include "workload/request.h"
#include "workload/session_stats.h"

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
  // Reports that r's user gave up before its first token (workload.patience).
  // By default as a completion (closed loop: the user comes back after its think
  // time); a multi-turn source also ends the conversation: its later turns are
  // never sent.
  virtual void on_abandon(const Request& r, Nanos time) { on_complete(r, time); }
  // True for a request next() handed out that will not be sent after all: a
  // later turn of a conversation whose user gave up after it was generated. The
  // simulation asks once, at the request's arrival; it is then not offered (and
  // counted in turns_not_sent).
  virtual bool withdrawn(const Request& /*r*/) { return false; }
  // Turns never sent because an earlier turn of their conversation was abandoned
  // (withdrawn ones included).
  virtual std::int64_t turns_not_sent() const { return 0; }
  // Reports that r failed without being served (longer than the engine allows,
  // larger than the KV cache): by default as a completion; the closed-loop
  // session workload ends the session (its later turns would only be longer).
  virtual void on_failed(const Request& r, Nanos time) { on_complete(r, time); }
  // Sources whose next request may become due earlier than one already handed
  // out (closed-loop sessions with random think and tool times: a completion
  // schedules a turn before the pending one). For them the simulation, after
  // reporting completions, compares earliest() with the request it holds and, when
  // earlier, gives that one back (put_back: the source hands it out again later,
  // with the next id then) and asks again, so requests still reach the engines in
  // arrival order.
  virtual bool may_reorder() const { return false; }
  virtual std::optional<Nanos> earliest() const { return std::nullopt; }
  virtual void put_back(Request&& /*r*/) {}
  // Per-session counts of the closed-loop session workload (null for other sources).
  virtual const SessionStats* session_stats() const { return nullptr; }
  // No more requests will ever come (whatever completions are still reported).
  virtual bool exhausted() const = 0;
  // Total requests the source will produce, or -1 if not known in advance.
  virtual std::int64_t expected_total() const = 0;
};

}  // namespace servesim
