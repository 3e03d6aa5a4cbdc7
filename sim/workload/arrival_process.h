#pragma once
// When requests reach the server. Rates are requests per second; times are
// seconds from the start of the run (Nanos once handed to the engine).
//
// Open-loop processes are renewal processes started at their stage's start:
// the first arrival comes one gap after the start (so a constant process at rate
// r puts its arrivals at 1/r, 2/r, ...; a duration-D stage of it holds exactly
// r*D arrivals, the last one at its end).
//
// YAML (read by config/read_arrival.cpp; `process` names the kind and only
// that kind's keys are accepted):
//   {process: poisson, rate: 8}                  exponential gaps, mean 1/rate
//   {process: gamma, rate: 8, cv: 2}             gamma gaps, mean 1/rate, CV cv
//   {process: constant, rate: 8}                 gaps of exactly 1/rate
//   {process: all_at_once}                       every request at t = 0
//   {process: closed_loop, users: 16, think_time: "2 s"}
//   {process: multi_stage, stages: [{process: poisson, rate: 2, duration: "600 s"},
//                                   {process: gamma, rate: 8, cv: 3, requests: 500}]}
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/sim_time.h"

namespace servesim {

enum class ArrivalKind { poisson, gamma, constant, all_at_once, closed_loop, multi_stage };

// One renewal segment: poisson, gamma or constant gaps at `rate`, lasting
// `duration_s` seconds or `requests` arrivals (neither: it never ends).
struct ArrivalStage {
  ArrivalKind process = ArrivalKind::poisson;
  double rate = 0.0;                  // requests per second, > 0
  double cv = 1.0;                    // gamma: gap stddev / gap mean, > 0
  std::optional<double> duration_s;   // seconds, > 0
  std::int64_t requests = -1;         // >= 1, or -1 when bounded by duration (or unbounded)
};

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::poisson;
  double rate = 0.0;                  // poisson, gamma, constant: requests per second
  double cv = 1.0;                    // gamma
  std::int64_t users = 0;             // closed_loop: concurrent users, >= 1
  double think_time_s = 0.0;          // closed_loop: seconds from a completion to the next send
  std::vector<ArrivalStage> stages;   // multi_stage, back to back
};

// The arrival processes by name: the `process` values the reader accepts, the
// names reports print and the descriptions `servesim list` and `describe` show.
struct ArrivalProcessInfo {
  std::string_view name;
  ArrivalKind kind;
  bool stage_ok;          // may be a stage of multi_stage
  std::string_view keys;  // the keys it reads, as `servesim list` shows them: "rate, cv"
  std::string_view doc;   // one line: what the gaps are
};
std::span<const ArrivalProcessInfo> arrival_processes();
std::string_view arrival_kind_name(ArrivalKind kind);

// True when the process stops by itself (multi_stage); the others run until
// the workload's `requests` or `duration` cap.
bool arrival_ends(const ArrivalSpec& spec);

// Arrivals the process produces by itself when that count is fixed (multi_stage
// made only of count stages: their sum), else -1.
std::int64_t arrival_count(const ArrivalSpec& spec);

// The arrival windows of a multi_stage process whose every stage has a duration: each
// stage's start (seconds from the first arrival window, 0 first) and the last one's end. False
// (nothing written) for any other process, or when a stage is bounded by a request count
// (where it ends is known only once its last request arrives).
bool stage_windows(const ArrivalSpec& spec, std::vector<double>* starts, double* end_s);

// e.g. "poisson(rate=8/s)", for reports.
std::string describe_arrival(const ArrivalSpec& spec);

// (name, one-line description) of every `process`, for `servesim list`.
std::vector<std::pair<std::string, std::string>> arrival_process_registry();

// Lazily generates the arrival times of an open-loop process (every kind but
// closed_loop, which depends on completions and lives in SyntheticSource).
// Memory is O(number of stages), whatever the number of arrivals.
class OpenLoopArrivals {
 public:
  // Precondition: spec.kind != closed_loop.
  explicit OpenLoopArrivals(const ArrivalSpec& spec);
  // The next arrival time (non-decreasing), or nullopt once the schedule has ended.
  // Inline for the plain Poisson process (one unbounded stage: every arrival is
  // the last plus an exponential gap, as next_staged computes it).
  std::optional<Nanos> next(RandomStream& rng) {
    if (poisson_rate_ > 0.0) {
      const double t = last_s_ + rng.exponential(poisson_rate_);
      last_s_ = t;
      ++in_stage_;
      return to_nanos(t);
    }
    return next_staged(rng);
  }

 private:
  std::optional<Nanos> next_staged(RandomStream& rng);
  double gap(const ArrivalStage& stage, RandomStream& rng) const;
  bool all_at_once_ = false;
  double poisson_rate_ = 0.0;  // > 0: a single Poisson stage with neither bound
  std::vector<ArrivalStage> stages_;
  std::size_t stage_ = 0;
  double stage_start_s_ = 0.0;
  double last_s_ = 0.0;               // last arrival (or the stage start before its first)
  std::int64_t in_stage_ = 0;         // arrivals so far in the current stage
};

}  // namespace servesim
