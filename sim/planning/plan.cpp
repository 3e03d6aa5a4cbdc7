#include "planning/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "config/catalog_reader.h"
#include "cost/layout_text.h"
#include "model/dtype.h"
#include "model/gguf.h"
#include "planning/sweep.h"
#include "metrics/summary_json.h"
#include "uncertainty/scenario_key.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/text.h"
#include "config/edits.h"
#include "config/scenario_reader.h"

namespace servesim::planning {
namespace {

// The compute precision that goes with a weight precision (see plan.h).
std::string activations_for(const std::string& weights, const GpuSpec& gpu) {
  // A GGUF type computes in fp16 on every ggml back end (config/read_setup.cpp's default too).
  if (find_gguf_type(weights) != GgufType::none) return dtype_name(DType::fp16);
  return dtype_name(default_activations(parse_dtype(weights, "weights"), gpu));
}

}  // namespace

std::vector<bool> pareto_front(const std::vector<std::pair<double, double>>& pts) {
  std::vector<bool> out(pts.size(), true);
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (std::size_t j = 0; j < pts.size(); ++j) {
      if (i == j) continue;
      const bool geq = pts[j].first >= pts[i].first && pts[j].second >= pts[i].second;
      const bool gt = pts[j].first > pts[i].first || pts[j].second > pts[i].second;
      if (geq && gt) {
        out[i] = false;
        break;
      }
    }
  return out;
}

PlanResult plan(const ConfigNode& doc, const std::string& source, const PlanOptions& opt) {
  const Scenario base = parse_scenario(doc, source);
  if (!base.pools.empty())
    throw Error(fmt::format("{}: plan sizes a fleet of one setup per candidate; a heterogeneous fleet (pools) is "
                            "planned over its pools' replica counts (planning/pool_mix_plan.h, what `servesim plan` "
                            "does with such a scenario)",
                            source));
  // Each candidate is sized at a steady rate, one replica per trial: without the
  // autoscale section (it comes back in the fleet comparison below).
  ConfigNode candidate_doc = doc;
  if (base.autoscale && candidate_doc.is_map()) candidate_doc.remove("autoscale");
  PlanResult out;
  out.model = base.model.name;
  out.source = source;
  out.slo = base.slo;
  out.max_replicas = opt.max_replicas;
  out.gpu_budget = opt.gpu_budget;
  out.target_rate = opt.target_rate;
  out.search = opt.search;
  if (opt.trial_requests > 0) out.search.trial.requests = opt.trial_requests;
  out.search.trial.concurrent_runs = opt.threads;  // candidates run side by side
  if (opt.tolerance > 0) out.search.tolerance = opt.tolerance;
  if (base.slo.empty() && base.slo.attainment <= 0)
    throw Error(fmt::format("{}: plan needs SLOs to plan for, e.g. slo: {{ttft_ms: {{p99: 500}}, tpot_ms: {{p99: 50}}}}",
                            source));
  if (base.workload.trace)
    throw Error(fmt::format("{}: plan needs a synthetic workload (arrival process and length distributions) to vary "
                            "the rate of, not a trace", source));
  if (!out.target_rate && !out.gpu_budget) {
    const ArrivalSpec& a = base.workload.arrival;
    const bool has_rate =
        a.kind == ArrivalKind::poisson || a.kind == ArrivalKind::gamma || a.kind == ArrivalKind::constant;
    if (has_rate) {
      out.target_rate = a.rate;
    } else if (a.kind == ArrivalKind::multi_stage && !a.stages.empty()) {
      // A fixed fleet must carry the busiest stage (a day's peak hour).
      double peak = 0;
      for (const ArrivalStage& st : a.stages) peak = std::max(peak, st.rate);
      out.target_rate = peak;
      out.target_note = "the peak of the workload's stages";
    } else {
      throw Error("give --target-rate R (requests/s) or --gpu-budget N: the workload has no arrival rate to plan for");
    }
  }
  if (out.target_rate && !(*out.target_rate > 0)) throw Error("--target-rate must be positive");
  if (out.gpu_budget && *out.gpu_budget < 1) throw Error("--gpu-budget must be at least 1");

  // Candidate grid; an empty list keeps the scenario's value.
  const std::vector<std::string> gpus = opt.gpus.empty() ? std::vector<std::string>{""} : opt.gpus;
  const std::vector<std::string> weights = opt.weights.empty() ? std::vector<std::string>{""} : opt.weights;
  const std::vector<int> tps = opt.tps.empty() ? std::vector<int>{0} : opt.tps;
  const std::vector<int> pps = opt.pps.empty() ? std::vector<int>{0} : opt.pps;
  // Layouts replace tp (a layout names its own); none given: the tp list as before.
  const std::vector<std::string> layouts = opt.layouts.empty() ? std::vector<std::string>{""} : opt.layouts;
  const bool by_layout = !opt.layouts.empty();
  for (const auto& g : gpus)
    for (const auto& w : weights)
      for (const auto& lay : layouts)
        for (int tp : (by_layout ? std::vector<int>{0} : tps))
          for (int pp : pps) {
            Candidate c;
            c.gpu = g.empty() ? base.gpu.name : g;
            c.weights = w.empty() ? weight_format_name(base.precision) : w;
            c.layout = base.parallelism;
            c.layout.nodes = 0;  // derived anew for each layout
            if (by_layout) c.layout = apply_layout_text(lay, c.layout);
            if (tp) c.layout.tp = tp;
            if (pp) c.layout.pp = pp;
            c.tp = c.layout.tp;
            c.pp = c.layout.pp;
            c.label = by_layout || c.layout.wide()
                          ? fmt::format("{} {} {}", c.gpu, c.weights, layout_label(c.layout))
                          : fmt::format("{} {} tp={}{}", c.gpu, c.weights, c.tp, c.pp > 1 ? fmt::format(" pp={}", c.pp) : "");
            c.gpus_per_replica = c.layout.gpus_per_replica();
            out.candidates.push_back(c);
          }

  std::mutex progress_mutex;
  std::size_t done = 0;
  parallel_for(out.candidates.size(), opt.threads, [&](std::size_t i) {
    Candidate& c = out.candidates[i];
    ConfigNode d = candidate_doc;  // this candidate's draft: a plain copy, no lock
    const std::size_t per_weight = layouts.size() * (by_layout ? 1 : tps.size()) * pps.size();
    const std::size_t gi = i / (weights.size() * per_weight);
    const std::size_t wi = (i / per_weight) % weights.size();
    try {
      if (!gpus[gi].empty()) apply_edit(d, text_edit("hardware.gpu", gpus[gi], "plan candidate"));
      if (!weights[wi].empty()) {
        // The compute precision depends on what the GPU can run.
        const GpuSpec gpu = gpus[gi].empty() ? base.gpu : load_gpu(gpus[gi]);
        apply_edit(d, text_edit("model.weights", weights[wi], "plan candidate"));
        apply_edit(d, text_edit("model.activations", activations_for(weights[wi], gpu), "plan candidate"));
      }
      apply_edit(d, number_edit("parallelism.tp", c.tp, "plan candidate"));
      apply_edit(d, number_edit("parallelism.pp", c.pp, "plan candidate"));
      if (by_layout || c.layout.wide()) {
        apply_edit(d, number_edit("parallelism.attention_dp", c.layout.attention_dp, "plan candidate"));
        apply_edit(d, number_edit("parallelism.ep", c.layout.ep, "plan candidate"));
        apply_edit(d, number_edit("parallelism.redundant_experts", c.layout.redundant_experts, "plan candidate"));
        // A declared node count belongs to the scenario's own layout, not to this one.
        if (ConfigNode* par = d.is_map() ? d.find("parallelism") : nullptr; par && par->is_map()) par->remove("nodes");
      }
      apply_edit(d, number_edit("parallelism.replicas", 1, "plan candidate"));
      c.scenario = parse_scenario(d, source);
      c.precision = c.scenario->resolved.describe();
      // "fp8" is W8A8 on an H100 but weight-only W8A16 on an A100 (no fp8 tensor cores): the label says which.
      if (const ResolvedPrecision& rp = c.scenario->resolved; rp.weight_only)
        c.label = fmt::format("{} {} (W{}A{}) tp={}{}", c.gpu, c.weights, static_cast<int>(dtype_bytes(rp.weights) * 8),
                              static_cast<int>(dtype_bytes(rp.compute) * 8), c.tp,
                              c.pp > 1 ? fmt::format(" pp={}", c.pp) : "");
      if (out.gpu_budget && c.gpus_per_replica > *out.gpu_budget) {
        c.status = "over-budget";
        c.error = fmt::format("one replica needs {} GPUs, over the budget of {}", c.gpus_per_replica, *out.gpu_budget);
      } else {
        c.capacity = find_max_rate(*c.scenario, out.search);
        if (!c.capacity.fits) c.error = "memory: " + c.capacity.error;
        else if (c.capacity.max_rate <= 0) c.error = c.capacity.error;
      }
    } catch (const Interrupted&) {
      throw;  // Ctrl-C stops the whole run, not just this point
    } catch (const Error& e) {
      c.error = e.what();
    }
    if (!c.error.empty()) {
      if (c.status == "ok") c.status = "infeasible";
    } else {
      const Trial& best = *c.capacity.at_max;
      c.tokens_per_gpu = best.summary.output_tokens_per_s / c.gpus_per_replica;
      c.tokens_per_user = best.summary.tpot_ms.mean > 0 ? 1000.0 / best.summary.tpot_ms.mean : 0.0;
      const double max_rate = c.capacity.max_rate;
      const int budget_replicas = out.gpu_budget ? *out.gpu_budget / c.gpus_per_replica : 0;
      double per_replica = max_rate;
      if (out.target_rate) {
        c.replicas = static_cast<int>(std::ceil(*out.target_rate / max_rate - 1e-9));
        c.replicas = std::max(c.replicas, 1);
        per_replica = *out.target_rate / c.replicas;
        if (out.gpu_budget && c.replicas > budget_replicas) c.status = "over-budget";
      } else {
        c.replicas = budget_replicas;
        if (out.max_replicas > 0) c.replicas = std::min(c.replicas, out.max_replicas);
        if (c.replicas == 0) c.status = "over-budget";
      }
      if (out.max_replicas > 0 && c.replicas > out.max_replicas) c.status = "too-many-replicas";
      c.gpus = c.replicas * c.gpus_per_replica;
      c.total_rate = out.target_rate ? *out.target_rate : c.replicas * max_rate;
      try {
        c.operating = per_replica < max_rate * (1 - 1e-9) ? run_trial(*c.scenario, per_replica, out.search.trial) : best;
      } catch (const Interrupted&) {
        throw;  // Ctrl-C stops the whole run, not just this point
      } catch (const Error&) {
        c.operating = best;
      }
      const RunSummary& op = c.operating->summary;
      const double out_per_request = op.completed > 0 ? static_cast<double>(op.output_tokens) / op.completed : 0.0;
      c.economics = economics(c.scenario->gpu, std::max(c.gpus, 0), c.total_rate * out_per_request, op.power_w_per_gpu);
    }
    if (opt.progress) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      opt.progress(++done, out.candidates.size());
    }
  });

  // Pareto frontier over every candidate that can serve at all.
  std::vector<std::size_t> serving;
  std::vector<std::pair<double, double>> pts;
  for (std::size_t i = 0; i < out.candidates.size(); ++i)
    if (out.candidates[i].error.empty()) {
      serving.push_back(i);
      pts.emplace_back(out.candidates[i].tokens_per_gpu, out.candidates[i].tokens_per_user);
    }
  const auto front = pareto_front(pts);
  for (std::size_t k = 0; k < serving.size(); ++k) out.candidates[serving[k]].pareto = front[k];

  // Rank: with a target, cheapest per million output tokens first (then fewer
  // GPUs); with only a budget, highest total goodput first.
  std::vector<Candidate*> ranked, rest;
  for (auto& c : out.candidates) (c.status == "ok" ? ranked : rest).push_back(&c);
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Candidate* a, const Candidate* b) {
    if (out.target_rate) {
      if (a->economics.usd_per_million_output_tokens != b->economics.usd_per_million_output_tokens)
        return a->economics.usd_per_million_output_tokens < b->economics.usd_per_million_output_tokens;
      return a->gpus < b->gpus;
    }
    if (a->total_rate != b->total_rate) return a->total_rate > b->total_rate;
    return a->economics.usd_per_million_output_tokens < b->economics.usd_per_million_output_tokens;
  });
  std::vector<Candidate> sorted;
  for (std::size_t k = 0; k < ranked.size(); ++k) {
    ranked[k]->rank = static_cast<int>(k + 1);
    sorted.push_back(*ranked[k]);
  }
  for (auto* c : rest) sorted.push_back(*c);
  out.candidates = std::move(sorted);

  if (ranked.empty()) {
    std::string why;
    for (const auto& c : out.candidates) {
      const std::string r = !c.error.empty()              ? c.error
                            : c.status == "over-budget"   ? fmt::format("needs {} GPUs", c.gpus)
                                                          : fmt::format("needs {} replicas", c.replicas);
      why += fmt::format("\n  {}: {}", c.label, r);
    }
    if (out.gpu_budget)
      throw Error(fmt::format("no candidate fits a budget of {} GPU(s){}{}", *out.gpu_budget,
                              out.target_rate ? fmt::format(" at {:g} req/s", *out.target_rate) : "", why));
    throw Error(fmt::format("no candidate can serve this workload within its SLOs:{}", why));
  }
  out.explanation = plan_explanation(out);
  if (base.autoscale) {
    const Candidate& best = out.candidates.front();  // rank 1
    if (best.replicas < 2)
      out.fleet_note = fmt::format("the best candidate needs {} replica: nothing to autoscale", best.replicas);
    else if (best.scenario)
      out.fleet = compare_fleets(*best.scenario, best.label, best.replicas, *base.autoscale);
  }
  return out;
}

namespace {

std::string slo_text(const SloSpec& s) {
  std::vector<std::string> parts;
  for (const auto& t : s.targets) parts.push_back(fmt::format("{} {} <= {:g} ms", t.metric, t.statistic, t.limit_ms));
  if (s.attainment > 0) parts.push_back(fmt::format("attainment >= {:g}%", 100 * s.attainment));
  return join(parts);
}

std::string binding_text(const Candidate& c) {
  if (!c.capacity.binding.empty()) return c.capacity.binding;
  return c.error.empty() ? "-" : "";
}

}  // namespace

std::string plan_table(const PlanResult& p) {
  std::string out;
  out += fmt::format("Capacity plan: {} from {}\n", p.model, p.source);
  out += fmt::format("  goal: {}{}{}\n",
                     p.target_rate ? fmt::format("{:g} req/s{}", *p.target_rate,
                                                 p.target_note.empty() ? "" : " (" + p.target_note + ")")
                                   : "most goodput",
                     p.gpu_budget ? fmt::format(" within {} GPUs", *p.gpu_budget) : "",
                     p.max_replicas > 0 ? fmt::format(", at most {} replicas", p.max_replicas) : "");
  out += fmt::format("  SLOs: {}\n", slo_text(p.slo));
  out += fmt::format("  search: {} requests per trial, rate precision {:.1f}%; ranked by {}\n",
                     p.search.trial.requests, 100 * p.search.tolerance,
                     p.target_rate ? "$ per million output tokens" : "total goodput");
  out += "  max req/s: per replica under the SLOs; total r/s: replicas x max; $/Mtok, J/tok: at the operating\n"
         "  load (the target, else every replica at its max; power per GPU: each step at active + (TDP - active) x\n"
         "  min(1, w_c x compute + w_m x memory-bandwidth utilisation), idle power between steps; docs/energy.md);\n"
         "  tok/s/usr: 1000 / mean TPOT at the max rate\n\n";
  std::size_t lw = 30;  // the candidate column fits the longest label
  for (const auto& c : p.candidates) lw = std::max(lw, c.label.size());
  out += fmt::format("{:>4} {:<{}} {:>9} {:>5} {:>5} {:>9} {:>8} {:>8} {:>7} {:>9} {:>9}  {:<22} {}\n", "rank",
                     "candidate", lw, "max req/s", "repl", "GPUs", "total r/s", "$/hour", "$/Mtok", "J/tok", "tok/s/GPU",
                     "tok/s/usr", "binding", "pareto");
  for (const auto& c : p.candidates) {
    if (!c.error.empty()) continue;
    out += fmt::format("{:>4} {:<{}} {:>9.3g} {:>5} {:>5} {:>9.3g} {:>8.2f} {:>8.3f} {:>7.3f} {:>9.0f} {:>9.1f}  {:<22} {}\n",
                       c.rank > 0 ? fmt::format("{}", c.rank) : "-", c.label, lw, c.capacity.max_rate, c.replicas, c.gpus,
                       c.replicas * c.capacity.max_rate,
                       c.economics.usd_per_hour, c.economics.usd_per_million_output_tokens,
                       c.economics.joules_per_output_token, c.tokens_per_gpu, c.tokens_per_user, binding_text(c),
                       c.pareto ? "*" : "");
  }
  bool any_other = false;
  for (const auto& c : p.candidates)
    if (c.status != "ok" && c.error.empty()) any_other = true;
  if (any_other) {
    out += "\nnot ranked:\n";
    for (const auto& c : p.candidates)
      if (c.status != "ok" && c.error.empty())
        out += fmt::format("  {}: {} ({} replicas, {} GPUs)\n", c.label, c.status, c.replicas, c.gpus);
  }
  bool any_bad = false;
  for (const auto& c : p.candidates) any_bad = any_bad || !c.error.empty();
  if (any_bad) {
    out += "\ninfeasible:\n";
    for (const auto& c : p.candidates)
      if (!c.error.empty()) out += fmt::format("  {}: {}\n", c.label, c.error);
  }
  out += "\nbinding constraints (what failed just above the maximum rate):\n";
  for (const auto& c : p.candidates)
    if (c.error.empty()) out += fmt::format("  {}: {}\n", c.label, c.capacity.binding_detail);
  out += "\nPareto frontier (output tok/s per GPU vs tok/s per user, at the maximum rate):\n";
  std::vector<const Candidate*> front;
  for (const auto& c : p.candidates)
    if (c.pareto) front.push_back(&c);
  std::sort(front.begin(), front.end(), [](auto* a, auto* b) { return a->tokens_per_gpu > b->tokens_per_gpu; });
  for (const auto* c : front)
    out += fmt::format("  {:<{}} {:>7.0f} tok/s/GPU {:>7.1f} tok/s/user\n", c->label, lw, c->tokens_per_gpu,
                       c->tokens_per_user);
  for (const auto& c : p.candidates)
    if (c.rank == 1) {
      out += fmt::format("\nbest: {} ({}): {} replica(s) x {} GPU(s) = {} GPUs, ${:.2f}/hour, ${:.3f} per million "
                         "output tokens, {:.3f} J/token\n",
                         c.label, c.precision, c.replicas, c.gpus_per_replica, c.gpus, c.economics.usd_per_hour,
                         c.economics.usd_per_million_output_tokens, c.economics.joules_per_output_token);
      if (c.operating) {
        const auto& s = c.operating->summary;
        out += fmt::format("  per replica at {:.3g} req/s: TTFT p99 {:.0f} ms, TPOT p99 {:.1f} ms, batch {:.1f}, GPU "
                           "busy {:.0f}%\n",
                           c.operating->rate, s.ttft_ms.p99, s.tpot_ms.p99, s.batch_size_mean, 100 * s.busy_fraction);
      }
    }
  if (!p.explanation.empty()) out += "\n" + p.explanation;
  if (p.fleet) out += fleet_comparison_text(*p.fleet);
  if (!p.fleet_note.empty()) out += "\nno fixed vs autoscaled comparison: " + p.fleet_note + "\n";
  return out;
}

nlohmann::ordered_json plan_json(const PlanResult& p) {
  nlohmann::ordered_json j;
  j["model"] = p.model;
  j["source"] = p.source;
  j["target_rate"] = p.target_rate ? nlohmann::ordered_json(*p.target_rate) : nlohmann::ordered_json(nullptr);
  j["gpu_budget"] = p.gpu_budget ? nlohmann::ordered_json(*p.gpu_budget) : nlohmann::ordered_json(nullptr);
  j["max_replicas"] = p.max_replicas;
  nlohmann::ordered_json slo = nlohmann::ordered_json::array();
  for (const auto& t : p.slo.targets)
    slo.push_back({{"metric", t.metric}, {"statistic", t.statistic}, {"limit_ms", t.limit_ms}});
  j["slo"] = {{"targets", slo}, {"attainment", p.slo.attainment}};
  j["search"] = {{"trial_requests", p.search.trial.requests},
                 {"tolerance", p.search.tolerance},
                 {"saturation_ratio", p.search.trial.saturation_ratio},
                 {"saturation_floor_ms", p.search.trial.saturation_floor_ms}};
  nlohmann::ordered_json cs = nlohmann::ordered_json::array();
  for (const auto& c : p.candidates) {
    nlohmann::ordered_json x;
    x["rank"] = c.rank;
    x["label"] = c.label;
    x["gpu"] = c.gpu;
    x["weights"] = c.weights;
    x["tp"] = c.tp;
    x["pp"] = c.pp;
    if (c.layout.wide()) {
      x["attention_dp"] = c.layout.attention_dp;
      x["ep"] = c.layout.ep;
      x["redundant_experts"] = c.layout.redundant_experts;
    }
    x["precision"] = c.precision;
    x["status"] = c.status;
    x["error"] = c.error;
    x["gpus_per_replica"] = c.gpus_per_replica;
    if (c.capacity.fits) {
      x["kv_blocks"] = c.capacity.kv_blocks;
      x["saturation_rps"] = c.capacity.saturation_rps;
    }
    x["max_rate_per_replica"] = c.capacity.max_rate;
    x["binding"] = c.capacity.binding;
    x["binding_detail"] = c.capacity.binding_detail;
    if (c.error.empty()) {
      x["replicas"] = c.replicas;
      x["gpus"] = c.gpus;
      x["total_rate"] = c.total_rate;
      x["output_tokens_per_s_per_gpu"] = c.tokens_per_gpu;
      x["output_tokens_per_s_per_user"] = c.tokens_per_user;
      x["pareto"] = c.pareto;
      x["usd_per_hour"] = c.economics.usd_per_hour;
      x["usd_per_million_output_tokens"] = c.economics.usd_per_million_output_tokens;
      x["power_w"] = c.economics.power_watts;
      x["joules_per_output_token"] = c.economics.joules_per_output_token;
      const auto& b = c.capacity.at_max->summary;
      x["at_max_rate"] = {{"ttft_p99_ms", b.ttft_ms.p99}, {"tpot_p99_ms", b.tpot_ms.p99},
                          {"tpot_mean_ms", b.tpot_ms.mean}, {"slo_attainment", b.slo_attainment},
                          {"batch_size_mean", b.batch_size_mean}, {"kv_cache_max", b.kv_utilization_max},
                          {"busy_fraction", b.busy_fraction}};
      if (c.operating) {
        const auto& s = c.operating->summary;
        x["operating_point"] = {{"rate_per_replica", c.operating->rate}, {"ttft_p99_ms", s.ttft_ms.p99},
                                {"tpot_p99_ms", s.tpot_ms.p99}, {"batch_size_mean", s.batch_size_mean},
                                {"busy_fraction", s.busy_fraction}};
      }
      // The 80% bands of the latencies at the operating point (at the max rate without one).
      if (c.scenario) {
        const RunSummary& at = c.operating ? c.operating->summary : b;
        x["bands"] = bands::run_bands_json(*c.scenario, at, summary_json(at));
      }
    }
    nlohmann::ordered_json trials = nlohmann::ordered_json::array();
    for (const auto& t : c.capacity.trials)
      trials.push_back({{"rate", t.rate}, {"sustainable", t.sustainable()}, {"failure", t.failure},
                        {"ttft_p99_ms", t.summary.ttft_ms.p99}, {"tpot_p99_ms", t.summary.tpot_ms.p99},
                        {"slo_attainment", t.summary.slo_attainment}});
    x["trials"] = trials;
    cs.push_back(x);
  }
  j["candidates"] = cs;
  if (!p.explanation.empty()) j["explanation"] = p.explanation;
  if (!p.target_note.empty()) j["target_note"] = p.target_note;
  if (p.fleet) j["fleet_comparison"] = fleet_comparison_json(*p.fleet);
  if (!p.fleet_note.empty()) j["fleet_comparison_note"] = p.fleet_note;
  return j;
}

std::string plan_csv(const PlanResult& p) {
  std::string out = "rank,label,gpu,weights,tp,pp,status,max_rate_per_replica,replicas,gpus,capacity_rate,usd_per_hour,"
                    "usd_per_million_output_tokens,joules_per_output_token,output_tokens_per_s_per_gpu,"
                    "output_tokens_per_s_per_user,pareto,binding,error\n";
  for (const auto& c : p.candidates) {
    const bool s = c.error.empty();
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", c.rank, csv_field(c.label), csv_field(c.gpu),
                       csv_field(c.weights), c.tp, c.pp, csv_field(c.status), c.capacity.max_rate, s ? fmt::format("{}", c.replicas) : "",
                       s ? fmt::format("{}", c.gpus) : "", s ? fmt::format("{}", c.replicas * c.capacity.max_rate) : "",
                       s ? fmt::format("{}", c.economics.usd_per_hour) : "",
                       s ? fmt::format("{}", c.economics.usd_per_million_output_tokens) : "",
                       s ? fmt::format("{}", c.economics.joules_per_output_token) : "",
                       s ? fmt::format("{}", c.tokens_per_gpu) : "", s ? fmt::format("{}", c.tokens_per_user) : "",
                       c.pareto ? 1 : 0, csv_field(c.capacity.binding), csv_field(c.error));
  }
  return out;
}

}  // namespace servesim::planning
