#include "run/class_admission.h"

#include <algorithm>
#include <vector>

namespace servesim {

void set_up_classes(const Scenario& sc, Collector& collector, std::optional<ClassAssignment>& classes,
                    std::optional<Gateway>& gateway) {
  if (!sc.workload.classes.empty()) classes.emplace(sc.workload.classes, sc.workload.seed);
  else if (sc.gateway) classes.emplace(std::vector<RequestClassSpec>{RequestClassSpec{.name = "all", .share = 1.0}},
                                       sc.workload.seed);
  if (!classes) return;
  collector.set_classes(*classes, sc.class_slos);
  const bool limited = std::any_of(classes->specs().begin(), classes->specs().end(),
                                   [](const RequestClassSpec& c) { return c.rate_limit > 0; });
  if (sc.gateway || limited) gateway.emplace(*classes, sc.gateway);
}

}  // namespace servesim
