#include "planning/pool_mix_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "config/scenario_reader.h"
#include "planning/sweep.h"
#include "planning/trial_json.h"
#include "util/error.h"
#include "util/interrupt.h"

namespace servesim::planning {
namespace {

std::string pool_label(const Setup& s) {
  return fmt::format("{} {} tp={}", s.gpu.name, weight_format_name(s.precision), s.parallelism.tp);
}

// Every mix within the ceilings, cheapest first (ties: fewer GPUs, then more replicas in
// the earlier pools: a stable order whatever the thread count).
std::vector<PoolMix> all_mixes(const PoolMixPlan& p) {
  std::vector<PoolMix> out;
  const std::size_t k = p.pools.size();
  std::vector<int> n(k, 0);
  for (;;) {
    // The next combination, as an odometer over 0..max per pool.
    std::size_t i = 0;
    while (i < k && n[i] == p.max_replicas_per_pool) n[i++] = 0;
    if (i == k) break;
    ++n[i];
    PoolMix m;
    m.replicas = n;
    for (std::size_t j = 0; j < k; ++j) {
      m.gpus += n[j] * p.pools[j].gpus_per_replica;
      m.usd_per_hour += n[j] * p.pools[j].usd_per_replica_hour;
    }
    if (p.gpu_budget && m.gpus > *p.gpu_budget) continue;
    out.push_back(std::move(m));
  }
  std::stable_sort(out.begin(), out.end(), [](const PoolMix& a, const PoolMix& b) {
    if (a.usd_per_hour != b.usd_per_hour) return a.usd_per_hour < b.usd_per_hour;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    return a.replicas > b.replicas;  // lexicographic: the earlier pools' replicas first
  });
  return out;
}

// The scenario of one mix: each pool's replicas set, the pools at 0 removed.
ConfigNode mix_document(const ConfigNode& doc, const PoolMix& m) {
  ConfigNode d = doc;
  ConfigNode* pools = d.find("pools");
  std::vector<ConfigNode> kept;
  for (std::size_t i = 0; i < pools->items().size(); ++i) {
    if (m.replicas[i] == 0) continue;
    ConfigNode item = pools->items()[i];
    ConfigNode n = ConfigNode::number(m.replicas[i]);
    n.mark_from_edit("plan candidate");
    item.set("replicas", std::move(n));
    kept.push_back(std::move(item));
  }
  pools->items() = std::move(kept);
  return d;
}

}  // namespace

std::string mix_label(const PoolMixPlan& p, const PoolMix& m) {
  std::string s;
  for (std::size_t i = 0; i < p.pools.size(); ++i)
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", p.pools[i].name, m.replicas[i]);
  return s;
}

PoolMixPlan plan_pool_mixes(const ConfigNode& doc_in, const std::string& source, const PlanOptions& opt) {
  // Each mix is a fixed fleet at a steady rate: without an autoscale section.
  ConfigNode doc = doc_in;
  if (doc.is_map()) doc.remove("autoscale");
  const Scenario base = parse_scenario(doc, source);
  if (base.pools.empty()) throw Error("internal: plan_pool_mixes on a scenario without pools");
  if (base.slo.empty() && base.slo.attainment <= 0)
    throw Error(fmt::format("{}: plan needs SLOs to plan for, e.g. slo: {{ttft_ms: {{p99: 500}}, tpot_ms: {{p99: 50}}}}",
                            source));
  if (base.workload.trace)
    throw Error(fmt::format("{}: plan needs a synthetic workload (arrival process and length distributions) to vary "
                            "the rate of, not a trace",
                            source));
  PoolMixPlan out;
  const ArrivalSpec& a = base.workload.arrival;
  const bool has_rate = a.kind == ArrivalKind::poisson || a.kind == ArrivalKind::gamma || a.kind == ArrivalKind::constant;
  if (opt.target_rate) out.target_rate = *opt.target_rate;
  else if (has_rate) out.target_rate = a.rate;
  else
    throw Error(fmt::format("{}: sizing a fleet of pools needs a target rate (--target-rate R or plan.target_rate: the "
                            "workload has no arrival rate)",
                            source));
  for (std::size_t i = 0; i < base.pools.size(); ++i) {
    const FleetPoolSpec& fp = base.pools[i];
    PoolMixPool p;
    p.name = fp.name;
    p.label = pool_label(fp.setup);
    p.gpus_per_replica = fp.setup.parallelism.gpus_per_replica();
    if (!(fp.setup.gpu.price_per_hour > 0))
      throw Error(fmt::format("{}: pool '{}' ({}) has no price, so mixes cannot be ordered by cost: set pools[{}]"
                              ".price_per_hour (e.g. \"2.99 USD/h\") or cost.on_demand in its GPU file",
                              source, fp.name, fp.setup.gpu.name, i));
    p.usd_per_replica_hour = p.gpus_per_replica * fp.setup.gpu.price_per_hour;
    out.pools.push_back(p);
  }
  out.max_replicas_per_pool = opt.max_replicas > 0 ? opt.max_replicas : kMaxMixReplicas;
  out.gpu_budget = opt.gpu_budget;

  std::vector<PoolMix> all = all_mixes(out);
  out.mixes_in_ceiling = all.size();
  TrialOptions trial;
  if (opt.trial_requests > 0) trial.requests = opt.trial_requests;
  trial.concurrent_runs = opt.threads;
  const std::size_t limit = std::min(all.size(), kMaxMixTrials);
  const std::size_t batch = static_cast<std::size_t>(std::max(1, opt.threads));
  std::mutex progress_mutex;
  for (std::size_t lo = 0; lo < limit && !out.best;) {
    const std::size_t hi = std::min(limit, lo + batch);
    parallel_for(hi - lo, opt.threads, [&](std::size_t k) {
      PoolMix& m = all[lo + k];
      int replicas = 0;
      for (int n : m.replicas) replicas += n;
      try {
        const Scenario sc = parse_scenario(mix_document(doc, m), source);
        TrialOptions t = trial;
        t.requests = trial.requests * replicas;  // `trial_requests` per replica of the mix
        m.trial = run_trial(sc, out.target_rate, t);
        m.sustainable = m.trial->sustainable();
        m.failure = m.trial->failure;
        const RunSummary& s = m.trial->summary;
        const double out_per_request = s.completed > 0 ? static_cast<double>(s.output_tokens) / s.completed : 0.0;
        const double tokens_per_s = out.target_rate * out_per_request;
        if (tokens_per_s > 0) m.usd_per_million_output_tokens = m.usd_per_hour / (tokens_per_s * 3600.0) * 1e6;
      } catch (const Interrupted&) {
        throw;
      } catch (const Error& e) {
        m.failure = e.what();
      }
    });
    for (std::size_t i = lo; i < hi; ++i) {
      out.tried.push_back(all[i]);
      if (all[i].sustainable) {  // the cheapest sustainable: every earlier mix failed
        out.best = out.tried.size() - 1;
        break;
      }
    }
    if (opt.progress) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      opt.progress(hi, limit);
    }
    lo = hi;
  }
  if (!out.best)
    out.note = limit < all.size()
                   ? fmt::format("none of the {} cheapest mixes (of {} within the ceilings) meets the SLOs at {:g} "
                                 "req/s; the search stops at {} trials",
                                 limit, all.size(), out.target_rate, kMaxMixTrials)
                   : fmt::format("no mix of up to {} replicas per pool{} meets the SLOs at {:g} req/s (raise "
                                 "--max-replicas{} to search further)",
                                 out.max_replicas_per_pool,
                                 out.gpu_budget ? fmt::format(" and {} GPUs", *out.gpu_budget) : std::string(),
                                 out.target_rate, out.gpu_budget ? " or --gpu-budget" : "");
  return out;
}

std::string pool_mix_plan_table(const PoolMixPlan& p) {
  std::string pools;
  for (const PoolMixPool& x : p.pools)
    pools += fmt::format("{}{} = {} at ${:.2f}/hour per replica", pools.empty() ? "" : "; ", x.name, x.label,
                         x.usd_per_replica_hour);
  std::string out = fmt::format(
      "Pool mixes at {:g} req/s, cheapest first ({}), up to {} replicas per pool{}: {} mixes within the "
      "ceilings, {} tried\n",
      p.target_rate, pools, p.max_replicas_per_pool,
      p.gpu_budget ? fmt::format(" and {} GPUs", *p.gpu_budget) : std::string(), p.mixes_in_ceiling, p.tried.size());
  std::size_t width = 8;
  for (const PoolMix& m : p.tried) width = std::max(width, mix_label(p, m).size());
  out += fmt::format("  {:<{}} {:>5} {:>9} {:>12} {:>12} {:>9} {:>9}  {}\n", "mix", width, "GPUs", "$/hour",
                     "TTFT p99 ms", "TPOT p99 ms", "attain %", "$/M tok", "verdict");
  for (std::size_t i = 0; i < p.tried.size(); ++i) {
    const PoolMix& m = p.tried[i];
    const std::string name = mix_label(p, m);
    if (!m.trial) {
      out += fmt::format("  {:<{}} {:>5} {:>9.2f}  {}\n", name, width, m.gpus, m.usd_per_hour, m.failure);
      continue;
    }
    const RunSummary& r = m.trial->summary;
    out += fmt::format("  {:<{}} {:>5} {:>9.2f} {:>12.1f} {:>12.2f} {:>9.1f} {:>9.3f}  {}{}\n", name, width, m.gpus,
                       m.usd_per_hour, r.ttft_ms.p99, r.tpot_ms.p99, 100 * r.slo_attainment,
                       m.usd_per_million_output_tokens, m.sustainable ? "ok" : m.failure,
                       p.best && *p.best == i ? "  <- best" : "");
  }
  if (p.best) {
    const PoolMix& m = p.tried[*p.best];
    const RunSummary& r = m.trial->summary;
    out += fmt::format("\nbest: {} ({} GPU{}, ${:.2f}/hour, ${:.3f}/M output tokens): goodput {:.2f} req/s ({:.1f}% of "
                       "the {:g} req/s offered meet the SLOs), TTFT p99 {:.1f} ms, TPOT p99 {:.2f} ms; every cheaper "
                       "mix above fails\n",
                       mix_label(p, m), m.gpus, m.gpus == 1 ? "" : "s", m.usd_per_hour, m.usd_per_million_output_tokens,
                       offered_goodput(*m.trial), 100 * r.slo_attainment, m.trial->rate, r.ttft_ms.p99,
                       r.tpot_ms.p99);
  } else {
    out += "\nbest: " + p.note + "\n";
  }
  return out;
}

nlohmann::ordered_json pool_mix_plan_json(const PoolMixPlan& p) {
  nlohmann::ordered_json j;
  j["target_rate"] = p.target_rate;
  nlohmann::ordered_json pools = nlohmann::ordered_json::array();
  for (const PoolMixPool& x : p.pools)
    pools.push_back({{"name", x.name},
                     {"setup", x.label},
                     {"gpus_per_replica", x.gpus_per_replica},
                     {"usd_per_replica_hour", x.usd_per_replica_hour}});
  j["pools"] = pools;
  j["max_replicas_per_pool"] = p.max_replicas_per_pool;
  j["gpu_budget"] = p.gpu_budget ? nlohmann::ordered_json(*p.gpu_budget) : nlohmann::ordered_json(nullptr);
  j["mixes_in_ceiling"] = p.mixes_in_ceiling;
  nlohmann::ordered_json tried = nlohmann::ordered_json::array();
  for (const PoolMix& m : p.tried) {
    nlohmann::ordered_json x;
    x["replicas"] = m.replicas;
    x["gpus"] = m.gpus;
    x["usd_per_hour"] = m.usd_per_hour;
    x["sustainable"] = m.sustainable;
    x["failure"] = m.failure;
    if (m.trial) {
      add_trial_fields(x, *m.trial);
      x["usd_per_million_output_tokens"] = m.usd_per_million_output_tokens;
    }
    tried.push_back(x);
  }
  j["tried"] = tried;
  if (p.best) {
    const PoolMix& m = p.tried[*p.best];
    j["best"] = {{"replicas", m.replicas},
                 {"label", mix_label(p, m)},
                 {"gpus", m.gpus},
                 {"usd_per_hour", m.usd_per_hour},
                 {"usd_per_million_output_tokens", m.usd_per_million_output_tokens},
                 {"goodput_rps", offered_goodput(*m.trial)}};
  } else {
    j["best"] = nullptr;
  }
  j["note"] = p.note;
  return j;
}

std::string pool_mix_plan_csv(const PoolMixPlan& p) {
  std::string out;
  for (const PoolMixPool& x : p.pools) out += x.name + ",";
  out += "gpus,usd_per_hour,ttft_p99_ms,tpot_p99_ms,slo_attainment,usd_per_million_output_tokens,sustainable,best\n";
  for (std::size_t i = 0; i < p.tried.size(); ++i) {
    const PoolMix& m = p.tried[i];
    for (int n : m.replicas) out += fmt::format("{},", n);
    const RunSummary* r = m.trial ? &m.trial->summary : nullptr;
    out += fmt::format("{},{:.6g},{},{},{},{:.6g},{},{}\n", m.gpus, m.usd_per_hour,
                       r ? fmt::format("{:.6g}", r->ttft_ms.p99) : "", r ? fmt::format("{:.6g}", r->tpot_ms.p99) : "",
                       r ? fmt::format("{:.6g}", r->slo_attainment) : "", m.usd_per_million_output_tokens,
                       m.sustainable ? 1 : 0, p.best && *p.best == i ? 1 : 0);
  }
  return out;
}

}  // namespace servesim::planning
