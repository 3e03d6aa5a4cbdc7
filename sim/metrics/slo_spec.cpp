#include "metrics/slo_spec.h"

namespace servesim {

const std::vector<std::string>& slo_metric_names() {
  static const std::vector<std::string> n = {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"};
  return n;
}
const std::vector<std::string>& slo_statistic_names() {
  static const std::vector<std::string> n = {"mean", "p50", "p90", "p95", "p99"};
  return n;
}

}  // namespace servesim
