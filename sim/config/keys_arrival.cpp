// The keys of `workload.arrival` and of each multi_stage stage (read by
// config/read_arrival.cpp). The process names and their one-line descriptions
// come from the process table itself (workload/arrival_process.h).
#include "config/workload_keys.h"
#include "config/workload_limits.h"
#include "workload/arrival_process.h"

namespace servesim {
namespace {

std::vector<std::string_view> process_names(bool stages_only) {
  std::vector<std::string_view> out;
  for (const auto& p : arrival_processes())
    if (p.stage_ok || !stages_only) out.push_back(p.name);
  return out;
}

std::string_view process_doc(ArrivalKind kind) {
  for (const auto& p : arrival_processes())
    if (p.kind == kind) return p.doc;
  return {};
}

}  // namespace

namespace arrival_keys {

const Key process{.name = "process",
                  .type = KeyType::choice,
                  .doc = "the arrival process; it selects the keys read beside it",
                  .spec = "ArrivalSpec::kind",
                  .required = true,
                  .choices = process_names(/*stages_only=*/false)};
const Key rate{.name = "rate",
               .type = KeyType::number,
               .doc = "mean arrival rate",
               .spec = "ArrivalSpec::rate (a stage: ArrivalStage::rate)",
               .unit = "requests/s",
               .required = true,
               .min = kMinArrivalRate,
               .max = kMaxArrivalRate,
               .why = "requests per second: a slower rate has a mean gap beyond the 1e7 s longest duration, a "
                      "faster one gaps below the clock's 1 ns tick"};
const Key cv{.name = "cv",
             .type = KeyType::number,
             .doc = "coefficient of variation of the gaps (1: as poisson; > 1: bursty)",
             .spec = "ArrivalSpec::cv (a stage: ArrivalStage::cv)",
             .required = true,
             .min = kMinGammaCv,
             .max = kMaxGammaCv,
             .why = "the gamma gaps' shape 1/cv^2 and scale leave double range outside it"};
const Key users{.name = "users",
                .type = KeyType::integer,
                .doc = "concurrent users, each sending its next request think_time after its last completes",
                .spec = "ArrivalSpec::users",
                .unit = "users",
                .required = true,
                .min = 1,
                .max = static_cast<double>(kMaxClosedLoopUsers),
                .why = "one queued entry per user from t = 0; far more users than any engine batches"};
const Key think_time{.name = "think_time",
                     .type = KeyType::quantity,
                     .doc = "time from a completion to the same user's next request (and between a session's "
                            "turns)",
                     .spec = "ArrivalSpec::think_time_s",
                     .dimension = Dimension::time,
                     .default_number = 0,
                     .min = 0,
                     .max = kMaxDurationSeconds};
const Key stages{.name = "stages",
                 .type = KeyType::list,
                 .doc = "the stages, back to back (see workload.arrival.stages)",
                 .spec = "ArrivalSpec::stages",
                 .required = true,
                 .item = "stage mapping {process, rate, cv?, duration | requests}"};

const Key stage_process{.name = "process",
                        .type = KeyType::choice,
                        .doc = "the stage's arrival process; it selects the keys read beside it",
                        .spec = "ArrivalStage::process",
                        .required = true,
                        .choices = process_names(/*stages_only=*/true)};
const Key stage_duration{.name = "duration",
                         .type = KeyType::quantity,
                         .doc = "the stage lasts this long (exactly one of duration and requests)",
                         .spec = "ArrivalStage::duration_s",
                         .dimension = Dimension::time,
                         .default_note = "none: the stage ends after `requests`",
                         .min = 1e-9,
                         .max = kMaxDurationSeconds,
                         .why = "at least the clock's 1 ns tick"};
const Key stage_requests{.name = "requests",
                         .type = KeyType::integer,
                         .doc = "the stage ends after this many arrivals (exactly one of duration and requests)",
                         .spec = "ArrivalStage::requests",
                         .unit = "requests",
                         .default_note = "none: the stage ends after `duration`",
                         .min = 1,
                         .max = static_cast<double>(kMaxRequests),
                         .why = "about 20 minutes of simulation at 1M requests/s"};

}  // namespace arrival_keys

std::vector<const KeySection*> arrival_key_sections() {
  using namespace arrival_keys;
  using K = ArrivalKind;
  auto variant = [](std::string_view path, std::string_view name, K kind, std::vector<const Key*> keys) {
    return KeySection{.path = path, .doc = process_doc(kind), .selector = "process", .variant = name, .keys = keys};
  };
  static const std::vector<KeySection> sections = {
      {.path = "workload.arrival", .doc = "when requests reach the server", .keys = {&process}},
      variant("workload.arrival", "poisson", K::poisson, {&rate}),
      variant("workload.arrival", "gamma", K::gamma, {&rate, &cv}),
      variant("workload.arrival", "constant", K::constant, {&rate}),
      variant("workload.arrival", "all_at_once", K::all_at_once, {}),
      variant("workload.arrival", "closed_loop", K::closed_loop, {&users, &think_time}),
      variant("workload.arrival", "multi_stage", K::multi_stage, {&stages}),
      {.path = "workload.arrival.stages",
       .doc = "one stage of a multi_stage arrival: a renewal process for a duration or a number of requests",
       .keys = {&stage_process, &stage_duration, &stage_requests}},
      variant("workload.arrival.stages", "poisson", K::poisson, {&rate}),
      variant("workload.arrival.stages", "gamma", K::gamma, {&rate, &cv}),
      variant("workload.arrival.stages", "constant", K::constant, {&rate}),
  };
  std::vector<const KeySection*> out;
  for (const auto& s : sections) out.push_back(&s);
  return out;
}

}  // namespace servesim
