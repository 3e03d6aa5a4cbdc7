// `servesim plan SCENARIO.yaml [--target-rate R | --gpu-budget N] [--candidates-gpu a,b]
//  [--candidates-weights bf16,fp8] [--candidates-tp 1,2,4,8] [--candidates-pp 1,2]
//  [--max-replicas M] [--trial-requests N] [--tolerance F] [-j N] [--json] [--out DIR] [--set K=V]...`
#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <thread>

#include "config/edits.h"
#include "config/plan_document.h"
#include "config/plan_reader.h"
#include "cli/cli_checks.h"
#include "cli/commands.h"
#include "deploy/deployment.h"
#include "cli/slo_args.h"
#include "cli/scenario_args.h"
#include "planning/disaggregated_plan.h"
#include "planning/pool_mix_plan.h"
#include "planning/plan.h"
#include "planning/progress.h"
#include "util/atomic_file.h"
#include "util/output_dir.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/text.h"
#include "util/warnings.h"

namespace servesim::cli {
namespace {

struct PlanArgs {
  std::string scenario;
  std::vector<std::string> sets, slo, gpus, weights, emit, layouts;
  std::vector<int> tps, pps;
  double target_rate = 0;
  int gpu_budget = 0;
  int max_replicas = 0;
  std::int64_t trial_requests = 0;
  double tolerance = 0;
  int threads = 0;
  bool json = false;
  std::string out_dir;
};

// The best candidate as a deployment to emit (deploy/deployment.h); an Error when no
// candidate meets the SLOs.
deploy::DeploymentPlan best_deployment(const planning::PlanResult& p, const std::string& source) {
  for (const auto& c : p.candidates) {
    if (c.rank != 1 || !c.scenario) continue;
    deploy::DeploymentPlan d;
    d.scenario = &*c.scenario;
    d.label = c.label;
    d.source = source;
    d.replicas = c.replicas;
    d.target_rate = p.target_rate.value_or(0.0);
    const planning::Trial& t = c.operating ? *c.operating : *c.capacity.at_max;
    d.rate_per_replica = t.rate;
    d.ttft_p99_ms = t.summary.ttft_ms.p99;
    d.tpot_p99_ms = t.summary.tpot_ms.p99;
    d.e2e_p99_ms = t.summary.e2e_ms.p99;
    d.attainment = t.summary.slo_attainment;
    d.usd_per_hour = c.economics.usd_per_hour;
    d.usd_per_million_output_tokens = c.economics.usd_per_million_output_tokens;
    d.joules_per_output_token = c.economics.joules_per_output_token;
    return d;
  }
  throw Error("--emit: no candidate meets the SLOs at the goal, so there is no configuration to emit");
}

void run_pool_mix_plan(const PlanArgs& a, const ConfigNode& doc, planning::PlanOptions& o,
                       const std::vector<deploy::EmitTarget>* emit, std::optional<OutputDir>& out) {
  if (emit)
    throw Error("--emit writes the launch command of one setup; a plan over pools sizes a mix of setups (run each "
                "pool's engine with its own settings), so there is nothing single to emit");
  if (!o.gpus.empty() || !o.weights.empty() || !o.tps.empty() || !o.pps.empty() || !o.layouts.empty())
    throw Error("plan over pools varies each pool's replicas; candidate GPUs, weights, TP, PP and layouts are the "
                "pools' own (set them in each pool, or plan one setup without pools)");
  planning::ProgressBar bar("pool mixes", planning::stderr_is_terminal());
  o.progress = [&](std::size_t d, std::size_t t) { bar.update(d, t); };
  planning::PoolMixPlan p;
  try {
    p = planning::plan_pool_mixes(doc, a.scenario, o);
  } catch (const Interrupted&) {
    bar.finish();
    throw Interrupted(fmt::format("interrupted before the plan over pools finished; nothing written{}",
                                  a.out_dir.empty() ? "" : " to " + a.out_dir));
  }
  bar.finish();
  nlohmann::ordered_json j;
  j["pool_mixes"] = planning::pool_mix_plan_json(p);
  if (out) {
    out->write("plan.json", j.dump(2) + "\n");
    out->write("plan.csv", planning::pool_mix_plan_csv(p));
    out->commit();
  }
  if (a.json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  fmt::print("{}", planning::pool_mix_plan_table(p));
  if (!a.out_dir.empty()) fmt::print("\nwrote {0}/plan.json, {0}/plan.csv\n", a.out_dir);
}

void run(const PlanArgs& a) {
  std::vector<deploy::EmitTarget> emit;  // checked before any search runs
  for (const auto& e : a.emit) emit.push_back(deploy::parse_emit_target(trim(e)));
  ConfigNode doc = load_document(a.scenario, overrides_with_slo(a.slo, a.sets));
  planning::PlanOptions o;
  if (a.target_rate < 0) throw Error("--target-rate must be positive");
  if (a.target_rate > 0) o.target_rate = a.target_rate;
  if (a.gpu_budget < 0) throw Error("--gpu-budget must be at least 1");
  if (a.gpu_budget > 0) o.gpu_budget = a.gpu_budget;
  if (a.trial_requests != 0 && a.trial_requests < 50) throw Error("--trial-requests: use at least 50");
  if (a.tolerance < 0 || a.tolerance >= 1) throw Error("--tolerance must be a fraction in (0, 1)");
  for (int v : a.tps)
    if (v < 1) throw Error("--candidates-tp: degrees must be positive");
  for (int v : a.pps)
    if (v < 1) throw Error("--candidates-pp: degrees must be positive");
  o.gpus = a.gpus;
  o.weights = a.weights;
  o.tps = a.tps;
  o.pps = a.pps;
  o.layouts = a.layouts;
  o.max_replicas = a.max_replicas;
  o.trial_requests = a.trial_requests;
  o.tolerance = a.tolerance;
  read_plan_section(doc, plan_document(a.scenario), a.scenario, o);
  o.threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::optional<OutputDir> out;  // checked before the searches, not after; plan.json and plan.csv as a set
  if (!a.out_dir.empty()) out.emplace(a.out_dir, "--out");
  // A heterogeneous fleet (pools): how many replicas of each pool, cheapest first
  // (planning/pool_mix_plan.h), instead of one setup per candidate.
  if (doc.is_map() && doc.find("pools") != nullptr) {
    run_pool_mix_plan(a, doc, o, emit.empty() ? nullptr : &emit, out);
    return;
  }
  planning::ProgressBar bar("candidates", planning::stderr_is_terminal());
  std::size_t done = 0, total = 0;
  o.progress = [&](std::size_t d, std::size_t t) {
    done = d;
    total = t;
    bar.update(d, t);
  };
  std::optional<planning::PlanResult> result;
  std::optional<planning::DisaggregatedPlan> disaggregated;
  // A scenario with prefill and decode pools: the co-located plan of the same
  // scenario without them, then the xPyD splits next to it.
  const bool has_pools = doc.is_map() && doc.find("disaggregation") != nullptr;
  ConfigNode colocated = doc;
  if (has_pools) colocated.remove("disaggregation");
  try {
    result = planning::plan(colocated, a.scenario, o);
    if (has_pools) {
      bar.finish();
      planning::ProgressBar splits_bar("xPyD splits", planning::stderr_is_terminal());
      o.progress = [&](std::size_t d, std::size_t t) { splits_bar.update(d, t); };
      disaggregated = planning::plan_disaggregated(doc, a.scenario, o, *result);
      splits_bar.finish();
    }
  } catch (const Interrupted&) {
    bar.finish();
    // A plan's tables compare every candidate, so a part of them is not written.
    const std::string progress = total > 0 ? fmt::format("{} of {} candidates searched", done, total)
                                           : std::string("before the first candidate was searched");
    throw Interrupted(fmt::format("interrupted: {}; nothing written{}", progress,
                                  a.out_dir.empty() ? "" : " to " + a.out_dir));
  }
  bar.finish();
  const planning::PlanResult& p = *result;
  nlohmann::ordered_json j = planning::plan_json(p);
  if (disaggregated) j["disaggregated"] = planning::disaggregated_plan_json(*disaggregated, p);
  std::vector<deploy::EmittedFile> emitted;
  if (!emit.empty()) {
    const deploy::DeploymentPlan d = best_deployment(p, a.scenario);
    if (has_pools)
      warn("--emit writes the best co-located candidate; the disaggregated xPyD split is not emitted (two pools "
           "joined by a KV connector servesim does not configure)");
    for (const auto t : emit)
      for (auto& f : deploy::emit_deployment(d, t)) emitted.push_back(std::move(f));
    nlohmann::ordered_json files = nlohmann::ordered_json::object();
    for (const auto& f : emitted) files[f.name] = f.text;
    j["emitted"] = files;
  }
  std::vector<std::string> written = {"plan.json", "plan.csv"};
  if (!a.out_dir.empty()) {
    out->write("plan.json", j.dump(2) + "\n");
    out->write("plan.csv", planning::plan_csv(p));
    for (const auto& f : emitted) {
      out->write(f.name, f.text);
      written.push_back(f.name);
    }
    out->commit();
  }
  if (a.json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  fmt::print("{}", planning::plan_table(p));
  if (disaggregated) fmt::print("{}", planning::disaggregated_plan_table(*disaggregated, p));
  if (a.out_dir.empty())  // the emitted files on the terminal, each under its name
    for (const auto& f : emitted) fmt::print("\n==> {} <==\n{}", f.name, f.text);
  if (!a.out_dir.empty()) {
    std::string list;
    for (const auto& n : written) list += (list.empty() ? "" : ", ") + a.out_dir + "/" + n;
    fmt::print("\nwrote {}\n", list);
  }
}

}  // namespace

void register_plan(CLI::App& app) {
  static PlanArgs a;
  auto* cmd = app.add_subcommand(
      "plan", "Find each candidate's maximum rate under the SLOs, the replicas and GPUs a target needs, and the cost");
  cmd->add_option("scenario", a.scenario, "scenario YAML (with slo: and optionally a plan section)")->required();
  // 0 stands for "not given" in PlanArgs, so a given value must be positive
  // (a 0 used to be dropped silently); the bounds match the scenario's.
  cmd->add_option("--target-rate", a.target_rate, "requests/s to serve in total (default: the workload's rate)")
      ->check(real_range(1e-7, 1e9));
  cmd->add_option("--gpu-budget", a.gpu_budget, "GPUs available: rank by total goodput within them")
      ->check(CLI::Range(1, 10'000'000));
  cmd->add_option("--candidates-gpu", a.gpus, "GPU names, comma-separated")->delimiter(',');
  cmd->add_option("--candidates-weights", a.weights, "weight precisions, e.g. bf16,fp8,int4")->delimiter(',');
  cmd->add_option("--candidates-tp", a.tps, "tensor-parallel degrees, e.g. 1,2,4,8")->delimiter(',');
  cmd->add_option("--candidates-pp", a.pps, "pipeline-parallel degrees, e.g. 1,2")->delimiter(',');
  cmd->add_option("--candidates-layouts", a.layouts,
                  "replica layouts, e.g. \"tp8,dp16 ep16,tp1 dp16 ep16 r32\" (items tp, dp, ep, r, pp; a comma "
                  "separates layouts)")
      ->delimiter(',');
  cmd->add_option("--max-replicas", a.max_replicas, "most replicas a candidate may use")->check(CLI::Range(1, 10'000));
  cmd->add_option("--trial-requests", a.trial_requests, "requests per trial simulation (default 1000)")
      ->check(CLI::Range(1, 10'000'000));
  cmd->add_option("--tolerance", a.tolerance, "relative precision of the rate search (default 0.025)")
      ->check(real_range(1e-6, 0.999));
  cmd->add_option("-j,--jobs", a.threads, "candidates searched in parallel (default: all cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--set", a.sets, "override a scenario key, e.g. --set engine.max_num_seqs=128");
  add_slo_option(cmd, a.slo);
  cmd->add_flag("--json", a.json, "print the plan as JSON");
  cmd->add_option("--out", a.out_dir, "write plan.json and plan.csv here (and the --emit files)");
  cmd->add_option("--emit", a.emit,
                  "write the best candidate's deployment: vllm (launch-vllm.sh), sglang (launch-sglang.sh), trtllm "
                  "(launch-trtllm.sh + trtllm-extra-options.yaml), kubernetes (deployment.yaml, vLLM pods); "
                  "comma-separated; into --out, else printed after the plan")
      ->delimiter(',');
  cmd->callback([] { run(a); });
}

}  // namespace servesim::cli
