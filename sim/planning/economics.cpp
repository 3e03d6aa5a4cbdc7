#include "planning/economics.h"

#include <fmt/format.h>

#include "scenario/disaggregation.h"

namespace servesim::planning {
namespace {

bool split_autoscaled(const DisaggregationReport& d) { return d.prefill.autoscale || d.decode.autoscale; }

}  // namespace

Economics economics(const GpuSpec& gpu, int gpus, double output_tokens_per_s, double watts_per_gpu) {
  Economics e;
  e.gpus = gpus;
  e.usd_per_hour = gpus * gpu.price_per_hour;
  e.output_tokens_per_s = output_tokens_per_s;
  if (output_tokens_per_s > 0) e.usd_per_million_output_tokens = e.usd_per_hour / (output_tokens_per_s * 3600.0) * 1e6;
  e.power_watts = gpus * watts_per_gpu;
  if (output_tokens_per_s > 0) e.joules_per_output_token = e.power_watts / output_tokens_per_s;
  return e;
}

Economics economics(const GpuSpec& gpu, const RunSummary& s) {
  return economics(gpu, s.gpus, s.output_tokens_per_s, s.power_w_per_gpu);
}

Economics run_economics(const Scenario& sc, const RunSummary& s) {
  Economics e = economics(sc.gpu, s);
  if (s.autoscale && s.autoscale->span_s > 0) {
    // An autoscaled fleet pays for the GPUs it held, on average over the run.
    const AutoscaleReport& a = *s.autoscale;
    e.usd_per_hour = a.gpu_hours() / (a.span_s / 3600.0) * sc.gpu.price_per_hour;
    e.usd_per_million_output_tokens =
        e.output_tokens_per_s > 0 ? e.usd_per_hour / (e.output_tokens_per_s * 3600.0) * 1e6 : 0.0;
  }
  if (!s.pools.empty() && s.duration_s > 0) {
    // A heterogeneous fleet: each pool's GPU-hours (held, when autoscaled) at its own price.
    double usd = 0, span_h = s.duration_s / 3600.0;
    if (s.autoscale && s.autoscale->span_s > 0) span_h = s.autoscale->span_s / 3600.0;
    bool priced = true;  // a pool without a price: no fleet price (not a cheaper one)
    for (const FleetPoolReport& p : s.pools) {
      usd += p.gpu_hours * p.price_per_gpu_hour;
      priced = priced && p.price_per_gpu_hour > 0;
    }
    e.usd_per_hour = priced ? usd / span_h : 0.0;
    e.usd_per_million_output_tokens =
        e.output_tokens_per_s > 0 ? e.usd_per_hour / (e.output_tokens_per_s * 3600.0) * 1e6 : 0.0;
  }
  if (sc.disaggregation && s.disaggregation) {
    const DisaggregationSpec& d = *sc.disaggregation;
    const DisaggregationReport& rep = *s.disaggregation;
    // An autoscaled pool pays for the GPUs it held, on average over its span.
    e.usd_per_hour =
        rep.prefill.held_gpus() * d.prefill.gpu.price_per_hour + rep.decode.held_gpus() * d.decode.gpu.price_per_hour;
    e.usd_per_million_output_tokens =
        e.output_tokens_per_s > 0 ? e.usd_per_hour / (e.output_tokens_per_s * 3600.0) * 1e6 : 0.0;
  }
  return e;
}

std::string cost_text(const Scenario& sc, const RunSummary& s) {
  const Economics e = run_economics(sc, s);
  const bool split = sc.disaggregation && s.disaggregation;
  // A pool without a price would make the fleet look cheaper than it is: no figure instead.
  for (std::size_t i = 0; i < s.pools.size(); ++i)
    if (!(s.pools[i].price_per_gpu_hour > 0))
      return fmt::format("no price for pool '{}' ({}): set pools[{}].price_per_hour (e.g. \"2.99 USD/h\") or "
                         "cost.on_demand in its GPU file",
                         s.pools[i].name, s.pools[i].hardware.gpu, i);
  if (!(e.usd_per_hour > 0))
    return fmt::format("no price for {} (set one with --set hardware.price_per_hour=\"2.99 USD/h\" or cost.on_demand "
                       "in its GPU file)",
                       split ? "these GPUs" : sc.gpu.name);
  std::string pools;
  for (const FleetPoolReport& p : s.pools)
    pools += fmt::format("{}{} {} x {} at ${:.2f}", pools.empty() ? "" : ", ", p.name, p.hardware.gpus, p.hardware.gpu,
                         p.price_per_gpu_hour);
  const std::string who =
      !s.pools.empty()
          ? fmt::format("{} of {} GPUs ({} per GPU-hour)", s.autoscale ? "an autoscaled fleet" : "a fleet", e.gpus, pools)
      : split ? fmt::format("{}{} GPUs{} (prefill {} x {} at ${:.2f}, decode {} x {} at ${:.2f} per GPU-hour)",
                          split_autoscaled(*s.disaggregation) ? "up to " : "", e.gpus,
                          split_autoscaled(*s.disaggregation)
                              ? fmt::format(" holding {:.1f} on average", s.disaggregation->prefill.held_gpus() +
                                                                              s.disaggregation->decode.held_gpus())
                              : std::string(),
                          s.disaggregation->prefill.gpus, s.disaggregation->prefill.gpu, sc.disaggregation->prefill.gpu.price_per_hour,
                          s.disaggregation->decode.gpus, s.disaggregation->decode.gpu, sc.disaggregation->decode.gpu.price_per_hour)
        : s.autoscale
            ? fmt::format("an autoscaled fleet of up to {} GPUs holding {:.1f} on average ({} at ${:.2f}/GPU-hour)",
                          e.gpus, e.usd_per_hour / sc.gpu.price_per_hour, sc.gpu.name, sc.gpu.price_per_hour)
            : fmt::format("{} GPU{} ({} at ${:.2f}/GPU-hour)", e.gpus, e.gpus == 1 ? "" : "s", sc.gpu.name,
                          sc.gpu.price_per_hour);
  const std::string per_token =
      e.output_tokens_per_s > 0 ? fmt::format("${:.3f} per million output tokens at this run's {:.0f} output tok/s",
                                              e.usd_per_million_output_tokens, e.output_tokens_per_s)
                                : std::string("no output tokens to spread it over");
  return fmt::format("${:.2f}/hour for {}: {}, ${:.3g} for the {:.1f} s simulated", e.usd_per_hour, who, per_token,
                     e.usd_per_hour * s.duration_s / 3600.0, s.duration_s);
}

}  // namespace servesim::planning
