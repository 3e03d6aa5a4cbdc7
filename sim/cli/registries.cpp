#include "cli/registries.h"

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
