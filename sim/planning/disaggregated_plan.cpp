#include "planning/disaggregated_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "config/edits.h"
#include "config/scenario_reader.h"
#include "planning/sweep.h"
#include "planning/trial_json.h"
#include "scenario/disaggregation.h"
#include "util/error.h"
#include "util/interrupt.h"

namespace servesim::planning {
namespace {

std::string pool_label(const Setup& s) {
  return fmt::format("{} {} tp={}", s.gpu.name, weight_format_name(s.precision), s.parallelism.tp);
}

// Both pools' dollars and watts: each pool's GPUs at its own price and its own
// average power, over the output tokens the whole deployment serves.
Economics split_economics(const DisaggregationSpec& spec, const Split& s, double output_tokens_per_s) {
  const RunSummary& sum = s.trial->summary;
  const DisaggregationReport& d = *sum.disaggregation;
  const double duration = sum.duration_s > 0 ? sum.duration_s : 1.0;
  Economics e;
  e.gpus = s.gpus;
  e.usd_per_hour = d.prefill.gpus * spec.prefill.gpu.price_per_hour + d.decode.gpus * spec.decode.gpu.price_per_hour;
  e.output_tokens_per_s = output_tokens_per_s;
  if (output_tokens_per_s > 0) e.usd_per_million_output_tokens = e.usd_per_hour / (output_tokens_per_s * 3600.0) * 1e6;
  e.power_watts = (d.prefill.energy_j + d.decode.energy_j) / duration;
  if (output_tokens_per_s > 0) e.joules_per_output_token = e.power_watts / output_tokens_per_s;
  return e;
}

const Candidate* best_colocated(const PlanResult& p) {
  for (const Candidate& c : p.candidates)
    if (c.rank == 1) return &c;
  return nullptr;
}

}  // namespace

DisaggregatedPlan plan_disaggregated(const ConfigNode& doc, const std::string& source, const PlanOptions& opt,
                                     const PlanResult& colocated) {
  const Scenario base = parse_scenario(doc, source);
  DisaggregatedPlan out;
  // Splits are sized as fixed pools, as the co-located plan sizes a fixed fleet: a
  // pool's autoscaler would start each short trial from its initial instances, and a
  // split of one instance could not scale at all.
  ConfigNode fixed_doc = doc;
  if (ConfigNode* dis = fixed_doc.find("disaggregation"))
    for (const char* pool : {"prefill", "decode"})
      if (ConfigNode* p = dis->find(pool)) out.pools_autoscaled = p->remove("autoscale") || out.pools_autoscaled;
  // The co-located plan's target, else (a GPU budget alone) the workload's own rate.
  const ArrivalSpec& a = base.workload.arrival;
  const bool has_rate = a.kind == ArrivalKind::poisson || a.kind == ArrivalKind::gamma || a.kind == ArrivalKind::constant;
  if (colocated.target_rate) out.target_rate = *colocated.target_rate;
  else if (has_rate) out.target_rate = a.rate;
  else
    throw Error("plan: sizing prefill and decode pools needs a target rate (--target-rate R or plan.target_rate: the "
                "workload has no arrival rate); a GPU budget alone is not enough");
  if (!base.disaggregation) throw Error("internal: plan_disaggregated on a scenario without disaggregation");
  const DisaggregationSpec& spec = *base.disaggregation;
  out.prefill_pool = pool_label(spec.prefill);
  out.decode_pool = pool_label(spec.decode);
  const int gp = out.prefill_gpus_per_instance = spec.prefill.parallelism.gpus_per_replica();
  const int gd = out.decode_gpus_per_instance = spec.decode.parallelism.gpus_per_replica();
  if (colocated.gpu_budget) {
    out.max_gpus = *colocated.gpu_budget;
  } else {
    const Candidate* c = best_colocated(colocated);
    out.max_gpus = std::clamp(c ? 2 * c->gpus : 16, 4, kMaxSearchGpus);
  }
  out.max_gpus = std::max(out.max_gpus, gp + gd);

  // Every split within the ceiling, by GPUs (then fewer prefill instances first).
  std::vector<Split> all;
  for (int x = 1; x * gp + gd <= out.max_gpus; ++x)
    for (int y = 1; x * gp + y * gd <= out.max_gpus; ++y) all.push_back(Split{x, y, x * gp + y * gd});
  std::stable_sort(all.begin(), all.end(), [](const Split& a, const Split& b) {
    return a.gpus != b.gpus ? a.gpus < b.gpus : a.prefill < b.prefill;
  });

  const TrialOptions trial = colocated.search.trial;
  std::mutex progress_mutex;
  for (std::size_t lo = 0; lo < all.size();) {
    // One GPU count at a time, its splits in parallel.
    std::size_t hi = lo;
    while (hi < all.size() && all[hi].gpus == all[lo].gpus) ++hi;
    parallel_for(hi - lo, opt.threads, [&](std::size_t k) {
      Split& s = all[lo + k];
      try {
        ConfigNode d = fixed_doc;
        apply_edit(d, number_edit("disaggregation.prefill.replicas", s.prefill, "plan candidate"));
        apply_edit(d, number_edit("disaggregation.decode.replicas", s.decode, "plan candidate"));
        const Scenario sc = parse_scenario(d, source);
        s.trial = run_trial(sc, out.target_rate, trial);
        s.sustainable = s.trial->sustainable();
        s.failure = s.trial->failure;
        const RunSummary& sum = s.trial->summary;
        const double out_per_request = sum.completed > 0 ? static_cast<double>(sum.output_tokens) / sum.completed : 0.0;
        s.economics = split_economics(spec, s, out.target_rate * out_per_request);
      } catch (const Interrupted&) {
        throw;
      } catch (const Error& e) {
        s.failure = e.what();
      }
    });
    for (std::size_t i = lo; i < hi; ++i) out.splits.push_back(all[i]);
    std::optional<std::size_t> best;
    for (std::size_t i = out.splits.size() - (hi - lo); i < out.splits.size(); ++i) {
      const Split& s = out.splits[i];
      if (!s.sustainable) continue;
      if (!best || s.economics.usd_per_million_output_tokens <
                       out.splits[*best].economics.usd_per_million_output_tokens ||
          (s.economics.usd_per_million_output_tokens == out.splits[*best].economics.usd_per_million_output_tokens &&
           s.trial->summary.slo_attainment > out.splits[*best].trial->summary.slo_attainment))
        best = i;
    }
    if (opt.progress) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      opt.progress(hi, all.size());
    }
    if (best) {
      out.best = best;
      break;
    }
    lo = hi;
  }
  if (!out.best)
    out.note = fmt::format("no split of up to {} GPUs meets the SLOs at {:g} req/s (raise --gpu-budget to search "
                           "further)",
                           out.max_gpus, out.target_rate);
  return out;
}


std::string disaggregated_plan_table(const DisaggregatedPlan& d, const PlanResult& colocated) {
  std::string out = fmt::format(
      "\nDisaggregated (xPyD: x prefill instances of {}, y decode instances of {}), at {:g} req/s, splits of up to {} "
      "GPUs:\n",
      d.prefill_pool, d.decode_pool, d.target_rate, d.max_gpus);
  if (d.pools_autoscaled)
    out += "  (each split sized as fixed pools: the pools' autoscale sections are left out of these trials)\n";
  out += fmt::format("  {:<8} {:>5} {:>12} {:>12} {:>10} {:>10} {:>10}  {}\n", "split", "GPUs", "TTFT p99 ms",
                     "TPOT p99 ms", "attain %", "$/M tok", "transfer", "verdict");
  for (std::size_t i = 0; i < d.splits.size(); ++i) {
    const Split& s = d.splits[i];
    const std::string name = fmt::format("{}P{}D", s.prefill, s.decode);
    if (!s.trial) {
      out += fmt::format("  {:<8} {:>5}  {}\n", name, s.gpus, s.failure);
      continue;
    }
    const RunSummary& r = s.trial->summary;
    const double transfer = r.disaggregation ? r.disaggregation->transfer_ms.mean : 0.0;
    out += fmt::format("  {:<8} {:>5} {:>12.1f} {:>12.2f} {:>10.1f} {:>10.3f} {:>8.2f}ms  {}{}\n", name, s.gpus,
                       r.ttft_ms.p99, r.tpot_ms.p99, 100 * r.slo_attainment, s.economics.usd_per_million_output_tokens,
                       transfer, s.sustainable ? "ok" : s.failure, d.best && *d.best == i ? "  <- best" : "");
  }
  const Candidate* c = best_colocated(colocated);
  out += "\nDisaggregated vs co-located (goodput: the offered rate times the share of requests that meet every "
         "SLO):\n";
  if (d.best) {
    const Split& s = d.splits[*d.best];
    const RunSummary& r = s.trial->summary;
    out += fmt::format("  disaggregated {}P{}D: {} GPUs, ${:.3f}/M output tokens, goodput {:.2f} req/s ({:.1f}% of the "
                       "{:g} req/s offered meet the SLOs), TTFT p99 {:.1f} ms, TPOT p99 {:.2f} ms\n",
                       s.prefill, s.decode, s.gpus, s.economics.usd_per_million_output_tokens,
                       offered_goodput(*s.trial), 100 * r.slo_attainment, s.trial->rate, r.ttft_ms.p99, r.tpot_ms.p99);
  } else {
    out += "  disaggregated: " + d.note + "\n";
  }
  if (c && c->operating) {
    const RunSummary& r = c->operating->summary;
    out += fmt::format("  co-located {} x{}: {} GPUs, ${:.3f}/M output tokens, goodput {:.2f} req/s ({} replicas x "
                       "{:.2f}), TTFT p99 {:.1f} ms, TPOT p99 {:.2f} ms ({})\n",
                       c->label, c->replicas, c->gpus, c->economics.usd_per_million_output_tokens,
                       offered_goodput(*c->operating) * c->replicas, c->replicas, offered_goodput(*c->operating),
                       r.ttft_ms.p99, r.tpot_ms.p99,
                       colocated.target_rate ? "one replica at its share of the rate"
                                             : "the GPU budget's plan: every replica at its maximum rate, not at the "
                                               "workload's rate");
  } else {
    out += "  co-located: no configuration meets the SLOs at the target rate\n";
  }
  return out;
}

nlohmann::ordered_json disaggregated_plan_json(const DisaggregatedPlan& d, const PlanResult& colocated) {
  nlohmann::ordered_json j;
  j["target_rate"] = d.target_rate;
  j["prefill_pool"] = d.prefill_pool;
  j["decode_pool"] = d.decode_pool;
  j["max_gpus"] = d.max_gpus;
  if (d.pools_autoscaled) j["splits_sized_fixed"] = true;  // only then: other plans' JSON unchanged
  nlohmann::ordered_json splits = nlohmann::ordered_json::array();
  for (const Split& s : d.splits) {
    nlohmann::ordered_json x;
    x["prefill"] = s.prefill;
    x["decode"] = s.decode;
    x["gpus"] = s.gpus;
    x["sustainable"] = s.sustainable;
    x["failure"] = s.failure;
    if (s.trial) {
      const RunSummary& r = s.trial->summary;
      add_trial_fields(x, *s.trial);
      x["usd_per_million_output_tokens"] = s.economics.usd_per_million_output_tokens;
      x["usd_per_hour"] = s.economics.usd_per_hour;
      x["joules_per_output_token"] = s.economics.joules_per_output_token;
      if (r.disaggregation) x["transfer_ms_mean"] = r.disaggregation->transfer_ms.mean;
    }
    splits.push_back(x);
  }
  j["splits"] = splits;
  if (d.best)
    j["best"] = {{"prefill", d.splits[*d.best].prefill}, {"decode", d.splits[*d.best].decode},
                 {"gpus", d.splits[*d.best].gpus},
                 {"usd_per_million_output_tokens", d.splits[*d.best].economics.usd_per_million_output_tokens},
                 {"goodput_rps", offered_goodput(*d.splits[*d.best].trial)}};
  else
    j["best"] = nullptr;
  j["note"] = d.note;
  const Candidate* c = best_colocated(colocated);
  if (c && c->operating)
    j["colocated_best"] = {{"label", c->label},
                           {"replicas", c->replicas},
                           {"gpus", c->gpus},
                           {"usd_per_million_output_tokens", c->economics.usd_per_million_output_tokens},
                           {"goodput_rps", offered_goodput(*c->operating) * c->replicas},
                           {"goodput_rps_per_replica", offered_goodput(*c->operating)}};
  else
    j["colocated_best"] = nullptr;
  return j;
}

}  // namespace servesim::planning
