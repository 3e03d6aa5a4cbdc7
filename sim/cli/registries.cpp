#include "cli/registries.h"

#include <fmt/format.h>

#include "cost/all_to_all.h"
#include "engine/framework_preset.h"
#include "engine/router.h"
#include "workload/arrival_process.h"
#include "workload/length_distribution.h"

namespace servesim::cli {

const std::vector<Registry>& registries() {
  static const std::vector<Registry> r = {
      {"arrivals", "Arrival processes (workload.arrival.process)", [] { return arrival_process_registry(); }},
      {"lengths", "Length distributions (workload.input_tokens.dist, workload.output_tokens.dist)",
       [] { return length_distribution_registry(); }},
      {"routers", "Routers (parallelism.router)", [] { return router_registry(); }},
      {"frameworks", "Serving frameworks (engine.framework: CPU-side defaults and engine.scheduler; keys set in engine: override them)",
       [] {
         std::vector<std::pair<std::string, std::string>> out;
         for (const auto& p : framework_presets()) {
           const char* beams = p.beam_search == BeamSearchImpl::above_engine ? "above the engine"
                               : p.beam_search == BeamSearchImpl::in_engine  ? "in the engine"
                                                                             : "none";
           std::string line = fmt::format("{}; scheduler {}; beam search {}", p.doc, p.scheduler, beams);
           if (!p.policy_note.empty()) line += fmt::format(" [not modelled: {}]", p.policy_note);
           out.emplace_back(std::string(p.name), line);
         }
         return out;
       }},
      {"all-to-all", "Expert all-to-all kernels (moe.prefill_all_to_all, moe.decode_all_to_all)",
       [] {
         std::vector<std::pair<std::string, std::string>> out;
         for (const AllToAllKernel& k : all_to_all_kernels())
           out.emplace_back(std::string(k.name), fmt::format("{} [{}]", k.doc, k.source));
         return out;
       }},
      {"engines", "Engines (engine.kind)",
       [] {
         return std::vector<std::pair<std::string, std::string>>{
             {"vllm", "continuous batching with chunked prefill and paged KV cache (vLLM v1 scheduler)"},
             {"static", "fixed batches run to completion before the next (FasterTransformer-style)"}};
       }},
  };
  return r;
}

}  // namespace servesim::cli
