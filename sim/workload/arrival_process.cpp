#include "workload/arrival_process.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "util/error.h"
#include "util/text.h"
#include "util/units.h"

namespace servesim {

namespace {

struct ProcessEntry {
  const char* name;
  ArrivalKind kind;
  bool stage_ok;  // may appear as a multi_stage stage
  const char* description;
};

constexpr ProcessEntry kProcesses[] = {
    {"poisson", ArrivalKind::poisson, true, "{rate}: exponential gaps with mean 1/rate (requests/s)"},
    {"gamma", ArrivalKind::gamma, true,
     "{rate, cv}: gamma gaps with mean 1/rate and coefficient of variation cv (cv > 1: bursty)"},
    {"constant", ArrivalKind::constant, true, "{rate}: evenly spaced, gaps of exactly 1/rate"},
    {"all_at_once", ArrivalKind::all_at_once, false, "{}: every request arrives at t = 0 (offline batch)"},
    {"closed_loop", ArrivalKind::closed_loop, false,
     "{users, think_time}: each user sends, waits for completion, thinks, sends again"},
    {"multi_stage", ArrivalKind::multi_stage, false,
     "{stages: [{process, rate, cv?, duration | requests}]}: poisson/gamma/constant stages back to back"},
};

const ProcessEntry& lookup(ConfigMap& m, bool in_stage) {
  const std::string name = m.string("process");
  std::vector<std::string> valid;
  for (const auto& e : kProcesses) {
    if (in_stage && !e.stage_ok) continue;
    if (name == e.name) return e;
    valid.emplace_back(e.name);
  }
  const bool misplaced = std::any_of(std::begin(kProcesses), std::end(kProcesses),
                                     [&](const ProcessEntry& e) { return name == e.name; });
  if (misplaced)
    throw Error(fmt::format("{}: '{}' cannot be a stage of multi_stage (valid here: {})", m.where("process"),
                            name, join(valid)));
  throw Error(fmt::format("{}: unknown arrival process '{}'{} (valid{}: {})", m.where("process"), name,
                          did_you_mean(name, valid), in_stage ? " in a stage" : "", join(valid)));
}

const char* kind_name(ArrivalKind kind) {
  for (const auto& e : kProcesses)
    if (e.kind == kind) return e.name;
  return "?";
}

// rate (and cv for gamma) of a poisson/gamma/constant process.
void parse_renewal(ConfigMap& m, ArrivalKind kind, double& rate, double& cv) {
  rate = m.number("rate");
  if (!(rate > 0.0))
    throw Error(fmt::format("{}: rate must be > 0 requests per second, got {}", m.where("rate"), rate));
  if (kind == ArrivalKind::gamma) {
    cv = m.number("cv");
    if (!(cv > 0.0)) throw Error(fmt::format("{}: cv must be > 0, got {}", m.where("cv"), cv));
    // The gaps are Gamma(shape 1/cv^2, scale cv^2/rate): outside this range the shape
    // or the scale leaves double range (1e200 squares to inf, 1e-200 to 0).
    constexpr double kMinCv = 1e-6, kMaxCv = 1e6;
    if (!(cv >= kMinCv && cv <= kMaxCv))
      throw Error(fmt::format("{}: cv must be between {:g} and {:g}, got {:g}", m.where("cv"), kMinCv, kMaxCv, cv));
    const double shape = 1.0 / (cv * cv), scale = 1.0 / (rate * shape);
    if (!std::isnormal(scale))
      throw Error(fmt::format("{}: rate {:g} with cv {:g} gives gamma gaps of scale {:g}, out of range; "
                              "use a smaller rate or cv", m.where("cv"), rate, cv, scale));
  }
}

ArrivalStage parse_stage(ConfigMap& m) {
  ArrivalStage st;
  st.process = lookup(m, /*in_stage=*/true).kind;
  parse_renewal(m, st.process, st.rate, st.cv);
  const bool has_duration = m.has("duration");
  const bool has_requests = m.has("requests");
  if (has_duration == has_requests)
    throw Error(fmt::format("{}: a stage needs exactly one of 'duration' (e.g. \"600 s\") or 'requests'",
                            m.where()));
  if (has_duration) {
    st.duration_s = m.quantity("duration", Dimension::time);
    if (!(*st.duration_s > 0.0))
      throw Error(fmt::format("{}: stage duration must be > 0", m.where("duration")));
  } else {
    st.requests = m.integer("requests");
    if (st.requests < 1)
      throw Error(fmt::format("{}: stage requests must be >= 1, got {}", m.where("requests"), st.requests));
  }
  m.finish();
  return st;
}

}  // namespace

ArrivalSpec parse_arrival(ConfigMap& m) {
  ArrivalSpec spec;
  spec.kind = lookup(m, /*in_stage=*/false).kind;
  switch (spec.kind) {
    case ArrivalKind::poisson:
    case ArrivalKind::gamma:
    case ArrivalKind::constant:
      parse_renewal(m, spec.kind, spec.rate, spec.cv);
      break;
    case ArrivalKind::all_at_once:
      break;
    case ArrivalKind::closed_loop:
      spec.users = m.integer("users");
      if (spec.users < 1 || spec.users > std::numeric_limits<std::int32_t>::max())
        throw Error(fmt::format("{}: users must be >= 1, got {}", m.where("users"), spec.users));
      spec.think_time_s = m.quantity("think_time", Dimension::time, 0.0);
      if (!(spec.think_time_s >= 0.0))
        throw Error(fmt::format("{}: think_time must be >= 0", m.where("think_time")));
      break;
    case ArrivalKind::multi_stage: {
      const auto node = m.get("stages");
      if (!node || !node->is_sequence() || node->items().empty())
        throw Error(fmt::format("{}: multi_stage needs 'stages', a non-empty list of "
                                "{{process, rate, duration | requests}} mappings",
                                m.where("stages")));
      for (std::size_t i = 0; i < node->items().size(); ++i) {
        ConfigMap stage(node->items()[i], m.file(), fmt::format("{}[{}]", m.key_path("stages"), i));
        spec.stages.push_back(parse_stage(stage));
      }
      break;
    }
  }
  m.finish();
  return spec;
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
    return fmt::format("{}(rate={:g}/s)", kind_name(kind), rate);
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
  for (const auto& e : kProcesses) out.emplace_back(e.name, e.description);
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
  // parse_arrival guarantees these; a hand-built spec that breaks them would
  // otherwise turn into infinite or NaN times.
  for (const auto& st : stages_)
    if (!(st.rate > 0.0) || !(st.cv > 0.0)) throw std::logic_error("OpenLoopArrivals: rate and cv must be > 0");
}

double OpenLoopArrivals::gap(const ArrivalStage& st, RandomStream& rng) const {
  if (st.process == ArrivalKind::gamma) {
    // Gap mean = shape*scale = 1/rate and CV = 1/sqrt(shape) = cv.
    const double shape = 1.0 / (st.cv * st.cv);
    return rng.gamma(shape, 1.0 / (st.rate * shape));
  }
  return rng.exponential(st.rate);
}

std::optional<Nanos> OpenLoopArrivals::next(RandomStream& rng) {
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

}  // namespace servesim
