#include "workload/arrival_process.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <stdexcept>

#include "util/error.h"
#include "util/text.h"
#include "util/units.h"

namespace servesim {

namespace {

constexpr ArrivalProcessInfo kProcesses[] = {
    {"poisson", ArrivalKind::poisson, true, "rate", "exponential gaps with mean 1/rate (requests/s)"},
    {"gamma", ArrivalKind::gamma, true, "rate, cv",
     "gamma gaps with mean 1/rate and coefficient of variation cv (cv > 1: bursty)"},
    {"constant", ArrivalKind::constant, true, "rate", "evenly spaced, gaps of exactly 1/rate"},
    {"all_at_once", ArrivalKind::all_at_once, false, "", "every request arrives at t = 0 (offline batch)"},
    {"closed_loop", ArrivalKind::closed_loop, false, "users, think_time",
     "each user sends, waits for completion, thinks, sends again"},
    {"multi_stage", ArrivalKind::multi_stage, false, "stages: [{process, rate, cv?, duration | requests}]",
     "poisson/gamma/constant stages back to back"},
};

}  // namespace

std::span<const ArrivalProcessInfo> arrival_processes() { return kProcesses; }

std::string_view arrival_kind_name(ArrivalKind kind) {
  for (const auto& e : kProcesses)
    if (e.kind == kind) return e.name;
  return "?";
}

bool arrival_ends(const ArrivalSpec& spec) { return spec.kind == ArrivalKind::multi_stage; }

std::int64_t arrival_count(const ArrivalSpec& spec) {
  if (spec.kind != ArrivalKind::multi_stage) return -1;
  std::int64_t total = 0;
  for (const auto& st : spec.stages) {
    if (st.requests < 0) return -1;
    total += st.requests;
  }
  return total;
}

std::string describe_arrival(const ArrivalSpec& spec) {
  auto renewal = [](ArrivalKind kind, double rate, double cv) {
    if (kind == ArrivalKind::gamma) return fmt::format("gamma(rate={:g}/s, cv={:g})", rate, cv);
    return fmt::format("{}(rate={:g}/s)", arrival_kind_name(kind), rate);
  };
  switch (spec.kind) {
    case ArrivalKind::poisson:
    case ArrivalKind::gamma:
    case ArrivalKind::constant: return renewal(spec.kind, spec.rate, spec.cv);
    case ArrivalKind::all_at_once: return "all_at_once";
    case ArrivalKind::closed_loop:
      return fmt::format("closed_loop(users={}, think_time={})", spec.users, format_seconds(spec.think_time_s));
    case ArrivalKind::multi_stage: {
      std::vector<std::string> parts;
      for (const auto& st : spec.stages) {
        parts.push_back(renewal(st.process, st.rate, st.cv) +
                        (st.duration_s ? " for " + format_seconds(*st.duration_s)
                                       : fmt::format(" x {}", st.requests)));
      }
      return "multi_stage[" + join(parts, ", ") + "]";
    }
  }
  return "?";
}

std::vector<std::pair<std::string, std::string>> arrival_process_registry() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : kProcesses) out.emplace_back(std::string(e.name), fmt::format("{{{}}}: {}", e.keys, e.doc));
  return out;
}

OpenLoopArrivals::OpenLoopArrivals(const ArrivalSpec& spec) {
  switch (spec.kind) {
    case ArrivalKind::closed_loop:
      throw std::logic_error("OpenLoopArrivals: closed_loop arrivals depend on completions");
    case ArrivalKind::all_at_once: all_at_once_ = true; break;
    case ArrivalKind::multi_stage: stages_ = spec.stages; break;
    default: {
      // A single stage with neither bound: runs until the workload's cap.
      ArrivalStage st;
      st.process = spec.kind;
      st.rate = spec.rate;
      st.cv = spec.cv;
      stages_.push_back(st);
    }
  }
  // The reader (config/read_arrival.cpp) guarantees these; a hand-built spec that breaks them would
  // otherwise turn into infinite or NaN times.
  for (const auto& st : stages_)
    if (!(st.rate > 0.0) || !(st.cv > 0.0)) throw std::logic_error("OpenLoopArrivals: rate and cv must be > 0");
  if (!all_at_once_ && stages_.size() == 1 && stages_[0].process == ArrivalKind::poisson && stages_[0].requests < 0 &&
      !stages_[0].duration_s)
    poisson_rate_ = stages_[0].rate;
}

double OpenLoopArrivals::gap(const ArrivalStage& st, RandomStream& rng) const {
  if (st.process == ArrivalKind::gamma) {
    // Gap mean = shape*scale = 1/rate and CV = 1/sqrt(shape) = cv.
    const double shape = 1.0 / (st.cv * st.cv);
    return rng.gamma(shape, 1.0 / (st.rate * shape));
  }
  return rng.exponential(st.rate);
}

std::optional<Nanos> OpenLoopArrivals::next_staged(RandomStream& rng) {
  if (all_at_once_) return Nanos{0};
  while (stage_ < stages_.size()) {
    const ArrivalStage& st = stages_[stage_];
    if (st.requests >= 0 && in_stage_ >= st.requests) {
      // A count stage ends at its last arrival; the next stage starts there.
      stage_start_s_ = last_s_;
    } else {
      // Constant: computed from the stage start, not summed, so gaps do not drift.
      const double t = st.process == ArrivalKind::constant
                           ? stage_start_s_ + static_cast<double>(in_stage_ + 1) / st.rate
                           : last_s_ + gap(st, rng);
      // Compare in Nanos so that r*D arrivals of a constant stage all fit even when
      // k/r lands a rounding error past the end.
      if (!st.duration_s || to_nanos(t) <= to_nanos(stage_start_s_ + *st.duration_s)) {
        last_s_ = t;
        ++in_stage_;
        return to_nanos(t);
      }
      // A duration stage ends at its end time; the overshooting draw is dropped
      // (memoryless for poisson; gamma and constant restart their renewal).
      stage_start_s_ += *st.duration_s;
    }
    ++stage_;
    last_s_ = stage_start_s_;
    in_stage_ = 0;
  }
  return std::nullopt;
}

bool stage_windows(const ArrivalSpec& spec, std::vector<double>* starts, double* end_s) {
  if (spec.kind != ArrivalKind::multi_stage || spec.stages.size() < 2) return false;
  std::vector<double> at;
  double t = 0;
  for (const ArrivalStage& st : spec.stages) {
    if (!st.duration_s || st.requests >= 0) return false;
    at.push_back(t);
    t += *st.duration_s;
  }
  *starts = std::move(at);
  *end_s = t;
  return true;
}

}  // namespace servesim
