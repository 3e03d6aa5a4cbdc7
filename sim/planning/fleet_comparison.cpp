#include "planning/fleet_comparison.h"

#include <fmt/format.h>

#include <algorithm>

#include "run/simulation.h"

namespace servesim::planning {
namespace {

FleetRun run_fleet(const Scenario& sc) {
  const RunSummary s = simulate(sc).summary;
  FleetRun f;
  f.max_replicas = sc.parallelism.replicas;
  f.completed = s.completed;
  f.failed = s.failed;
  f.slo_attainment = s.slo_attainment;
  f.slo_met = s.slo_met;
  f.ttft_p99_ms = s.ttft_ms.p99;
  f.tpot_p99_ms = s.tpot_ms.p99;
  f.duration_s = s.duration_s;
  if (s.autoscale) {
    f.mean_serving = s.autoscale->mean_serving;
    f.gpu_hours = s.autoscale->gpu_hours();
  } else {
    f.mean_serving = sc.parallelism.replicas;
    f.gpu_hours = sc.parallelism.total_gpus() * s.duration_s / 3600.0;
  }
  f.usd = f.gpu_hours * sc.gpu.price_per_hour;
  return f;
}

std::string run_text(const char* name, const FleetRun& f) {
  return fmt::format("  {:<10} {:>5.2f} of {} replicas serving on average, {:>9.2f} GPU-hours{}, SLO attainment {:.2f}%{} "
                     "(TTFT p99 {:.0f} ms, TPOT p99 {:.1f} ms){}\n",
                     name, f.mean_serving, f.max_replicas, f.gpu_hours,
                     f.usd > 0 ? fmt::format(" (${:.2f})", f.usd) : std::string(), 100 * f.slo_attainment,
                     f.slo_met ? "" : ", SLOs MISSED", f.ttft_p99_ms, f.tpot_p99_ms,
                     f.failed > 0 ? fmt::format(", {} failed", f.failed) : std::string());
}

nlohmann::ordered_json run_json(const FleetRun& f) {
  return {{"max_replicas", f.max_replicas}, {"mean_serving", f.mean_serving}, {"gpu_hours", f.gpu_hours},
          {"usd", f.usd},                   {"completed", f.completed},       {"failed", f.failed},
          {"slo_attainment", f.slo_attainment}, {"slo_met", f.slo_met},      {"ttft_p99_ms", f.ttft_p99_ms},
          {"tpot_p99_ms", f.tpot_p99_ms},   {"duration_s", f.duration_s}};
}

}  // namespace

FleetComparison compare_fleets(const Scenario& candidate, const std::string& label, int replicas,
                               const AutoscaleSpec& autoscale) {
  FleetComparison out;
  out.candidate = label;
  Scenario fixed = candidate;
  fixed.parallelism.replicas = replicas;
  fixed.autoscale.reset();
  out.fixed = run_fleet(fixed);
  Scenario scaled = fixed;
  AutoscaleSpec a = autoscale;
  a.min_replicas = std::min(a.min_replicas, replicas);
  a.initial_replicas = std::clamp(a.initial_replicas > 0 ? a.initial_replicas : a.min_replicas, a.min_replicas, replicas);
  scaled.autoscale = a;
  out.autoscaled = run_fleet(scaled);
  return out;
}

std::string fleet_comparison_text(const FleetComparison& f) {
  std::string out = fmt::format(
      "\nfixed vs autoscaled fleet over the whole workload ({}, at most {} replicas, the scenario's autoscale "
      "section):\n",
      f.candidate, f.fixed.max_replicas);
  out += run_text("fixed", f.fixed);
  out += run_text("autoscaled", f.autoscaled);
  if (f.fixed.gpu_hours > 0)
    out += fmt::format("  autoscaling holds {:.1f}% of the fixed fleet's GPU-hours; SLO attainment {:+.2f} points\n",
                       100 * f.autoscaled.gpu_hours / f.fixed.gpu_hours,
                       100 * (f.autoscaled.slo_attainment - f.fixed.slo_attainment));
  return out;
}

nlohmann::ordered_json fleet_comparison_json(const FleetComparison& f) {
  return {{"candidate", f.candidate}, {"fixed", run_json(f.fixed)}, {"autoscaled", run_json(f.autoscaled)}};
}

}  // namespace servesim::planning
