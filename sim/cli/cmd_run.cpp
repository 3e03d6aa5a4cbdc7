// `servesim run SCENARIO.yaml [--set K=V]... [--json] [--out DIR]`
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cli/slo_args.h"
#include "run/simulation.h"
#include "metrics/summary_json.h"
#include "planning/economics.h"
#include "report/run_report.h"
#include "util/atomic_file.h"
#include "util/output_dir.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "config/scenario_reader.h"
#include "cost/replica_layout.h"
#include "uncertainty/bands.h"
#include "uncertainty/scenario_key.h"

namespace servesim::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> sets, slo;
  bool json = false;
  std::string out_dir;
  bool no_fast_forward = false;
  int seed_replicates = -1;  // -1: automatic (kAutoReplicates where it matters and is cheap)
};

void run(const RunArgs& a) {
  const Scenario sc = load_scenario(a.scenario, overrides_with_slo(a.slo, a.sets));
  const std::string slo_note = slo_sources_note(a.scenario, a.slo, a.sets);
  SimulationOptions opt;
  opt.fast_forward = !a.no_fast_forward;
  // requests.csv is streamed during the run into a temporary file that only becomes
  // requests.csv once the run finished and every file was written: an error or Ctrl-C
  // leaves nothing under the final names.
  std::optional<OutputDir> out;
  if (!a.out_dir.empty()) {
    out.emplace(a.out_dir, "--out");  // before simulating, not after
    opt.requests_csv = &out->stream("requests.csv");
    opt.timeline_rows = 20000;
  }
  if (isatty(STDERR_FILENO)) {
    opt.progress = [](std::int64_t done, std::int64_t total) {
      if (total > 0) std::cerr << fmt::format("\r{} / {} requests ({:.0f}%)", done, total, 100.0 * done / total);
      else std::cerr << fmt::format("\r{} requests", done);
    };
  }
  SimulationResult r;
  try {
    r = simulate(sc, opt);
  } catch (const Interrupted&) {
    if (opt.progress) std::cerr << "\r\033[K";
    throw Interrupted(a.out_dir.empty() ? "interrupted: the run stopped before it finished"
                                        : fmt::format("interrupted: the run stopped before it finished; nothing "
                                                      "written to {}",
                                                      a.out_dir));
  }
  if (opt.progress) std::cerr << "\r\033[K";
  // Summary, resolved config and the uncertainty bands.
  nlohmann::json j = run_report_json(sc, r);
  // The simulation's own sampling spread, added to the bands (--seed-replicates N; -1:
  // automatic, report/run_report.h).
  add_seed_spread(j, sc, r, a.seed_replicates, opt.fast_forward);
  if (!a.out_dir.empty()) {
    out->write("summary.json", j.dump(2) + "\n");
    out->write("timeline.csv", timeline_csv(r.timeline));
    out->commit();
  }
  if (a.json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  // A pool or replica of a wide layout (DP attention / EP) is named by its layout; others as before.
  auto pool_layout = [](const PoolReport& p) { return p.layout.empty() ? fmt::format("tp={}", p.tp) : p.layout; };
  if (const DisaggregationReport* d = r.summary.disaggregation ? &*r.summary.disaggregation : nullptr)
    fmt::print("{} disaggregated: {} prefill instance(s) of {} x{} ({}, {}) and {} decode instance(s) of {} x{} "
               "({}, {}), {} engine\n",
               sc.model.name, d->prefill.replicas, d->prefill.gpu, d->prefill.gpus_per_instance, pool_layout(d->prefill),
               d->prefill.precision, d->decode.replicas, d->decode.gpu, d->decode.gpus_per_instance,
               pool_layout(d->decode), d->decode.precision, sc.engine.kind);
  else if (!sc.pools.empty()) {
    std::string pools;
    for (const FleetPoolSpec& p : sc.pools)
      pools += fmt::format("{}{}: {} x {} x{} (tp={}, {})", pools.empty() ? "" : "; ", p.name,
                           p.setup.parallelism.replicas, p.setup.gpu.name, p.setup.parallelism.gpus_per_replica(),
                           p.setup.parallelism.tp, p.setup.resolved.describe());
    fmt::print("{} on a heterogeneous fleet of {} replicas ({}), {} engine\n", sc.model.name, sc.parallelism.replicas,
               pools, sc.engine.kind);
  } else if (sc.parallelism.wide())
    fmt::print("{} on {} x{} ({}, replicas={}), {}, {} engine\n", sc.model.name, sc.gpu.name,
               sc.parallelism.total_gpus(), resolve_layout(sc.parallelism, sc.gpu).describe(sc.parallelism),
               sc.parallelism.replicas, sc.resolved.describe(), sc.engine.kind);
  else
    fmt::print("{} on {} x{} (tp={}, pp={}, replicas={}), {}, {} engine\n", sc.model.name, sc.gpu.name,
               sc.parallelism.total_gpus(), sc.parallelism.tp, sc.parallelism.pp, sc.parallelism.replicas,
               sc.resolved.describe(), sc.engine.kind);
  // The default framework prints nothing more, so default runs read as before.
  if (sc.engine.framework != "vllm-v1" || sc.engine.scheduler != "vllm_v1")
    fmt::print("framework {} (scheduler {}; `servesim list frameworks` says what is not modelled)\n",
               sc.engine.framework, sc.engine.scheduler);
  if (const SpeculativeConfig& sp = sc.engine.speculative; sp.enabled())
    fmt::print("speculative decoding: {}{}, k = {}, {:.2f} tokens per sequence per step expected\n", sp.method,
               sp.draft_model.empty() ? "" : " (" + sp.draft_model + ")", sp.num_speculative_tokens,
               sp.expected_tokens());
  if (const SamplingSpec& s = sc.workload.sampling; s.beam() && sc.engine.beam_search == BeamSearchImpl::above_engine)
    fmt::print("beam search above the engine ({}): {} beams per request, each token one request of max_tokens 1 per "
               "beam (run/beam_loop.h)\n",
               sc.engine.framework, s.sequences());
  else if (!s.single())
    fmt::print("{}: {} sequences per request (one prefill; KV blocks shared copy-on-write)\n",
               s.beam() ? "beam search" : "parallel sampling", s.sequences());
  if (r.summary.pools.empty())
    fmt::print("KV cache: {} blocks x {} tokens per {}\n", r.kv_blocks_per_replica, sc.engine.block_size,
               r.summary.disaggregation ? "decode instance" : "replica");
  else
    for (const FleetPoolReport& p : r.summary.pools)
      fmt::print("KV cache: {} blocks x {} tokens per replica of pool {}\n", p.hardware.kv_blocks_per_instance,
                 sc.engine.block_size, p.name);
  if (!slo_note.empty()) fmt::print("{}\n", slo_note);
  fmt::print("\n");
  fmt::print("{}", summary_table(r.summary));
  fmt::print("cost       {}\n", planning::cost_text(sc, r.summary));
  fmt::print("{}", bands::summary_bands_text(j["bands"]));
  if (!a.out_dir.empty()) fmt::print("\nwrote {0}/summary.json, {0}/requests.csv, {0}/timeline.csv\n", a.out_dir);
}

}  // namespace

void register_run(CLI::App& app) {
  static RunArgs a;
  auto* cmd = app.add_subcommand("run", "Simulate a scenario and report latency, throughput and utilisation");
  cmd->add_option("scenario", a.scenario, "scenario YAML")->required();
  cmd->add_option("--set", a.sets, "override a scenario key, e.g. --set workload.arrival.rate=12 (a list item by its index: pools[1].replicas=4)");
  add_slo_option(cmd, a.slo);
  cmd->add_flag("--json", a.json, "print the summary as JSON");
  cmd->add_option("--out", a.out_dir, "write summary.json, requests.csv and timeline.csv here");
  cmd->add_flag("--no-fast-forward", a.no_fast_forward, "simulate every decode step one by one (for checking)");
  cmd->add_option("--seed-replicates", a.seed_replicates,
                  "replay the scenario with this many more seeds and widen the 80% bands by the spread (default: "
                  "4 when the run has a band and at most 50,000 requests; else 0)")
      ->check(CLI::Range(-1, 64));
  cmd->callback([] { run(a); });
}

}  // namespace servesim::cli
