#pragma once
// Per request class (workload.classes, workload/request_classes.h): what each class
// was offered and served, its latencies, and its own SLO verdict and goodput. The
// collector feeds it every finished request (collector.h: set_classes).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/request_result.h"
#include "metrics/run_summary.h"
#include "metrics/sample_set.h"
#include "metrics/slo_check.h"
#include "workload/request_classes.h"

namespace servesim {

class ClassMetrics {
 public:
  // `own`: each class's own SLO (unset, or missing past its end: `fallback`, the scenario's).
  ClassMetrics(const ClassAssignment& classes, const std::vector<std::optional<SloSpec>>& own, const SloSpec& fallback,
               std::size_t exact_cap);
  void add(const RequestRecord& r);
  // The class `r` is in (its name).
  const std::string& name_of(const RequestRecord& r) const {
    return classes_.specs()[static_cast<std::size_t>(classes_.of(r.id, r.session))].name;
  }
  // The reports, in the classes' order; `duration_s`: the run's (goodput per second).
  std::vector<ClassReport> summarize(double duration_s);

 private:
  struct PerClass {
    SloSpec slo;
    bool own_slo;
    PerRequestLimits limits;
    SampleSet ttft, tpot, e2e, queue;
    std::int64_t completed = 0, failed = 0, good = 0, output_tokens = 0;
    FailureCounts failures{};
  };
  const ClassAssignment& classes_;
  std::vector<PerClass> per_;
};

}  // namespace servesim
