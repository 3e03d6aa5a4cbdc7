#include "run_text.h"

#include <fmt/format.h>

#include "metrics/summary_json.h"
#include "planning/economics.h"
#include "uncertainty/bands.h"

namespace servesim::python {

std::string run_text(const Scenario& sc, const SimulationResult& r, const nlohmann::json& report) {
  std::string out;
  if (const DisaggregationReport* d = r.summary.disaggregation ? &*r.summary.disaggregation : nullptr)
    out += fmt::format("{} disaggregated: {} prefill instance(s) of {} x{} (tp={}, {}) and {} decode instance(s) of {} "
                       "x{} (tp={}, {}), {} engine\n",
                       sc.model.name, d->prefill.replicas, d->prefill.gpu, d->prefill.tp, d->prefill.tp,
                       d->prefill.precision, d->decode.replicas, d->decode.gpu, d->decode.tp, d->decode.tp,
                       d->decode.precision, sc.engine.kind);
  else
    out += fmt::format("{} on {} x{} (tp={}, pp={}, replicas={}), {}, {} engine\n", sc.model.name, sc.gpu.name,
                       sc.parallelism.total_gpus(), sc.parallelism.tp, sc.parallelism.pp, sc.parallelism.replicas,
                       sc.resolved.describe(), sc.engine.kind);
  if (sc.engine.framework != "vllm-v1" || sc.engine.scheduler != "vllm_v1")
    out += fmt::format("framework {} (scheduler {}; `servesim list frameworks` says what is not modelled)\n",
                       sc.engine.framework, sc.engine.scheduler);
  if (const SpeculativeConfig& sp = sc.engine.speculative; sp.enabled())
    out += fmt::format("speculative decoding: {}{}, k = {}, {:.2f} tokens per sequence per step expected\n", sp.method,
                       sp.draft_model.empty() ? "" : " (" + sp.draft_model + ")", sp.num_speculative_tokens,
                       sp.expected_tokens());
  if (const SamplingSpec& s = sc.workload.sampling; !s.single())
    out += fmt::format("{}: {} sequences per request (one prefill; KV blocks shared copy-on-write)\n",
                       s.beam() ? "beam search" : "parallel sampling", s.sequences());
  out += fmt::format("KV cache: {} blocks x {} tokens per {}\n\n", r.kv_blocks_per_replica, sc.engine.block_size,
                     r.summary.disaggregation ? "decode instance" : "replica");
  out += summary_table(r.summary);
  out += fmt::format("cost       {}\n", planning::cost_text(sc, r.summary));  // as `servesim run` prints it
  out += bands::summary_bands_text(report["bands"]);
  return out;
}

}  // namespace servesim::python
