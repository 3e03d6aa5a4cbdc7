#include "cli/registries.h"

namespace servesim::cli {

const std::vector<Registry>& registries() {
  static const std::vector<Registry> r = {
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
